//! The check of the connection's receive path that the fuzz target
//! (`tests/rust/fuzz_connection.rs`, `cargo xtask fuzz`, docs/fuzzing.md)
//! runs on each input and the seeds' replay (`tests/rust/fuzz_seeds.rs`,
//! `cargo xtask test`) on each seed: [`run`]. The
//! fuzzer's bytes are the peer's side of a connection, one message a line:
//! they go to an agent's end (`connect_agent`) and to a client's end
//! (`connect_client`), each over an in-memory pipe, with a small handler
//! (the agent's: the Rust test agent, `tests/rust/scripted_agent/`, which
//! the fuzz project and the usage harness copy beside this module),
//! driven by one single-threaded executor, so that a run is the same every
//! time. The client's end has called `initialize`, `session/new` and
//! `session/prompt` first (ids 0 to 2), so that responses have calls to
//! settle. The input is written once the end has nothing left to do, and
//! closed once it has again; an input fails (a panic, which libFuzzer
//! keeps) when an end panics, has not finished once nothing is left to do
//! after its input's end (a hang: no timer can wake it), writes what is not
//! a JSON-RPC message, writes more than `output_bound` allows (unbounded
//! growth), or loses a line: every non-blank line (blank: JSON whitespace
//! only) must be answered, reported to `dropped`, handed to a notification
//! handler, or settle a call. Only the prompt call may end closed with its
//! response taken (its turn was still being drained), so one line fewer
//! may be accounted for then.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Write;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use acp_bindings::connection::{connect_agent, connect_client, AgentEnd, CallError, ConnectOptions};
use acp_bindings::methods::Client;
use acp_bindings::types::*;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::Value;

#[path = "../scripted_agent/mod.rs"]
mod scripted_agent;
use scripted_agent::ScriptedAgent;

/// Runs both ends on `input`; panics when either fails the check.
pub fn run(input: &[u8]) {
    agent_end(input);
    client_end(input);
}

/// The most an end may write for `lines` messages read from `size` bytes:
/// a bounded answer per message, each at most a constant plus a multiple of
/// what it answers (messages, bytes).
fn output_bound(lines: usize, size: usize) -> (usize, usize) {
    (3 * lines + 8, 8 * size + 2048 * (lines + 3))
}

/// What became of the messages an end read.
#[derive(Clone, Default)]
struct Tally {
    handled: Arc<AtomicUsize>,
    dropped: Arc<AtomicUsize>,
    settled: Arc<AtomicUsize>,
}

impl Tally {
    fn handle(&self) {
        self.handled.fetch_add(1, Ordering::SeqCst);
    }

    fn options(&self) -> ConnectOptions {
        let dropped = self.dropped.clone();
        ConnectOptions::default().dropped(move |_| {
            dropped.fetch_add(1, Ordering::SeqCst);
        })
    }
}

fn decode<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("{text}: {error}"))
}

/// The test agent as the fuzz target's: it advertises `session/ready` and
/// `turn_complete`, plays a one-chunk echo turn on any session, and counts
/// every notification it is handed.
fn agent(end: AgentEnd, tally: Tally) -> ScriptedAgent {
    let capabilities = r#"{"sessionCapabilities":{"ready":{},"turnComplete":{}}}"#;
    let options = scripted_agent::Options {
        capabilities: Some(decode(capabilities)),
        any_session: true,
        notified: Some(Box::new(move |_| tally.handle())),
        ..Default::default()
    };
    ScriptedAgent::new(end, options)
}

/// Refuses permission requests (the `cancelled` outcome) and counts every
/// notification it is handed.
struct FuzzClient {
    tally: Tally,
}

impl Client for FuzzClient {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        Ok(decode(r#"{"outcome":{"outcome":"cancelled"}}"#))
    }
    async fn session_update(&self, _: SessionNotification) {
        self.tally.handle();
    }
    async fn cancel_request(&self, _: CancelRequestNotification) {
        self.tally.handle();
    }
    async fn elicitation_complete(&self, _: CompleteElicitationNotification) {
        self.tally.handle();
    }
    async fn extension_request(&self, _: &str, _: Value) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    async fn extension_notification(&self, _: &str, _: Value) {
        self.tally.handle();
    }
}

/// An in-memory pipe: what was written and not read yet, whether its
/// writing side closed, and the reader waiting for more.
#[derive(Default)]
struct PipeState {
    bytes: VecDeque<u8>,
    closed: bool,
    waiting: Option<Waker>,
}

#[derive(Clone, Default)]
struct Pipe(Rc<RefCell<PipeState>>);

impl Pipe {
    fn write(&self, bytes: &[u8]) {
        let mut state = self.0.borrow_mut();
        state.bytes.extend(bytes);
        if let Some(waker) = state.waiting.take() {
            waker.wake();
        }
    }

    fn close(&self) {
        let mut state = self.0.borrow_mut();
        state.closed = true;
        if let Some(waker) = state.waiting.take() {
            waker.wake();
        }
    }
}

/// The pipe's reading side, with a buffer of its own.
struct PipeReader {
    pipe: Pipe,
    buffer: Vec<u8>,
    at: usize,
}

impl futures::io::AsyncRead for PipeReader {
    fn poll_read(self: Pin<&mut Self>, context: &mut Context<'_>, out: &mut [u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let available = futures::ready!(futures::io::AsyncBufRead::poll_fill_buf(Pin::new(&mut *this), context))?;
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        futures::io::AsyncBufRead::consume(Pin::new(this), count);
        Poll::Ready(Ok(count))
    }
}

impl futures::io::AsyncBufRead for PipeReader {
    fn poll_fill_buf(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        let this = self.get_mut();
        if this.at == this.buffer.len() {
            let mut state = this.pipe.0.borrow_mut();
            if state.bytes.is_empty() {
                if state.closed {
                    return Poll::Ready(Ok(&[]));
                }
                state.waiting = Some(context.waker().clone());
                return Poll::Pending;
            }
            this.buffer = state.bytes.drain(..).collect();
            this.at = 0;
        }
        Poll::Ready(Ok(&this.buffer[this.at..]))
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        let this = self.get_mut();
        this.at = (this.at + amount).min(this.buffer.len());
    }
}

/// A writer into a shared buffer.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl Write for Written {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("the buffer").extend_from_slice(buffer);
        Ok(buffer.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How many lines of `input` hold more than JSON whitespace.
fn lines(input: &[u8]) -> usize {
    input
        .split(|byte| *byte == b'\n')
        .filter(|line| line.iter().any(|byte| !matches!(byte, b' ' | b'\t' | b'\r')))
        .count()
}

/// Drives an end's `driver` in `pool`: until it has nothing to do, then
/// with the input written, then with the input closed, when it must have
/// finished.
fn drive(
    side: &str,
    pool: &mut LocalPool,
    pipe: &Pipe,
    input: &[u8],
    driver: impl std::future::Future<Output = std::io::Result<()>> + 'static,
) {
    let finished = Rc::new(RefCell::new(None));
    let outcome = finished.clone();
    pool.spawner()
        .spawn_local(async move {
            *outcome.borrow_mut() = Some(driver.await);
        })
        .expect("the pool spawns");
    pool.run_until_stalled();
    pipe.write(input);
    pool.run_until_stalled();
    pipe.close();
    pool.run_until_stalled();
    let outcome = finished.borrow_mut().take();
    match outcome {
        Some(Ok(())) => {}
        Some(Err(error)) => panic!("the {side}'s end failed: {error}"),
        None => panic!("hang: the {side}'s end has nothing left to do and has not finished after its input's end"),
    }
}

/// Checks what the end of `side` wrote and accounted for.
fn check(side: &str, input: &[u8], written: &[u8], tally: &Tally, allowance: usize) {
    let read = lines(input);
    let (most_messages, most_bytes) = output_bound(read, input.len());
    assert!(
        written.len() <= most_bytes,
        "growth: the {side}'s end wrote {} bytes for {read} lines of {} bytes (at most {most_bytes})",
        written.len(),
        input.len()
    );
    let mut answered = 0;
    let mut count = 0;
    for line in written.split(|byte| *byte == b'\n').filter(|line| !line.is_empty()) {
        count += 1;
        let message: Value = serde_json::from_slice(line)
            .unwrap_or_else(|error| panic!("the {side}'s end wrote what is not JSON: {error}"));
        assert!(
            message["jsonrpc"] == "2.0",
            "the {side}'s end wrote what is not a JSON-RPC 2.0 message: {message}"
        );
        if message.get("method").is_none() {
            answered += 1;
        }
    }
    assert!(
        count <= most_messages,
        "growth: the {side}'s end wrote {count} messages for {read} lines (at most {most_messages})"
    );
    let (dropped, handled, settled) = (
        tally.dropped.load(Ordering::SeqCst),
        tally.handled.load(Ordering::SeqCst),
        tally.settled.load(Ordering::SeqCst),
    );
    let accounted = answered + dropped + handled + settled;
    assert!(
        accounted <= read && accounted + allowance >= read,
        "the {side}'s end read {read} messages and accounted for {accounted}: {answered} answered, {dropped} reported, \
         {handled} handled, {settled} settled a call"
    );
}

fn agent_end(input: &[u8]) {
    let tally = Tally::default();
    let pipe = Pipe::default();
    let written = Written::default();
    let handler_tally = tally.clone();
    let reader = PipeReader {
        pipe: pipe.clone(),
        buffer: Vec::new(),
        at: 0,
    };
    let (_, driver) = connect_agent(
        |end| agent(end, handler_tally),
        reader,
        futures::io::AllowStdIo::new(written.clone()),
        tally.options(),
    );
    let mut pool = LocalPool::new();
    drive("agent", &mut pool, &pipe, input, driver);
    let written = written.0.lock().expect("the buffer").clone();
    check("agent", input, &written, &tally, 0);
}

fn client_end(input: &[u8]) {
    let tally = Tally::default();
    let pipe = Pipe::default();
    let written = Written::default();
    let handler_tally = tally.clone();
    let reader = PipeReader {
        pipe: pipe.clone(),
        buffer: Vec::new(),
        at: 0,
    };
    let (end, driver) = connect_client(
        |_| FuzzClient { tally: handler_tally },
        reader,
        futures::io::AllowStdIo::new(written.clone()),
        tally.options(),
    );
    let mut pool = LocalPool::new();
    let prompt_closed = Rc::new(RefCell::new(false));
    // Each call counts once it returns other than closed.
    let counted = |tally: &Tally, outcome: Result<(), CallError>| -> bool {
        match outcome {
            Err(CallError::Closed) => true,
            _ => {
                tally.settled.fetch_add(1, Ordering::SeqCst);
                false
            }
        }
    };
    let (caller, calls) = (end.clone(), tally.clone());
    pool.spawner()
        .spawn_local(async move {
            let outcome = caller.initialize(decode(r#"{"protocolVersion":1}"#)).await.map(drop);
            counted(&calls, outcome);
        })
        .expect("the pool spawns");
    let (caller, calls) = (end.clone(), tally.clone());
    pool.spawner()
        .spawn_local(async move {
            let outcome = caller
                .session_new(decode(r#"{"cwd":"/","mcpServers":[]}"#))
                .await
                .map(drop);
            counted(&calls, outcome);
        })
        .expect("the pool spawns");
    let (caller, calls, closed) = (end.clone(), tally.clone(), prompt_closed.clone());
    pool.spawner()
        .spawn_local(async move {
            let outcome = caller
                .session_prompt(decode(r#"{"sessionId":"s","prompt":[]}"#))
                .await
                .map(drop);
            *closed.borrow_mut() = counted(&calls, outcome);
        })
        .expect("the pool spawns");
    drive("client", &mut pool, &pipe, input, driver);
    assert!(
        Rc::strong_count(&prompt_closed) == 1,
        "hang: a call of the client's end has not returned after its end finished"
    );
    let written = written.0.lock().expect("the buffer").clone();
    check("client", input, &written, &tally, usize::from(*prompt_closed.borrow()));
}
