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
use std::sync::{Arc, Mutex};

use acp_bindings::connection::{connect_client, ConnectOptions};
use acp_bindings::methods::Client;
use acp_bindings::*;
use acp_interop::{play, spawn_agent, Arguments};
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
    async fn session_request_permission(
        &self,
        params: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        self.seen.lock().unwrap().permissions += 1;
        let chosen = params
            .options
            .iter()
            .find(|option| option.kind == PermissionOptionKind::AllowOnce)
            .or(params.options.first());
        Ok(RequestPermissionResponse::new(match chosen {
            Some(option) => {
                RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option.option_id.clone()))
            }
            None => RequestPermissionOutcome::Cancelled(Default::default()),
        }))
    }

    async fn session_update(&self, params: UpdateSessionNotification) {
        let update = serde_json::to_value(&params.update).unwrap_or_default();
        let mut seen = self.seen.lock().unwrap();
        *seen
            .updates
            .entry(update["sessionUpdate"].as_str().unwrap_or_default().to_owned())
            .or_default() += 1;
        if matches!(params.update, SessionUpdate::StateUpdate(StateUpdate::Idle(_))) {
            seen.idle = Some(update["stopReason"].clone());
        }
    }
}

fn main() {
    let arguments = Arguments::parse(
        "client_v2 --cwd ABSOLUTE_DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...",
        false,
    );
    let (mut child, input, output) = spawn_agent(&arguments);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let reports = seen.clone();
    let options =
        ConnectOptions::default().dropped(move |dropped| reports.lock().unwrap().dropped.push(format!("{dropped:?}")));
    let handler_seen = seen.clone();
    let (client, driver) = connect_client(|_| Interop { seen: handler_seen }, input, output, options);
    let session = async {
        let initialize = InitializeRequest::new(
            PROTOCOL_VERSION,
            Implementation::new("acp-codegen interop client (Rust, v2)", "0.1.0"),
        );
        let initialized = client
            .initialize(initialize)
            .await
            .map_err(|error| format!("initialize: {error}"))?;
        let session = client
            .session_new(NewSessionRequest::new(arguments.cwd.display().to_string()))
            .await
            .map_err(|error| format!("session/new: {error}"))?;
        let mut stop_reasons = Vec::new();
        for text in &arguments.prompts {
            seen.lock().unwrap().idle = None;
            let prompt = PromptRequest::new(
                session.session_id.clone(),
                vec![ContentBlock::Text(TextContent::new(text.clone()))],
            );
            client
                .session_prompt(prompt)
                .await
                .map_err(|error| format!("session/prompt: {error}"))?;
            stop_reasons.push(
                seen.lock()
                    .unwrap()
                    .idle
                    .take()
                    .ok_or("session/prompt: the call completed before an idle ended its turn")?,
            );
        }
        client.close();
        Ok::<_, String>((initialized, stop_reasons))
    };
    let outcome = play(session, driver, &mut child);
    let seen = seen.lock().unwrap();
    match outcome {
        Ok((initialized, stop_reasons)) => {
            let agent = serde_json::to_value(&initialized.info).unwrap_or_default();
            let summary = json!({"agent": agent, "stopReasons": stop_reasons, "updates": seen.updates, "permissions": seen.permissions, "dropped": seen.dropped});
            println!("{summary}");
        }
        Err((message, driven)) => {
            eprintln!("FAIL: {message} (connection: {driven:?}; dropped: {:?})", seen.dropped);
            std::process::exit(1);
        }
    }
}
