//! Our Rust client, for the interop matrix: runs the agent command given
//! after `--` over its stdio, with the connection of the generated crate,
//! and plays one session: `initialize` (file reads and writes offered, no
//! terminal), `session/new` in `--cwd`, then each `--prompt` in turn. It
//! answers permission requests with the first "allow once" option and
//! serves file reads and writes inside `--cwd`. It prints what it saw as
//! JSON and exits 0 when every prompt ended with a stop reason; otherwise
//! it names the first failure. `--trace FILE` records every message.
//!
//! `client --cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...`

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use acp_bindings::connection::{connect_client, ConnectOptions};
use acp_bindings::methods::{Client, FsReadTextFileHandler, FsWriteTextFileHandler};
use acp_bindings::*;
use acp_interop::{play, spawn_agent, Arguments};
use serde_json::json;

#[derive(Default)]
struct Seen {
    updates: BTreeMap<String, usize>,
    permissions: usize,
    reads: usize,
    writes: usize,
    dropped: Vec<String>,
}

struct Interop {
    cwd: PathBuf,
    seen: Arc<Mutex<Seen>>,
}

impl Interop {
    /// `path` when it is inside the working directory.
    fn inside(&self, path: &str) -> Result<PathBuf, Error> {
        let path = Path::new(path);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.cwd.join(path)
        };
        if path.starts_with(&self.cwd) {
            Ok(path)
        } else {
            Err(Error::invalid_params().data(json!({"outside": path})))
        }
    }
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

    async fn session_update(&self, params: SessionNotification) {
        let kind = serde_json::to_value(&params.update)
            .ok()
            .and_then(|update| update["sessionUpdate"].as_str().map(str::to_owned))
            .unwrap_or_default();
        *self.seen.lock().unwrap().updates.entry(kind).or_default() += 1;
    }

    fn fs_read_text_file_handler(&self) -> Option<&impl FsReadTextFileHandler> {
        Some(self)
    }

    fn fs_write_text_file_handler(&self) -> Option<&impl FsWriteTextFileHandler> {
        Some(self)
    }
}

impl FsReadTextFileHandler for Interop {
    async fn fs_read_text_file(&self, params: ReadTextFileRequest) -> Result<ReadTextFileResponse, Error> {
        let path = self.inside(&params.path)?;
        let content =
            std::fs::read_to_string(&path).map_err(|error| Error::internal_error().data(json!(error.to_string())))?;
        self.seen.lock().unwrap().reads += 1;
        let content = match (params.line.value().copied(), params.limit.value().copied()) {
            (None, None) => content,
            (line, limit) => {
                let skip = line.map_or(0, |line| line.saturating_sub(1) as usize);
                content
                    .lines()
                    .skip(skip)
                    .take(limit.map_or(usize::MAX, |limit| limit as usize))
                    .map(|line| format!("{line}\n"))
                    .collect()
            }
        };
        Ok(ReadTextFileResponse::new(content))
    }
}

impl FsWriteTextFileHandler for Interop {
    async fn fs_write_text_file(&self, params: WriteTextFileRequest) -> Result<WriteTextFileResponse, Error> {
        let path = self.inside(&params.path)?;
        std::fs::write(&path, &params.content)
            .map_err(|error| Error::internal_error().data(json!(error.to_string())))?;
        self.seen.lock().unwrap().writes += 1;
        Ok(WriteTextFileResponse::default())
    }
}

fn main() {
    let arguments = Arguments::parse(
        "client --cwd ABSOLUTE_DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...",
        true,
    );
    let (mut child, input, output) = spawn_agent(&arguments);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let reports = seen.clone();
    let options =
        ConnectOptions::default().dropped(move |dropped| reports.lock().unwrap().dropped.push(format!("{dropped:?}")));
    let cwd = arguments.cwd.clone();
    let handler_seen = seen.clone();
    let (client, driver) = connect_client(
        |_| Interop {
            cwd,
            seen: handler_seen,
        },
        input,
        output,
        options,
    );
    let session = async {
        // Its end advertises `fs.readTextFile` and `fs.writeTextFile`, whose
        // handlers it gives, and no terminal.
        let mut initialize = InitializeRequest::new(PROTOCOL_VERSION);
        initialize.client_info = Nullable::Value(Implementation::new("acp-codegen interop client (Rust)", "0.1.0"));
        let initialized = client
            .initialize(initialize)
            .await
            .map_err(|error| format!("initialize: {error}"))?;
        if let Some(method) = &arguments.authenticate {
            client
                .authenticate(AuthenticateRequest::new(method.clone()))
                .await
                .map_err(|error| format!("authenticate: {error}"))?;
        }
        let session = client
            .session_new(NewSessionRequest::new(arguments.cwd.display().to_string(), vec![]))
            .await
            .map_err(|error| format!("session/new: {error}"))?;
        let mut stop_reasons = Vec::new();
        for text in &arguments.prompts {
            let prompt = PromptRequest::new(
                session.session_id.clone(),
                vec![ContentBlock::Text(TextContent::new(text.clone()))],
            );
            let response = client
                .session_prompt(prompt)
                .await
                .map_err(|error| format!("session/prompt: {error}"))?;
            stop_reasons.push(serde_json::to_value(response.stop_reason).unwrap_or_default());
        }
        client.close();
        Ok::<_, String>((initialized, stop_reasons))
    };
    let outcome = play(session, driver, &mut child);
    let seen = seen.lock().unwrap();
    match outcome {
        Ok((initialized, stop_reasons)) => {
            let agent = serde_json::to_value(&initialized.agent_info).unwrap_or_default();
            let summary = json!({"agent": agent, "stopReasons": stop_reasons, "updates": seen.updates, "permissions": seen.permissions, "reads": seen.reads, "writes": seen.writes, "dropped": seen.dropped});
            println!("{summary}");
        }
        Err((message, driven)) => {
            eprintln!("FAIL: {message} (connection: {driven:?}; dropped: {:?})", seen.dropped);
            std::process::exit(1);
        }
    }
}
