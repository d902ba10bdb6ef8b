//! Our Rust client on protocol v2, for the interop matrix: runs the agent
//! command given after `--` over its stdio, with the connection of the v2
//! stable bindings, and plays one session: `initialize`, `session/new` in
//! `--cwd`, then each `--prompt` in turn. A prompt call completes once its
//! turn is drained (the acknowledgement, then the `idle` that ends the
//! turn, handled); the turn's stop reason is that `idle`'s. It answers
//! permission requests with the first "allow once" option. It prints what
//! it saw as JSON and exits 0 when every prompt's turn ended; otherwise it
//! names the first failure. `--trace FILE` records every message.
//!
//! `client_v2 --cwd DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...`

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use acp_bindings::connection::{ClientEnd, Options};
use acp_bindings::methods::Client;
use acp_bindings::*;
use acp_interop::{reader, Trace, Writer};
use serde_json::{json, Value};

#[derive(Default)]
struct Seen {
    updates: BTreeMap<String, usize>,
    permissions: usize,
    /// The stop reason of the last `idle` handled (`null` when it gave none).
    idle: Option<Value>,
    dropped: Vec<String>,
}

struct Interop {
    seen: Arc<Mutex<Seen>>,
}

impl Client for Interop {
    async fn session_request_permission(&self, params: RequestPermissionRequest) -> Result<RequestPermissionResponse, Error> {
        self.seen.lock().unwrap().permissions += 1;
        let chosen = params.options.iter().find(|option| option.kind == PermissionOptionKind::AllowOnce).or(params.options.first());
        Ok(RequestPermissionResponse::new(match chosen {
            Some(option) => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.option_id.clone())),
            None => RequestPermissionOutcome::Cancelled(Default::default()),
        }))
    }

    async fn session_update(&self, params: UpdateSessionNotification) {
        let update = serde_json::to_value(&params.update).unwrap_or_default();
        let mut seen = self.seen.lock().unwrap();
        *seen.updates.entry(update["sessionUpdate"].as_str().unwrap_or_default().to_owned()).or_default() += 1;
        if matches!(params.update, SessionUpdate::StateUpdate(StateUpdate::Idle(_))) {
            seen.idle = Some(update["stopReason"].clone());
        }
    }
}

struct Arguments {
    cwd: PathBuf,
    trace: Option<String>,
    prompts: Vec<String>,
    agent: Vec<String>,
}

fn arguments() -> Result<Arguments, String> {
    let mut arguments = Arguments { cwd: PathBuf::new(), trace: None, prompts: Vec::new(), agent: Vec::new() };
    let mut given = std::env::args().skip(1);
    while let Some(argument) = given.next() {
        match argument.as_str() {
            "--cwd" => arguments.cwd = given.next().ok_or("--cwd needs a folder")?.into(),
            "--trace" => arguments.trace = Some(given.next().ok_or("--trace needs a file")?),
            "--prompt" => arguments.prompts.push(given.next().ok_or("--prompt needs text")?),
            "--" => arguments.agent = given.by_ref().collect(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if arguments.agent.is_empty() || !arguments.cwd.is_absolute() {
        return Err("usage: client_v2 --cwd ABSOLUTE_DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...".to_owned());
    }
    if arguments.prompts.is_empty() {
        arguments.prompts.push("Read notes.txt, then update it.".to_owned());
    }
    Ok(arguments)
}

fn main() {
    let arguments = match arguments() {
        Ok(arguments) => arguments,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let mut child = match Command::new(&arguments.agent[0]).args(&arguments.agent[1..]).current_dir(&arguments.cwd).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn() {
        Ok(child) => child,
        Err(error) => {
            eprintln!("FAIL ours: cannot start {}: {error}", arguments.agent[0]);
            std::process::exit(1);
        }
    };
    let trace = Trace::create(arguments.trace.as_deref()).expect("the trace file");
    let input = reader(child.stdout.take().unwrap(), trace.clone(), "agent-to-client");
    let output = Writer::new(child.stdin.take().unwrap(), trace, "client-to-agent");
    let seen = Arc::new(Mutex::new(Seen::default()));
    let reports = seen.clone();
    let options = Options::dropped(move |dropped| reports.lock().unwrap().dropped.push(format!("{dropped:?}")));
    let handler_seen = seen.clone();
    let (client, driver) = ClientEnd::connect_with(|_| Interop { seen: handler_seen }, input, output, options);
    let session = async {
        let initialize = InitializeRequest::new(PROTOCOL_VERSION, Implementation::new("acp-codegen interop client (Rust, v2)", "0.1.0"));
        let initialized = client.initialize(initialize).await.map_err(|error| format!("initialize: {error}"))?;
        let session = client.session_new(NewSessionRequest::new(arguments.cwd.display().to_string())).await.map_err(|error| format!("session/new: {error}"))?;
        let mut stop_reasons = Vec::new();
        for text in &arguments.prompts {
            seen.lock().unwrap().idle = None;
            let prompt = PromptRequest::new(session.session_id.clone(), vec![ContentBlock::Text(TextContent::new(text.clone()))]);
            client.session_prompt(prompt).await.map_err(|error| format!("session/prompt: {error}"))?;
            stop_reasons.push(seen.lock().unwrap().idle.take().ok_or("session/prompt: the call completed before an idle ended its turn")?);
        }
        client.close();
        Ok::<_, String>((initialized, stop_reasons))
    };
    // The session decides: an agent need not exit when its input ends, so
    // once the session is over the agent is stopped.
    let (outcome, driven) = futures::executor::block_on(async {
        let (session, driver) = (Box::pin(session), Box::pin(driver));
        match futures::future::select(session, driver).await {
            futures::future::Either::Left((outcome, _)) => (outcome, None),
            futures::future::Either::Right((driven, session)) => (session.await, Some(driven)),
        }
    });
    let _ = child.kill();
    let _ = child.wait();
    let seen = seen.lock().unwrap();
    match (outcome, driven) {
        (Ok((initialized, stop_reasons)), _) => {
            let agent = serde_json::to_value(&initialized.info).unwrap_or_default();
            let summary = json!({"agent": agent, "stopReasons": stop_reasons, "updates": seen.updates, "permissions": seen.permissions, "dropped": seen.dropped});
            println!("{summary}");
        }
        (Err(message), driven) => {
            eprintln!("FAIL: {message} (connection: {driven:?}; dropped: {:?})", seen.dropped);
            std::process::exit(1);
        }
    }
}
