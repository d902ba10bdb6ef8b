//! Running jobs a few at a time and keeping their order: the interop
//! matrix's cells and the conformance kit's runs mostly wait on the
//! processes they start, so several at once finish sooner, even on two
//! cores. Jobs that name the same group (the cells of one real agent, whose
//! first run installs it) run one after another, in their given order.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

/// One job of [`run`]: its group, if it shares one, and the work.
pub struct Job<'a, T> {
    pub group: Option<String>,
    pub work: Box<dyn FnOnce() -> T + Send + 'a>,
}

impl<'a, T> Job<'a, T> {
    /// A job that may run beside any other.
    pub fn alone(work: impl FnOnce() -> T + Send + 'a) -> Job<'a, T> {
        Job {
            group: None,
            work: Box::new(work),
        }
    }

    /// A job that runs after the earlier jobs of `group`, never beside them.
    pub fn in_group(group: &str, work: impl FnOnce() -> T + Send + 'a) -> Job<'a, T> {
        Job {
            group: Some(group.to_owned()),
            work: Box::new(work),
        }
    }
}

type Work<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Runs `jobs`, `workers` at once (at least one); returns their results in
/// the jobs' order. A group's jobs form one task, queued where its first
/// job stands.
pub fn run<'a, T: Send>(jobs: Vec<Job<'a, T>>, workers: usize) -> Vec<T> {
    let count = jobs.len();
    let mut tasks: Vec<Vec<(usize, Work<'a, T>)>> = Vec::new();
    let mut task_of_group: BTreeMap<String, usize> = BTreeMap::new();
    for (index, job) in jobs.into_iter().enumerate() {
        match job.group {
            Some(group) => match task_of_group.get(&group) {
                Some(&task) => tasks[task].push((index, job.work)),
                None => {
                    task_of_group.insert(group, tasks.len());
                    tasks.push(vec![(index, job.work)]);
                }
            },
            None => tasks.push(vec![(index, job.work)]),
        }
    }
    let queue = Mutex::new(tasks.into_iter());
    let done = Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| loop {
                let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                let Some(task) = next else { break };
                for (index, work) in task {
                    let result = work();
                    done.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push((index, result));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn results_keep_the_jobs_order_whatever_finishes_first() {
        let jobs = (0..8u64)
            .map(|number| {
                Job::alone(move || {
                    std::thread::sleep(Duration::from_millis(40 - number * 5));
                    number
                })
            })
            .collect();
        assert_eq!(run(jobs, 4), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn a_groups_jobs_never_run_at_once_and_keep_their_order() {
        let running = AtomicUsize::new(0);
        let order = Mutex::new(Vec::new());
        let jobs = (0..6usize)
            .map(|number| {
                let (running, order) = (&running, &order);
                Job::in_group("one", move || {
                    assert_eq!(running.fetch_add(1, Ordering::SeqCst), 0, "two jobs of a group at once");
                    std::thread::sleep(Duration::from_millis(10));
                    order.lock().unwrap().push(number);
                    running.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        run(jobs, 4);
        assert_eq!(order.into_inner().unwrap(), (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn jobs_outside_groups_run_side_by_side() {
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let jobs = (0..4)
            .map(|_| {
                let (running, most) = (&running, &most);
                Job::alone(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(100));
                    running.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        run(jobs, 4);
        assert!(most.into_inner() > 1, "the jobs ran one at a time");
    }
}
