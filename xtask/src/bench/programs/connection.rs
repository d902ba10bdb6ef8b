//! One end of a Rust connection, measured: `connection <ours|official|floor>
//! <receive|round-trip> <corpus.tsv> <runs>`.
//!
//! - `receive`: every `SessionNotification` of the corpus, as the text of a
//!   `session/update` notification, is read from memory by a client's end
//!   whose handler counts it; a run ends when every one was handled. Ours is
//!   the generated crate's `ClientEnd`; the official one the official SDK's
//!   client over its `ByteStreams`; the floor parses each line as a
//!   `serde_json::Value`.
//! - `round-trip`: a client initializes, then calls `session/new` on an
//!   agent in the same process, one call after the other, as many times as the corpus has
//!   `SessionNotification`s; each call is encoded, read, dispatched,
//!   answered and decoded. Ours: `ClientEnd` and the Rust test agent
//!   (`tests/rust/scripted_agent/`, written next to this program as its
//!   module `scripted_agent`) over in-memory pipes, on `futures`' executor;
//!   the official one: its `Client` connected to its `Agent`, on tokio's
//!   current-thread runtime (both agents open and keep a session per call,
//!   `session-1`, `session-2`, ...); the floor: the request and the response each
//!   printed and parsed as `Value`.
//!
//! A first pass warms up and counts; then each run is timed. Prints one JSON
//! object: messages, bytes, seconds per run, messages not handled, and the
//! peak resident memory (VmHWM, KiB).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

mod scripted_agent;

fn fail(message: String) -> ! {
    eprintln!("connection: {message}");
    std::process::exit(2);
}

fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

mod ours {
    use super::*;
    use acp_bindings::connection::{connect_agent, connect_client, ConnectOptions};
    use crate::scripted_agent::{self, ScriptedAgent};
    use acp_bindings::methods::Client;
    use acp_bindings::*;
    use futures::{StreamExt, TryStreamExt};

    struct Counter(Arc<AtomicUsize>);

    impl Client for Counter {
        async fn session_request_permission(
            &self,
            _: RequestPermissionRequest,
        ) -> Result<RequestPermissionResponse, Error> {
            Err(Error::method_not_found())
        }
        async fn session_update(&self, _: SessionNotification) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn receive(input: &[u8]) -> usize {
        let count = Arc::new(AtomicUsize::new(0));
        let (_, driver) = connect_client(
            |_| Counter(count.clone()),
            futures::io::Cursor::new(input),
            futures::io::sink(),
            ConnectOptions::default(),
        );
        futures::executor::block_on(driver).unwrap_or_else(|error| fail(error.to_string()));
        count.load(Ordering::Relaxed)
    }

    /// A writer into a channel, and a reader of it.
    fn pipe() -> (futures::io::AllowStdIo<Channel>, impl futures::io::AsyncBufRead + Unpin) {
        let (sender, receiver) = futures::channel::mpsc::unbounded::<Vec<u8>>();
        (
            futures::io::AllowStdIo::new(Channel(sender)),
            receiver.map(Ok::<_, std::io::Error>).into_async_read(),
        )
    }

    struct Channel(futures::channel::mpsc::UnboundedSender<Vec<u8>>);

    impl std::io::Write for Channel {
        fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.unbounded_send(buffer.to_vec());
            Ok(buffer.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Drop for Channel {
        fn drop(&mut self) {
            self.0.close_channel();
        }
    }

    pub fn round_trips(calls: usize) -> usize {
        let (to_agent, agent_reads) = pipe();
        let (to_client, client_reads) = pipe();
        let (_, agent) = connect_agent(
            |end| ScriptedAgent::new(end, scripted_agent::Options::default()),
            agent_reads,
            to_client,
            ConnectOptions::default(),
        );
        let (client, driver) = connect_client(
            |_| Counter(Arc::default()),
            client_reads,
            to_agent,
            ConnectOptions::default(),
        );
        let calls = async {
            let mut answered = 0;
            if client
                .initialize(InitializeRequest::new(PROTOCOL_VERSION))
                .await
                .is_err()
            {
                return 0;
            }
            for call in 0..calls {
                // The test agent opens `session-1`, `session-2`, ...
                if client
                    .session_new(NewSessionRequest::new("/tmp", vec![]))
                    .await
                    .is_ok_and(|response| response.session_id.0 == format!("session-{}", call + 1))
                {
                    answered += 1;
                }
            }
            client.close();
            answered
        };
        let (agent, driver, answered) = futures::executor::block_on(async { futures::join!(agent, driver, calls) });
        agent.and(driver).unwrap_or_else(|error| fail(error.to_string()));
        answered
    }
}

mod official {
    use super::*;
    use agent_client_protocol::v1::schema::{
        InitializeRequest, NewSessionRequest, NewSessionResponse, SessionNotification,
    };
    use agent_client_protocol::v1::ConnectionTo;
    use agent_client_protocol::{Agent, ByteStreams, Client, Responder, V1};

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|error| fail(error.to_string()))
    }

    pub fn receive(input: Vec<u8>, expected: usize) -> usize {
        let count = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(tokio::sync::Notify::new());
        let (counted, finished) = (count.clone(), done.clone());
        let transport = ByteStreams::new(futures::io::sink(), futures::io::Cursor::new(input));
        let session = Client
            .v1()
            .on_receive_notification(
                async move |_: SessionNotification, _: ConnectionTo<Agent>| {
                    if counted.fetch_add(1, Ordering::Relaxed) + 1 == expected {
                        finished.notify_one();
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .connect_with(transport, async move |_: ConnectionTo<Agent>| {
                let _ = tokio::time::timeout(std::time::Duration::from_secs(120), done.notified()).await;
                Ok(())
            });
        runtime()
            .block_on(session)
            .unwrap_or_else(|error| fail(format!("{error:?}")));
        count.load(Ordering::Relaxed)
    }

    pub fn round_trips(calls: usize) -> usize {
        // Opens and keeps its sessions as the test agent does (`session-1`,
        // `session-2`, ...), so that both agents do the same work per call.
        let sessions = Arc::new(std::sync::Mutex::new(Vec::<(String, std::path::PathBuf)>::new()));
        let agent = Agent
            .v1()
            .on_receive_request(
                async move |request: NewSessionRequest,
                            responder: Responder<NewSessionResponse, V1>,
                            _: ConnectionTo<Client>| {
                    let session = {
                        let mut sessions = sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                        let session = format!("session-{}", sessions.len() + 1);
                        sessions.push((session.clone(), request.cwd.clone()));
                        session
                    };
                    responder.respond(NewSessionResponse::new(session))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: InitializeRequest, responder: Responder<_, V1>, _: ConnectionTo<Client>| {
                    responder.respond(agent_client_protocol::v1::schema::InitializeResponse::new(
                        request.protocol_version,
                    ))
                },
                agent_client_protocol::on_receive_request!(),
            );
        let answered = Arc::new(AtomicUsize::new(0));
        let counted = answered.clone();
        let session = Client
            .v1()
            .connect_with(agent, async move |connection: ConnectionTo<Agent>| {
                connection
                    .send_request(InitializeRequest::new(
                        agent_client_protocol::schema::ProtocolVersion::V1,
                    ))
                    .block_task()
                    .await?;
                for call in 0..calls {
                    if connection
                        .send_request(NewSessionRequest::new("/tmp"))
                        .block_task()
                        .await
                        .is_ok_and(|response| response.session_id.to_string() == format!("session-{}", call + 1))
                    {
                        counted.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Ok(())
            });
        runtime()
            .block_on(session)
            .unwrap_or_else(|error| fail(format!("{error:?}")));
        answered.load(Ordering::Relaxed)
    }
}

mod floor {
    use super::*;

    pub fn receive(input: &[u8]) -> usize {
        input
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .filter(|line| serde_json::from_slice::<Value>(line).is_ok())
            .count()
    }

    pub fn round_trips(calls: usize) -> usize {
        let mut answered = 0;
        for id in 0..calls {
            let request = json!({"jsonrpc": "2.0", "id": id, "method": "session/new", "params": {"cwd": "/tmp", "mcpServers": []}}).to_string();
            let read: Value = serde_json::from_str(&request).unwrap_or_default();
            let response =
                json!({"jsonrpc": "2.0", "id": read["id"], "result": {"sessionId": "session-1"}}).to_string();
            if serde_json::from_str::<Value>(&response)
                .is_ok_and(|response| response["result"]["sessionId"] == "session-1")
            {
                answered += 1;
            }
        }
        answered
    }
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [implementation, mode, corpus, runs] = arguments.as_slice() else {
        fail("usage: connection <ours|official|floor> <receive|round-trip> <corpus.tsv> <runs>".to_owned());
    };
    let runs: usize = runs
        .parse()
        .unwrap_or_else(|_| fail(format!("runs: {runs:?} is not a count")));
    let text = std::fs::read_to_string(corpus).unwrap_or_else(|error| fail(format!("{corpus}: {error}")));
    let mut input = Vec::new();
    for line in text.lines() {
        if let Some(("SessionNotification", params)) = line.split_once('\t') {
            input.extend_from_slice(
                format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{params}}}"#).as_bytes(),
            );
            input.push(b'\n');
        }
    }
    let messages = input.iter().filter(|byte| **byte == b'\n').count();
    let run: Box<dyn Fn() -> usize> = match (implementation.as_str(), mode.as_str()) {
        ("ours", "receive") => Box::new(|| ours::receive(&input)),
        ("official", "receive") => Box::new(|| official::receive(input.clone(), messages)),
        ("floor", "receive") => Box::new(|| floor::receive(&input)),
        ("ours", "round-trip") => Box::new(move || ours::round_trips(messages)),
        ("official", "round-trip") => Box::new(move || official::round_trips(messages)),
        ("floor", "round-trip") => Box::new(move || floor::round_trips(messages)),
        other => fail(format!("unknown implementation and mode {other:?}")),
    };
    let handled = run();
    let mut seconds = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        std::hint::black_box(run());
        seconds.push(start.elapsed().as_secs_f64());
    }
    // A round trip counts the bytes of a request and its response as the floor prints them.
    let exchange =
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/tmp", "mcpServers": []}})
            .to_string()
            .len()
            + json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "session-1"}})
                .to_string()
                .len();
    let bytes = if mode == "receive" {
        input.len()
    } else {
        messages * exchange
    };
    let report = json!({
        "messages": messages,
        "bytes": bytes,
        "seconds": seconds,
        "failures": messages - handled.min(messages),
        "differ": 0,
        "first_difference": null,
        "outcome": if mode == "receive" { "handled" } else { "answered" },
        "peak_kib": peak_kib(),
    });
    println!("{report}");
}
