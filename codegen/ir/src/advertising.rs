//! What an end advertises, derived from the handlers it was given: per
//! side, the method gates (kind `capability`) its own initialize message
//! carries, each with the requests of that side it offers. Printed into
//! every connection as part of the [`crate::handshake`].
//!
//! The rule every end applies to its capabilities object before it leaves
//! (the agent's `initialize` answer, the client's `initialize` request):
//! a gate is on when the side has a handler for every one of its
//! [`MethodGate::methods`], and then holds what the handler wrote there
//! when that is on (`true`, an object), else the gate's [`MethodGate::on`]
//! value (objects on the way created); otherwise it is removed. A gate's
//! methods include those of every gate enclosing it (v2's
//! `/session/delete` needs what `/session` needs), so that a gate is never
//! on under one that is off. Every request a gate offers stays an optional
//! handler ([`crate::ir::Optional::Gated`]): the schema lets a side leave
//! the whole group out (v2's `session` gates the baseline session methods
//! together, and an agent may support none of them), and one left out
//! turns its gate off.
//!
//! Offered gates (`authMethods`) are not capabilities and are not derived;
//! neither are gates that offer no request of their side (a notification
//! the end acts on itself, such as `session/ready`, needs no handler).

use serde::Serialize;
use serde_json::{json, Value};

use crate::ir::{GateKind, Ir, Side, TypeExpr, TypeKind};

/// One side's derived gates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advertised {
    /// The member of the side's initialize message holding its
    /// capabilities (`agentCapabilities`, `clientCapabilities`, or v2's
    /// `capabilities`).
    pub member: String,
    /// Its gates, in pointer order (an enclosing gate first).
    pub gates: Vec<MethodGate>,
}

/// A capability that offers requests of the side that advertises it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MethodGate {
    /// JSON pointer inside the side's capabilities object.
    pub pointer: String,
    /// What turns it on, by the schema's type there: `true` for a boolean,
    /// `{}` for an object.
    pub on: Value,
    /// The requests the side must handle for it to be on: those it offers
    /// and those of the gates enclosing it, sorted.
    pub methods: Vec<String>,
}

/// The derived gates of `side` (the agent or the client); `None` without a
/// capability layout.
pub fn model(ir: &Ir, side: Side) -> Option<Advertised> {
    let layout = ir.capability_layout.as_ref()?;
    let member = match side {
        Side::Agent => &layout.agent,
        _ => &layout.client,
    };
    let mut own: Vec<(String, String, Vec<String>)> = Vec::new();
    for method in ir.methods.values() {
        let (Some(gate), Some(request)) = (&method.gate, &method.request) else {
            continue;
        };
        if gate.kind != GateKind::Capability || gate.advertised_by != side || request.side != side {
            continue;
        }
        match own.iter_mut().find(|(pointer, _, _)| *pointer == gate.path) {
            Some((_, _, methods)) => methods.push(method.name.clone()),
            None => own.push((gate.path.clone(), gate.root.clone(), vec![method.name.clone()])),
        }
    }
    own.sort();
    let gates = own
        .iter()
        .filter_map(|(pointer, root, _)| {
            let on = on_value(ir, root, pointer)?;
            let mut methods: Vec<String> = own
                .iter()
                .filter(|(enclosing, _, _)| enclosing == pointer || pointer.starts_with(&format!("{enclosing}/")))
                .flat_map(|(_, _, methods)| methods.iter().cloned())
                .collect();
            methods.sort();
            methods.dedup();
            Some(MethodGate {
                pointer: pointer.clone(),
                on,
                methods,
            })
        })
        .collect();
    Some(Advertised {
        member: member.strip_prefix('/')?.to_owned(),
        gates,
    })
}

/// `true` when the schema's type at `pointer` inside the struct `root` is a
/// boolean, `{}` when it is an object; `None` otherwise.
fn on_value(ir: &Ir, root: &str, pointer: &str) -> Option<Value> {
    let mut ty = TypeExpr::Named { name: root.to_owned() };
    for token in pointer.split('/').skip(1) {
        let TypeKind::Struct(object) = &ir.get(named(ir, &ty)?)?.kind else {
            return None;
        };
        ty = object.fields.iter().find(|field| field.wire_name == token)?.ty.clone();
    }
    if resolved(ir, &ty) == Some(TypeExpr::Boolean) {
        return Some(Value::Bool(true));
    }
    matches!(ir.get(named(ir, &ty)?)?.kind, TypeKind::Struct(_)).then(|| json!({}))
}

/// The named type `ty` is, through aliases.
fn named<'a>(ir: &'a Ir, ty: &'a TypeExpr) -> Option<&'a str> {
    match ty {
        TypeExpr::Named { name } => match &ir.get(name)?.kind {
            TypeKind::Alias { target } => named(ir, target),
            _ => Some(name),
        },
        _ => None,
    }
}

/// `ty` through aliases.
fn resolved(ir: &Ir, ty: &TypeExpr) -> Option<TypeExpr> {
    match ty {
        TypeExpr::Named { name } => match &ir.get(name)?.kind {
            TypeKind::Alias { target } => resolved(ir, target),
            _ => Some(ty.clone()),
        },
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::{lower, Unsupported};

    fn gate(pointer: &str, on: Value, methods: &[&str]) -> MethodGate {
        MethodGate {
            pointer: pointer.to_owned(),
            on,
            methods: methods.iter().map(|method| (*method).to_owned()).collect(),
        }
    }

    fn default_ir() -> Ir {
        lower(
            &acp_schema_source::load(&Default::default()).unwrap(),
            Unsupported::Fail,
        )
        .unwrap()
    }

    /// A v2 layout: `session` gates the baseline session methods together,
    /// `session/delete` one more under it.
    fn v2_ir() -> Ir {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/advertising-v2.json");
        let document = acp_schema_source::read_schema_file(&path).unwrap();
        let schema = acp_schema_source::extend("fixtures/advertising-v2.json".into(), document, &[], false).unwrap();
        lower(&schema, Unsupported::Fail).unwrap()
    }

    #[test]
    fn the_default_schema_derives_the_v1_gates_of_each_side() {
        let ir = default_ir();
        let agent = model(&ir, Side::Agent).unwrap();
        assert_eq!(agent.member, "agentCapabilities");
        let pointers: Vec<&str> = agent.gates.iter().map(|gate| gate.pointer.as_str()).collect();
        assert!(pointers.contains(&"/loadSession"), "{pointers:?}");
        assert!(pointers.windows(2).all(|pair| pair[0] < pair[1]), "in pointer order");
        let load = agent.gates.iter().find(|gate| gate.pointer == "/loadSession").unwrap();
        assert_eq!(*load, gate("/loadSession", json!(true), &["session/load"]));
        // `sessionCapabilities` is no gate: it is created on the way.
        let list = agent
            .gates
            .iter()
            .find(|gate| gate.pointer == "/sessionCapabilities/list")
            .unwrap();
        assert_eq!(*list, gate("/sessionCapabilities/list", json!({}), &["session/list"]));
        // `authMethods` is offered, not advertised; `session/ready` is a
        // notification the end acts on, so its gate needs no handler.
        assert!(!pointers.iter().any(|pointer| pointer.starts_with("/authMethods")));
        assert!(!pointers.contains(&"/sessionCapabilities/ready"));

        let client = model(&ir, Side::Client).unwrap();
        assert_eq!(client.member, "clientCapabilities");
        let read = client
            .gates
            .iter()
            .find(|gate| gate.pointer == "/fs/readTextFile")
            .unwrap();
        assert_eq!(*read, gate("/fs/readTextFile", json!(true), &["fs/read_text_file"]));
        let terminal = client.gates.iter().find(|gate| gate.pointer == "/terminal").unwrap();
        assert_eq!(terminal.on, json!(true));
        assert_eq!(terminal.methods.len(), 5, "{:?}", terminal.methods);
    }

    #[test]
    fn a_v2_child_gate_needs_what_its_parent_needs() {
        let ir = v2_ir();
        let agent = model(&ir, Side::Agent).unwrap();
        let baseline = [
            "session/close",
            "session/list",
            "session/new",
            "session/prompt",
            "session/resume",
        ];
        let mut with_delete = baseline.to_vec();
        with_delete.insert(1, "session/delete");
        assert_eq!(
            agent,
            Advertised {
                member: "capabilities".to_owned(),
                gates: vec![
                    gate("/session", json!({}), &baseline),
                    gate("/session/delete", json!({}), &with_delete),
                ],
            }
        );
        let client = model(&ir, Side::Client).unwrap();
        assert_eq!(
            client.gates,
            vec![gate("/elicitation", json!({}), &["elicitation/create"])]
        );
    }
}
