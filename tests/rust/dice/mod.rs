//! The seeded randomness of the connection's race tests (`connection.rs`,
//! `connection_v2.rs`): every part of one run draws from one seed, and a
//! pause yields to the executor a random number of times.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The seeded randomness every part of one run draws from.
#[derive(Clone)]
pub struct Dice(Arc<Mutex<StdRng>>);

impl Dice {
    pub fn new(seed: u64) -> Self {
        Dice(Arc::new(Mutex::new(StdRng::seed_from_u64(seed))))
    }

    pub fn below(&self, bound: usize) -> usize {
        self.0.lock().unwrap().random_range(0..bound)
    }

    /// Yields to the executor a random number of times (up to `most`).
    pub async fn pause(&self, most: usize) {
        for _ in 0..self.below(most + 1) {
            Yield(false).await;
        }
    }
}

/// Gives the executor one turn.
struct Yield(bool);

impl std::future::Future for Yield {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        context.waker().wake_by_ref();
        Poll::Pending
    }
}
