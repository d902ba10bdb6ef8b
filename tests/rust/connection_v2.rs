//! The connection on protocol v2, where a prompt's response only
//! acknowledges it and the turn goes on: the agent reports `running`, its
//! chunks, then `idle` with the stop reason, after the response. The v2
//! test agent (`scripted_agent_v2/`) acknowledges each prompt and hands the
//! turn to its worker; a client prompts several sessions at once through pipes
//! that cut lines and hold them back at random, all from one seed.
//!
//! With the ordering, every prompt call completes only once every chunk of
//! its turn and its `idle` were handled; without it
//! (`ConnectOptions::unordered`), the same schedules complete calls on the
//! acknowledgement, before their turn was handled.
//!
//! `session/cancel` ends the session's foreground work as cancelled: the
//! agent's `idle` says `cancelled` whatever the agent wrote, the work's
//! pending calls to the client fail, and the client answers its pending
//! permission request `cancelled`. While a permission request waits, the
//! agent's end reports `requires_action`, and `running` once it is answered.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use acp_bindings::connection::{self, connect_agent, connect_client, AgentEnd, ConnectOptions};
use acp_bindings::methods::{Agent, Client, SessionHandler};
use acp_bindings::*;
use futures::channel::mpsc;
use futures::io::AsyncWrite;
use futures::{StreamExt, TryStreamExt};
use serde_json::{json, Value};

mod dice;
mod scripted_agent_v2;
use dice::Dice;

/// A writer that cuts what it is given into random pieces and makes the
/// writer wait at random.
struct PipeWriter {
    sender: mpsc::UnboundedSender<Vec<u8>>,
    dice: Dice,
}

impl AsyncWrite for PipeWriter {
    fn poll_write(self: Pin<&mut Self>, context: &mut Context<'_>, buffer: &[u8]) -> Poll<std::io::Result<usize>> {
        if self.dice.below(4) == 0 {
            context.waker().wake_by_ref();
            return Poll::Pending;
        }
        let take = 1 + self.dice.below(buffer.len().min(64));
        let _ = self.sender.unbounded_send(buffer[..take].to_vec());
        Poll::Ready(Ok(take))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.sender.close_channel();
        Poll::Ready(Ok(()))
    }
}

fn pipe(dice: &Dice) -> (PipeWriter, impl futures::io::AsyncBufRead + Unpin) {
    let (sender, receiver) = mpsc::unbounded::<Vec<u8>>();
    (
        PipeWriter {
            sender,
            dice: dice.clone(),
        },
        receiver.map(Ok::<_, std::io::Error>).into_async_read(),
    )
}

fn decode<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).unwrap()
}

/// Per prompt text: chunks the worker sent, and chunks the client handled.
type Counts = Arc<Mutex<BTreeMap<String, usize>>>;

/// The scripted agent of the race tests: echo turns of 1 to 5 chunks with
/// random waits, a third of the prompts sending an `idle` snapshot before
/// their `running`, telling `sent` each turn's chunks.
fn agent_options(dice: &Dice, sent: &Counts) -> scripted_agent_v2::Options {
    let (chunks, early_idle, pause, sent) = (dice.clone(), dice.clone(), dice.clone(), sent.clone());
    scripted_agent_v2::Options {
        info: Implementation::new("test agent", "1"),
        chunks: Box::new(move || 1 + chunks.below(5)),
        early_idle: Box::new(move || early_idle.below(3) == 0),
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

struct TestClient {
    dice: Dice,
    handled: Counts,
}

impl Client for TestClient {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        Err(Error::method_not_found())
    }

    async fn session_update(&self, params: UpdateSessionNotification) {
        self.dice.pause(4).await;
        let update = serde_json::to_value(&params.update).unwrap();
        if update["sessionUpdate"] == "agent_message_chunk" {
            let text = update["content"]["text"].as_str().unwrap_or_default();
            let prompt = text
                .rsplit_once(" part ")
                .map(|(prompt, _)| prompt.to_owned())
                .unwrap_or_default();
            *self.handled.lock().unwrap().entry(prompt).or_default() += 1;
        }
    }
}

/// Prompt calls that completed before their turn was handled, of `turns`.
fn run(seed: u64, ordered: bool, sessions: usize, prompts: usize) -> usize {
    let dice = Dice::new(seed);
    let (to_agent, agent_reads) = pipe(&dice);
    let (to_client, client_reads) = pipe(&dice);
    let options = || ConnectOptions::default().unordered(!ordered);
    let (sent, handled) = (Counts::default(), Counts::default());
    let (agent, worker) = scripted_agent_v2::script(agent_options(&dice, &sent));
    let (agent, agent_driver) = connect_agent(agent, agent_reads, to_client, options());
    let (client, client_driver) = connect_client(
        |_| TestClient {
            dice: dice.clone(),
            handled: handled.clone(),
        },
        client_reads,
        to_agent,
        options(),
    );
    let early = Arc::new(Mutex::new(0));
    let scenario = async {
        client
            .initialize(decode(
                json!({"protocolVersion": PROTOCOL_VERSION, "info": {"name": "test client", "version": "1"}}),
            ))
            .await
            .unwrap();
        let turns = (0..sessions).map(|index| {
            let (client, dice, sent, handled, early) = (
                client.clone(),
                dice.clone(),
                sent.clone(),
                handled.clone(),
                early.clone(),
            );
            async move {
                let session = client
                    .session_new(NewSessionRequest::new("/tmp"))
                    .await
                    .unwrap()
                    .session_id;
                for turn in 0..prompts {
                    dice.pause(2).await;
                    let text = format!("s{index} t{turn}");
                    let prompt =
                        PromptRequest::new(session.clone(), vec![decode(json!({"type": "text", "text": text}))]);
                    client.session_prompt(prompt).await.unwrap();
                    let expected = sent.lock().unwrap().get(&text).copied();
                    if expected.is_none() || handled.lock().unwrap().get(&text).copied() != expected {
                        *early.lock().unwrap() += 1;
                    }
                }
            }
        });
        futures::future::join_all(turns).await;
        client.close();
    };
    let background = worker.run(agent);
    let (agent_result, client_result, (), ()) =
        futures::executor::block_on(async { futures::join!(agent_driver, client_driver, scenario, background) });
    agent_result.unwrap();
    client_result.unwrap();
    let early = *early.lock().unwrap();
    early
}

const SEEDS: u64 = 40;
const SESSIONS: usize = 3;
const PROMPTS: usize = 20;

#[test]
fn a_prompt_call_completes_when_its_turn_is_idle_and_handled() {
    let mut early = 0;
    for seed in 0..SEEDS {
        let found = run(seed, true, SESSIONS, PROMPTS);
        assert_eq!(
            found, 0,
            "seed {seed}: {found} prompt calls completed before their turn was handled"
        );
        early += found;
    }
    println!(
        "ordered: {} turns, {early} completed early",
        SEEDS as usize * SESSIONS * PROMPTS
    );
}

#[test]
fn without_the_ordering_prompt_calls_complete_on_the_acknowledgement() {
    let early: usize = (0..SEEDS).map(|seed| run(seed, false, SESSIONS, PROMPTS)).sum();
    println!(
        "unordered: {} turns, {early} completed early",
        SEEDS as usize * SESSIONS * PROMPTS
    );
    assert!(early > 0);
}

/// An agent whose prompt starts foreground work that asks permission twice,
/// then waits for its cancellation and ends the work with `idle`, saying
/// `end_turn` as if nothing happened. It reports no state but `running` and
/// `idle`, and has no `session/cancel` handler: its end acts on the
/// notification itself.
struct CancelledAgent {
    end: AgentEnd,
    saw: Arc<Mutex<Vec<String>>>,
}

impl Agent for CancelledAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(InitializeResponse::new(
            PROTOCOL_VERSION,
            Implementation::new("test agent", "1"),
        ))
    }

    fn session_handler(&self) -> Option<&impl SessionHandler> {
        Some(self)
    }
}

/// The session methods it needs to advertise `session`, beside its prompt:
/// one session, `s`, that is never listed, resumed or closed.
impl SessionHandler for CancelledAgent {
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Ok(NewSessionResponse::new("s"))
    }

    async fn session_list(&self, _: ListSessionsRequest) -> Result<ListSessionsResponse, Error> {
        Ok(ListSessionsResponse::new(vec![]))
    }

    async fn session_resume(&self, params: ResumeSessionRequest) -> Result<ResumeSessionResponse, Error> {
        Err(ends::session_not_found(params.session_id.as_str()))
    }

    async fn session_close(&self, params: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        Err(ends::session_not_found(params.session_id.as_str()))
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let session = params.session_id.as_str().to_owned();
        let state = |state: Value| decode(json!({"sessionId": session, "update": state}));
        self.end
            .session_update(state(json!({"sessionUpdate": "state_update", "state": "running"})))
            .unwrap();
        let cancellation = self.end.cancellation(&session);
        let permission: RequestPermissionRequest = decode(json!({"sessionId": session, "title": "Write?", "options": [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"}
        ]}));
        let first = self.end.session_request_permission(permission.clone()).await;
        let second = self.end.session_request_permission(permission).await;
        cancellation.cancelled().await;
        let mut saw = self.saw.lock().unwrap();
        saw.push(format!("answered: {}", first.is_ok()));
        saw.push(format!("{:?}", second.err()));
        drop(saw);
        self.end
            .session_update(state(
                json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
            ))
            .unwrap();
        // The work ended: a new call is not refused for the old turn.
        self.saw
            .lock()
            .unwrap()
            .push(format!("cancelled: {}", self.end.cancellation(&session).is_cancelled()));
        Ok(PromptResponse::new("message-1"))
    }
}

/// A client that allows the first permission request and holds the others,
/// telling `arrived`, and keeps each state it handled (an `idle` with its
/// stop reason).
struct HoldingClient {
    arrived: mpsc::UnboundedSender<()>,
    asked: Mutex<usize>,
    states: Arc<Mutex<Vec<String>>>,
}

impl Client for HoldingClient {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        let first = {
            let mut asked = self.asked.lock().unwrap();
            *asked += 1;
            *asked == 1
        };
        if first {
            return Ok(decode(json!({"outcome": {"outcome": "selected", "optionId": "allow"}})));
        }
        let _ = self.arrived.unbounded_send(());
        futures::future::pending().await
    }

    async fn session_update(&self, params: UpdateSessionNotification) {
        let update = serde_json::to_value(&params.update).unwrap();
        if let (Some(state), reason) = (update["state"].as_str(), &update["stopReason"]) {
            let state = reason
                .as_str()
                .map_or_else(|| state.to_owned(), |reason| format!("{state} {reason}"));
            self.states.lock().unwrap().push(state);
        }
    }
}

#[test]
fn a_cancelled_turn_ends_with_an_idle_that_says_cancelled_and_nothing_is_dropped() {
    let dice = Dice::new(5);
    let (to_agent, agent_reads) = pipe(&dice);
    let (to_client, client_reads) = pipe(&dice);
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
    let states = Arc::new(Mutex::new(Vec::new()));
    let (client, client_driver) = connect_client(
        |_| HoldingClient {
            arrived,
            asked: Mutex::new(0),
            states: states.clone(),
        },
        client_reads,
        to_agent,
        reporting("client"),
    );
    let scenario = async {
        client
            .initialize(decode(
                json!({"protocolVersion": PROTOCOL_VERSION, "info": {"name": "test client", "version": "1"}}),
            ))
            .await
            .unwrap();
        let prompt = client.session_prompt(decode(
            json!({"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}),
        ));
        let cancel = async {
            arrivals.next().await;
            client.session_cancel(decode(json!({"sessionId": "s"}))).unwrap();
        };
        let (accepted, ()) = futures::join!(prompt, cancel);
        assert_eq!(accepted.unwrap().message_id.as_str(), "message-1");
        client.close();
    };
    let (agent_result, client_result, ()) =
        futures::executor::block_on(async { futures::join!(agent_driver, client_driver, scenario) });
    agent_result.unwrap();
    client_result.unwrap();
    assert_eq!(
        *saw.lock().unwrap(),
        ["answered: true", "Some(Cancelled)", "cancelled: false"]
    );
    assert_eq!(
        *states.lock().unwrap(),
        [
            "running",
            "requires_action",
            "running",
            "requires_action",
            "idle cancelled"
        ]
    );
    assert_eq!(*dropped.lock().unwrap(), []);
}
