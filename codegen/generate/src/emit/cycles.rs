//! Cycles of references without indirection, which every language whose
//! values hold other values inline must break (a `Box` in Rust, a pointer in
//! Go): the strongly connected components of a graph of type names.

use std::collections::{BTreeMap, BTreeSet};

/// The strongly connected component of every node of `graph` (Tarjan's
/// algorithm, iterative so that a long chain of references cannot overflow
/// the stack): linear in the graph, where a search from every reference
/// would be quadratic in a chain. A node on no cycle is a component of its
/// own, unless it refers to itself.
pub(crate) fn components<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> BTreeMap<&'a str, usize> {
    let nodes: BTreeSet<&str> = graph.keys().copied().chain(graph.values().flatten().copied()).collect();
    let index_of: BTreeMap<&str, usize> = nodes.iter().enumerate().map(|(index, node)| (*node, index)).collect();
    let names: Vec<&str> = nodes.into_iter().collect();
    let edges: Vec<Vec<usize>> = names
        .iter()
        .map(|name| graph.get(name).into_iter().flatten().map(|to| index_of[to]).collect())
        .collect();
    let (mut order, mut low, mut on_stack) = (
        vec![usize::MAX; names.len()],
        vec![0; names.len()],
        vec![false; names.len()],
    );
    let (mut stack, mut component, mut next, mut count) = (Vec::new(), vec![usize::MAX; names.len()], 0, 0);
    for root in 0..names.len() {
        if order[root] != usize::MAX {
            continue;
        }
        // (node, index of the next edge to follow)
        let mut calls = vec![(root, 0)];
        order[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (node, ref mut edge)) = calls.last_mut() {
            if let Some(&to) = edges[node].get(*edge) {
                *edge += 1;
                if order[to] == usize::MAX {
                    order[to] = next;
                    low[to] = next;
                    next += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    calls.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(order[to]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = count;
                    if member == node {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    // A node alone in its component is on a cycle only through an edge to itself.
    let mut sizes = vec![0usize; count];
    for &of in &component {
        sizes[of] += 1;
    }
    names
        .iter()
        .enumerate()
        .filter(|(index, _)| sizes[component[*index]] > 1 || edges[*index].contains(index))
        .map(|(index, name)| (*name, component[index]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_find_every_cycle_without_direct_indirection() {
        let edges = [
            ("a", "b"),
            ("b", "a"),
            ("b", "c"),
            ("c", "c"),
            ("d", "e"),
            ("e", "f"),
            ("f", "d"),
            ("x", "y"),
        ];
        let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (from, to) in edges {
            graph.entry(from).or_default().insert(to);
        }
        // A chain long enough to overflow a recursive search's stack.
        let names: Vec<String> = (0..100_000).map(|index| format!("t{index}")).collect();
        for pair in names.windows(2) {
            graph.entry(&pair[0]).or_default().insert(&pair[1]);
        }
        graph.entry(&names[names.len() - 1]).or_default().insert(&names[0]);
        let component = components(&graph);
        let same = |from: &str, to: &str| component.get(from).is_some_and(|of| component.get(to) == Some(of));
        assert!(same("a", "b") && same("c", "c") && same("d", "f") && same("e", "d"));
        assert!(!same("b", "c") && !same("a", "c") && !same("x", "y") && !component.contains_key("x"));
        assert!(same("t0", "t99999") && same("t5", "t50000"));
    }
}
