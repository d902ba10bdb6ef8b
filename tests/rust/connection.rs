//! The generated crate's connection, end to end: an agent (the Rust test
//! agent, `scripted_agent/`) and a client, each written on the `Agent` /
//! `Client` traits, talk through in-memory
//! pipes that cut every line into random pieces and hold them back at
//! random, with handlers that yield at random too, all from one seed.
//!
//! Every byte each end writes and receives is logged in the order it
//! happened, and the log is checked for the rules the connection exists to
//! keep: R1 (no session-scoped notification leaves the agent before it
//! received `session/ready`), R2 and R4 (the generated `TurnTracker` on what
//! the client sent and received), and that a prompt call completes only
//! when every update of its turn has been handled. Thousands of turns with
//! the ordering on find no violation; the same schedules with
//! `ConnectOptions::unordered` on both ends find violations of each rule.

use std::collections::{BTreeMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use acp_bindings::connection::{self, connect_agent, connect_client, AgentEnd, ConnectOptions};
use acp_bindings::helpers::TurnTracker;
use acp_bindings::methods::{Agent, Client, FsReadTextFileHandler};
use acp_bindings::*;
use futures::channel::mpsc;
use futures::io::AsyncWrite;
use futures::{StreamExt, TryStreamExt};
use serde_json::{json, Value};

mod dice;
mod scripted_agent;
use dice::Dice;
use scripted_agent::ScriptedAgent;

/// Where an event happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// The agent wrote a whole line.
    AgentWrote,
    /// The agent's reader was handed the last byte of a line.
    AgentRead,
    ClientWrote,
    ClientRead,
}

/// Every line, where and in which order it happened.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<(Event, Value)>>>);

impl Log {
    fn push(&self, event: Event, line: &[u8]) {
        if let Ok(value) = serde_json::from_slice(line) {
            self.0.lock().unwrap().push((event, value));
        }
    }
}

/// The writing end of a pipe: it cuts what it is given into random pieces
/// and, at random, makes the writer wait.
struct PipeWriter {
    sender: mpsc::UnboundedSender<Vec<u8>>,
    dice: Dice,
    log: Log,
    event: Event,
    line: Vec<u8>,
    /// Pieces written but not yet sent on.
    held: VecDeque<Vec<u8>>,
}

impl AsyncWrite for PipeWriter {
    fn poll_write(mut self: Pin<&mut Self>, context: &mut Context<'_>, buffer: &[u8]) -> Poll<std::io::Result<usize>> {
        if self.dice.below(4) == 0 {
            context.waker().wake_by_ref();
            return Poll::Pending;
        }
        let take = 1 + self.dice.below(buffer.len().min(64));
        let piece = buffer[..take].to_vec();
        for byte in &piece {
            self.line.push(*byte);
            if *byte == b'\n' {
                let line = std::mem::take(&mut self.line);
                let event = self.event;
                self.log.push(event, &line);
            }
        }
        self.held.push_back(piece);
        while self.held.len() > self.dice.below(3) {
            let piece = self.held.pop_front().unwrap();
            let _ = self.sender.unbounded_send(piece);
        }
        Poll::Ready(Ok(take))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some(piece) = self.held.pop_front() {
            let _ = self.sender.unbounded_send(piece);
        }
        Poll::Ready(Ok(()))
    }

    fn poll_close(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let flushed = self.as_mut().poll_flush(context);
        self.sender.close_channel();
        flushed
    }
}

/// A pipe: the writer, and a reader that logs each line as its last byte
/// is handed over.
fn pipe(dice: &Dice, log: &Log, wrote: Event, read: Event) -> (PipeWriter, impl futures::io::AsyncBufRead + Unpin) {
    let (sender, receiver) = mpsc::unbounded::<Vec<u8>>();
    let reading = log.clone();
    let mut line = Vec::new();
    let reader = receiver
        .map(move |piece: Vec<u8>| {
            for byte in &piece {
                line.push(*byte);
                if *byte == b'\n' {
                    reading.push(read, &std::mem::take(&mut line));
                }
            }
            Ok::<_, std::io::Error>(piece)
        })
        .into_async_read();
    (
        PipeWriter {
            sender,
            dice: dice.clone(),
            log: log.clone(),
            event: wrote,
            line: Vec::new(),
            held: VecDeque::new(),
        },
        reader,
    )
}

/// What the agent sent in each turn, by prompt: the number of turn updates.
type Sent = Arc<Mutex<BTreeMap<String, usize>>>;

/// The scripted agent of the race tests: it advertises `session/ready` and
/// `turn_complete`, sends each new session's commands, and plays echo turns
/// of 1 to 5 chunks with random waits, a third of them asking permission,
/// telling `sent` each turn's chunks.
fn agent_options(dice: &Dice, sent: &Sent) -> scripted_agent::Options {
    let capabilities = json!({"sessionCapabilities": {"ready": {}, "turnComplete": {}}});
    let (chunks, ask, pause, sent) = (dice.clone(), dice.clone(), dice.clone(), sent.clone());
    scripted_agent::Options {
        capabilities: Some(serde_json::from_value(capabilities).unwrap()),
        commands: true,
        chunks: Box::new(move || 1 + chunks.below(5)),
        ask: Box::new(move || ask.below(3) == 0),
        pause: Box::new(move |most| {
            let dice = pause.clone();
            Box::pin(async move { dice.pause(most).await })
        }),
        played: Box::new(move |text, chunks| {
            sent.lock().unwrap().insert(text.to_owned(), chunks);
        }),
        ..Default::default()
    }
}

/// What the client handled: per prompt text, the turn updates handled.
type Handled = Arc<Mutex<BTreeMap<String, usize>>>;

struct TestClient {
    dice: Dice,
    handled: Handled,
}

impl Client for TestClient {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        self.dice.pause(2).await;
        Ok(RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
            SelectedPermissionOutcome::new("allow"),
        )))
    }

    async fn session_update(&self, params: SessionNotification) {
        self.dice.pause(4).await;
        if let SessionUpdate::AgentMessageChunk(ContentChunk {
            content: ContentBlock::Text(text),
            ..
        }) = params.update
        {
            let prompt = text
                .text
                .rsplit_once(" part ")
                .map(|(prompt, _)| prompt.to_owned())
                .unwrap_or_default();
            *self.handled.lock().unwrap().entry(prompt).or_default() += 1;
        }
    }
}

/// Violations of each kind found in one run.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Found {
    /// Sessions with a session-scoped notification that left the agent
    /// before `session/ready` reached it.
    r1: usize,
    /// The turn tracker's R2 and R4 violations, and prompts that got no
    /// `turn_complete` at all (R2: exactly one per turn).
    r2: usize,
    r4: usize,
    /// A prompt call completed before every update of its turn was handled.
    undrained: usize,
    turns: usize,
}

impl std::ops::AddAssign for Found {
    fn add_assign(&mut self, other: Found) {
        self.r1 += other.r1;
        self.r2 += other.r2;
        self.r4 += other.r4;
        self.undrained += other.undrained;
        self.turns += other.turns;
    }
}

/// One run: a client opens `sessions` sessions and prompts each `prompts`
/// times, concurrently across sessions.
fn run(seed: u64, ordered: bool, sessions: usize, prompts: usize) -> Found {
    let dice = Dice::new(seed);
    let log = Log::default();
    let (to_agent, agent_reads) = pipe(&dice, &log, Event::ClientWrote, Event::AgentRead);
    let (to_client, client_reads) = pipe(&dice, &log, Event::AgentWrote, Event::ClientRead);
    let options = || ConnectOptions::default().unordered(!ordered);
    let sent = Sent::default();
    let handled = Handled::default();
    let (_, agent_driver) = connect_agent(
        |end| ScriptedAgent::new(end, agent_options(&dice, &sent)),
        agent_reads,
        to_client,
        options(),
    );
    let (client, client_driver) = connect_client(
        |_| TestClient {
            dice: dice.clone(),
            handled: handled.clone(),
        },
        client_reads,
        to_agent,
        options(),
    );
    let undrained = Arc::new(Mutex::new(0));
    let scenario = async {
        client
            .initialize(InitializeRequest::new(PROTOCOL_VERSION))
            .await
            .unwrap();
        let turns = (0..sessions).map(|index| {
            let (client, dice, sent, handled, undrained) = (
                client.clone(),
                dice.clone(),
                sent.clone(),
                handled.clone(),
                undrained.clone(),
            );
            async move {
                let session = client
                    .session_new(NewSessionRequest::new("/tmp", vec![]))
                    .await
                    .unwrap()
                    .session_id;
                for turn in 0..prompts {
                    dice.pause(2).await;
                    let text = format!("s{index} t{turn}");
                    let prompt = PromptRequest::new(
                        session.clone(),
                        vec![ContentBlock::Text(TextContent::new(text.clone()))],
                    );
                    let response = client.session_prompt(prompt).await.unwrap();
                    assert_eq!(response.stop_reason, StopReason::EndTurn);
                    let expected = sent.lock().unwrap().get(&text).copied();
                    if handled.lock().unwrap().get(&text).copied() != expected {
                        *undrained.lock().unwrap() += 1;
                    }
                }
            }
        });
        futures::future::join_all(turns).await;
        client.close();
    };
    let (agent_result, client_result, ()) =
        futures::executor::block_on(async { futures::join!(agent_driver, client_driver, scenario) });
    agent_result.unwrap();
    client_result.unwrap();
    let log = log.0.lock().unwrap().clone();
    let mut found = check(&log);
    found.undrained = *undrained.lock().unwrap();
    found.turns = sessions * prompts;
    found
}

/// R1 on the agent's side of the log; R2 and R4 by the turn tracker on the
/// client's side (prompts as it wrote them, the rest as it read it).
fn check(log: &[(Event, Value)]) -> Found {
    let mut found = Found::default();
    let mut ready = std::collections::BTreeSet::new();
    let mut early = std::collections::BTreeSet::new();
    let mut tracker = TurnTracker::new(true);
    let mut prompts = BTreeMap::new();
    let (mut sent, mut completed) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for (event, message) in log {
        let method = message["method"].as_str();
        let session = message["params"]["sessionId"].as_str().unwrap_or_default().to_owned();
        match (event, method) {
            (Event::AgentRead, Some("session/ready")) => {
                ready.insert(session);
            }
            (Event::AgentWrote, Some("session/update")) if !ready.contains(&session) => {
                early.insert(session);
            }
            (Event::ClientWrote, Some("session/prompt")) => {
                sent.insert(message["id"].to_string());
                let id: RequestId = serde_json::from_value(message["id"].clone()).unwrap();
                prompts.insert(message["id"].to_string(), id.clone());
                tracker.prompt(&session, id);
            }
            (Event::ClientRead, Some("session/update")) => {
                if message["params"]["update"]["sessionUpdate"] == "turn_complete" {
                    completed.insert(message["params"]["update"]["promptRequestId"].to_string());
                }
                let notification: SessionNotification = serde_json::from_value(message["params"].clone()).unwrap();
                count(&mut found, &tracker.update(&notification));
            }
            (Event::ClientRead, None) => {
                if let Some(id) = prompts.remove(&message["id"].to_string()) {
                    let stop_reason = serde_json::from_value(message["result"]["stopReason"].clone()).ok();
                    count(&mut found, &tracker.response(&id, stop_reason));
                }
            }
            _ => {}
        }
    }
    found.r1 = early.len();
    found.r2 += sent.difference(&completed).count();
    found
}

fn count(found: &mut Found, observation: &acp_bindings::helpers::Observation) {
    for violation in &observation.violations {
        match violation.kind.rule() {
            "R2" => found.r2 += 1,
            _ => found.r4 += 1,
        }
    }
}

/// Seeds per mode, sessions per run and prompts per session: 2,400 turns.
const SEEDS: u64 = 40;
const SESSIONS: usize = 3;
const PROMPTS: usize = 20;

#[test]
fn with_the_ordering_no_schedule_breaks_a_rule() {
    let mut total = Found::default();
    for seed in 0..SEEDS {
        let found = run(seed, true, SESSIONS, PROMPTS);
        assert_eq!(
            (found.r1, found.r2, found.r4, found.undrained),
            (0, 0, 0, 0),
            "seed {seed}: {found:?}"
        );
        total += found;
    }
    println!("ordered: {} turns, {total:?}", total.turns);
    assert_eq!(total.turns, SEEDS as usize * SESSIONS * PROMPTS);
}

#[test]
fn without_the_ordering_the_same_schedules_break_every_rule() {
    let mut total = Found::default();
    for seed in 0..SEEDS {
        total += run(seed, false, SESSIONS, PROMPTS);
    }
    println!("unordered: {} turns, {total:?}", total.turns);
    assert!(
        total.r1 > 0 && total.r2 > 0 && total.r4 > 0 && total.undrained > 0,
        "{total:?}"
    );
}

/// An agent whose prompt handler never finishes, and counts how many of
/// its handlers were dropped unfinished.
struct StuckAgent {
    stopped: Arc<Mutex<usize>>,
}

/// Counts one when dropped: a handler that was stopped.
struct Stopped(Arc<Mutex<usize>>);

impl Drop for Stopped {
    fn drop(&mut self) {
        *self.0.lock().unwrap() += 1;
    }
}

impl Agent for StuckAgent {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(InitializeResponse::new(params.protocol_version))
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Err(Error::invalid_params().data(json!({"why": "no sessions here"})))
    }
    async fn session_prompt(&self, _: PromptRequest) -> Result<PromptResponse, Error> {
        let _stopped = Stopped(self.stopped.clone());
        futures::future::pending::<()>().await;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[test]
fn errors_and_cancellation_cross_the_connection() {
    let dice = Dice::new(7);
    let log = Log::default();
    let (to_agent, agent_reads) = pipe(&dice, &log, Event::ClientWrote, Event::AgentRead);
    let (to_client, client_reads) = pipe(&dice, &log, Event::AgentWrote, Event::ClientRead);
    let stopped = Arc::new(Mutex::new(0));
    let (_, agent_driver) = connect_agent(
        |_| StuckAgent {
            stopped: stopped.clone(),
        },
        agent_reads,
        to_client,
        ConnectOptions::default(),
    );
    let dropped = Arc::new(Mutex::new(Vec::new()));
    let reports = dropped.clone();
    let options = ConnectOptions::default().dropped(move |report| reports.lock().unwrap().push(report));
    let (client, client_driver) = connect_client(
        |_| TestClient {
            dice: dice.clone(),
            handled: Handled::default(),
        },
        client_reads,
        to_agent,
        options,
    );
    let scenario = async {
        client
            .initialize(InitializeRequest::new(PROTOCOL_VERSION))
            .await
            .unwrap();
        // The agent's error comes back as it was sent.
        let Err(connection::CallError::Remote(error)) =
            client.session_new(NewSessionRequest::new("/tmp", vec![])).await
        else {
            panic!("an error answer")
        };
        assert_eq!(
            (error.code, error.data),
            (ErrorCode::InvalidParams, Some(json!({"why": "no sessions here"})))
        );
        // A prompt whose caller stops waiting: the agent's handler is stopped
        // and its cancelled answer, to a request nobody waits for, is reported.
        let prompt = client.session_prompt(PromptRequest::new("s", vec![]));
        let waited = futures::future::select(Box::pin(prompt), Box::pin(dice.pause(20))).await;
        let futures::future::Either::Right(((), prompt)) = waited else {
            panic!("the stuck prompt finished")
        };
        drop(prompt);
        // Extension methods the agent does not handle answer method-not-found.
        let Err(connection::CallError::Remote(error)) = client.request("_x/unknown", json!({})).await else {
            panic!("method not found")
        };
        assert_eq!(error.code, ErrorCode::MethodNotFound);
        client.close();
    };
    let (agent_result, client_result, ()) =
        futures::executor::block_on(async { futures::join!(agent_driver, client_driver, scenario) });
    agent_result.unwrap();
    client_result.unwrap();
    assert_eq!(*stopped.lock().unwrap(), 1, "the cancelled handler was stopped");
    let log = log.0.lock().unwrap().clone();
    let cancel = log
        .iter()
        .find(|(event, message)| *event == Event::AgentRead && message["method"] == "$/cancel_request")
        .expect("the agent read $/cancel_request");
    let answer = log
        .iter()
        .find(|(event, message)| *event == Event::ClientRead && message["error"]["code"] == -32800)
        .expect("a cancelled answer");
    assert_eq!(cancel.1["params"]["requestId"], answer.1["id"]);
    let reports = dropped.lock().unwrap().clone();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].method, None);
    assert_eq!(reports[0].error.data, Some(json!({ "id": answer.1["id"] })));
}

#[test]
fn unreadable_input_is_answered_a_stray_response_reported_and_a_closed_peer_fails_calls() {
    let (to_client, client_reads) = mpsc::unbounded::<Vec<u8>>();
    let (to_agent, mut agent_reads) = mpsc::unbounded::<Vec<u8>>();
    let writer = futures::io::AllowStdIo::new(Sink(to_agent));
    let dropped = Arc::new(Mutex::new(Vec::new()));
    let reports = dropped.clone();
    let options = ConnectOptions::default().dropped(move |report| reports.lock().unwrap().push(report));
    let reader = client_reads.map(Ok::<_, std::io::Error>).into_async_read();
    let dice = Dice::new(1);
    let (client, driver) = connect_client(
        |_| TestClient {
            dice,
            handled: Handled::default(),
        },
        reader,
        writer,
        options,
    );
    to_client.unbounded_send(b"{not json\n".to_vec()).unwrap();
    to_client
        .unbounded_send(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#.to_vec())
        .unwrap();
    to_client.unbounded_send(b"\n".to_vec()).unwrap();
    let scenario = async {
        let call = client.initialize(InitializeRequest::new(PROTOCOL_VERSION));
        let peer = async {
            // The peer reads the request and leaves without answering.
            let mut seen = Vec::new();
            while !seen.contains(&b'\n') {
                seen.extend(agent_reads.next().await.unwrap());
            }
            to_client.close_channel();
        };
        let (result, ()) = futures::join!(call, peer);
        assert!(matches!(result, Err(connection::CallError::Closed)), "{result:?}");
    };
    let (result, ()) = futures::executor::block_on(async { futures::join!(driver, scenario) });
    result.unwrap();
    // The text that is not JSON was answered, not reported; the response to
    // nothing, the second message read, was reported.
    let reports = dropped.lock().unwrap().clone();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!((reports[0].method.as_deref(), reports[0].line), (None, 2));
    assert_eq!(
        (reports[0].error.message.as_str(), &reports[0].error.data),
        ("a response to no request in flight", &Some(json!({ "id": 99 })))
    );
}

/// A `std::io::Write` that sends what it is given on a channel.
struct Sink(mpsc::UnboundedSender<Vec<u8>>);

impl std::io::Write for Sink {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.unbounded_send(buffer.to_vec());
        Ok(buffer.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An agent whose prompt handler sends an update, then waits on two calls
/// to the client that the client holds, and fails with what they fail with.
/// It has no `session/cancel` handler: its end acts on the notification
/// itself.
struct CancelledAgent {
    end: AgentEnd,
    /// What the handler saw: its calls' errors, and whether its turn's
    /// cancellation had fired.
    saw: Arc<Mutex<Vec<String>>>,
}

impl Agent for CancelledAgent {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(InitializeResponse::new(params.protocol_version))
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Ok(NewSessionResponse::new("s"))
    }
    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let session = params.session_id;
        let chunk = SessionUpdate::AgentMessageChunk(ContentChunk::new(TextContent::new("reading")));
        self.end
            .session_update(SessionNotification::new(session.clone(), chunk))
            .unwrap();
        let options = vec![PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce)];
        let permission = RequestPermissionRequest::new(session.clone(), ToolCallUpdate::new("call-1"), options);
        let (read, allowed) = futures::join!(
            self.end
                .fs_read_text_file(ReadTextFileRequest::new(session.clone(), "/etc/hosts")),
            self.end.session_request_permission(permission),
        );
        let cancellation = self.end.cancellation(session.as_ref());
        cancellation.cancelled().await;
        let mut saw = self.saw.lock().unwrap();
        saw.push(format!("{:?}", read.err()));
        saw.push(format!("{:?}", allowed.err()));
        saw.push(format!("cancelled: {}", cancellation.is_cancelled()));
        Err(Error::internal_error())
    }
}

/// A client that holds every file read and permission request, telling
/// `arrived` of each.
struct HoldingClient {
    arrived: mpsc::UnboundedSender<()>,
}

impl Client for HoldingClient {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        let _ = self.arrived.unbounded_send(());
        futures::future::pending().await
    }
    async fn session_update(&self, _: SessionNotification) {}

    fn fs_read_text_file_handler(&self) -> Option<&impl FsReadTextFileHandler> {
        Some(self)
    }
}

impl FsReadTextFileHandler for HoldingClient {
    async fn fs_read_text_file(&self, _: ReadTextFileRequest) -> Result<ReadTextFileResponse, Error> {
        let _ = self.arrived.unbounded_send(());
        futures::future::pending().await
    }
}

#[test]
fn a_cancelled_turn_is_answered_cancelled_after_its_updates_and_nothing_is_dropped() {
    let dice = Dice::new(11);
    let log = Log::default();
    let (to_agent, agent_reads) = pipe(&dice, &log, Event::ClientWrote, Event::AgentRead);
    let (to_client, client_reads) = pipe(&dice, &log, Event::AgentWrote, Event::ClientRead);
    let saw = Arc::new(Mutex::new(Vec::new()));
    let dropped = Arc::new(Mutex::new(Vec::new()));
    let reporting = |end: &'static str| {
        let reports = dropped.clone();
        ConnectOptions::default()
            .dropped(move |report: connection::Dropped| reports.lock().unwrap().push((end, report.method)))
    };
    let (_, agent_driver) = connect_agent(
        |end| CancelledAgent { end, saw: saw.clone() },
        agent_reads,
        to_client,
        reporting("agent"),
    );
    let (arrived, mut arrivals) = mpsc::unbounded();
    let (client, client_driver) = connect_client(
        |_| HoldingClient { arrived },
        client_reads,
        to_agent,
        reporting("client"),
    );
    let scenario = async {
        // The Rust end advertises what its handler writes: the agent's end
        // reads files only once `fs.readTextFile` is advertised.
        let initialize =
            json!({"protocolVersion": PROTOCOL_VERSION, "clientCapabilities": {"fs": {"readTextFile": true}}});
        client
            .initialize(serde_json::from_value(initialize).unwrap())
            .await
            .unwrap();
        let prompt = client.session_prompt(PromptRequest::new("s", vec![]));
        let cancel = async {
            // Once the client holds both calls of the turn.
            arrivals.next().await;
            arrivals.next().await;
            client.session_cancel(CancelNotification::new("s")).unwrap();
        };
        let (response, ()) = futures::join!(prompt, cancel);
        assert_eq!(response.unwrap().stop_reason, StopReason::Cancelled);
        client.close();
    };
    let (agent_result, client_result, ()) =
        futures::executor::block_on(async { futures::join!(agent_driver, client_driver, scenario) });
    agent_result.unwrap();
    client_result.unwrap();
    assert_eq!(
        *saw.lock().unwrap(),
        ["Some(Cancelled)", "Some(Cancelled)", "cancelled: true"]
    );
    let log = log.0.lock().unwrap().clone();
    let read: Vec<&Value> = log
        .iter()
        .filter(|(event, _)| *event == Event::ClientRead)
        .map(|(_, message)| message)
        .collect();
    let update = read.iter().position(|message| message["method"] == "session/update");
    let answer = read
        .iter()
        .position(|message| message["result"]["stopReason"] == "cancelled");
    assert!(update.is_some() && update < answer, "{read:?}");
    // The client answered its pending permission request `cancelled`, after
    // `session/cancel`; the agent, no longer waiting, took the answer silently.
    let wrote: Vec<&Value> = log
        .iter()
        .filter(|(event, _)| *event == Event::ClientWrote)
        .map(|(_, message)| message)
        .collect();
    let cancel = wrote.iter().position(|message| message["method"] == "session/cancel");
    let withdrawn = wrote
        .iter()
        .position(|message| message["result"] == json!({"outcome": {"outcome": "cancelled"}}));
    assert!(cancel.is_some() && cancel < withdrawn, "{wrote:?}");
    assert_eq!(*dropped.lock().unwrap(), []);
}
