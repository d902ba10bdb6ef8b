//! Realistic ACP traffic made by a seeded generator (the same bytes for the
//! same seed and size): the benchmark's corpus (`bench::corpus`) and the
//! large captures of `cargo xtask gen-trace` are made of it.
//!
//! Most messages are `session/update` notifications, as in a real session:
//! message and thought chunks, tool calls and their updates (with text
//! content and diffs), plans and command lists; the rest are
//! `session/prompt` requests (text and embedded resources) and responses,
//! and permission requests and answers. Tool call states the official Rust
//! crate treats as defaults (`status: "pending"`, `kind: "other"`) are part
//! of it, as real agents send them.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Map, Value};

/// The types of the generated messages (each is decoded as its type, in every language).
pub const TYPES: [&str; 5] = [
    "SessionNotification",
    "PromptRequest",
    "PromptResponse",
    "RequestPermissionRequest",
    "RequestPermissionResponse",
];

const WORDS: [&str; 48] = [
    "the",
    "a",
    "function",
    "returns",
    "value",
    "error",
    "file",
    "test",
    "build",
    "session",
    "update",
    "config",
    "module",
    "parser",
    "I'll",
    "check",
    "read",
    "write",
    "fix",
    "change",
    "branch",
    "commit",
    "because",
    "this",
    "that",
    "with",
    "without",
    "should",
    "type",
    "field",
    "schema",
    "client",
    "agent",
    "tool",
    "call",
    "—",
    "naïve",
    "café",
    "数据",
    "🙂",
    "\"quoted\"",
    "path\\to",
    "line\nbreak",
    "`code`",
    "{}",
    "<tag>",
    "100%",
    "x=1;",
];

const IDENTIFIERS: [&str; 16] = [
    "parse_config",
    "Session",
    "handle_update",
    "value",
    "result",
    "decoder",
    "items",
    "index",
    "buffer",
    "reader",
    "writer",
    "options",
    "context",
    "state",
    "message",
    "schema",
];

const TOOL_KINDS: [&str; 10] = [
    "read",
    "edit",
    "delete",
    "move",
    "search",
    "execute",
    "think",
    "fetch",
    "switch_mode",
    "other",
];
const TOOL_STATUSES: [&str; 4] = ["pending", "in_progress", "completed", "failed"];

/// The seeded generator.
struct Generator {
    random: StdRng,
    session: String,
    tool_calls: u64,
}

impl Generator {
    fn chance(&mut self, probability: f64) -> bool {
        self.random.random_bool(probability)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.random.random_range(0..items.len())]
    }

    /// Prose of `words` words.
    fn prose(&mut self, words: usize) -> String {
        let mut text = String::new();
        for index in 0..words {
            if index > 0 {
                text.push(if self.chance(0.04) { '\n' } else { ' ' });
            }
            text.push_str(self.pick(&WORDS));
        }
        text
    }

    /// Source-like text of `lines` lines.
    fn code(&mut self, lines: usize) -> String {
        let mut text = String::new();
        for _ in 0..lines {
            let indent = self.random.random_range(0..4usize) * 4;
            let name = self.pick(&IDENTIFIERS);
            let other = self.pick(&IDENTIFIERS);
            let line = match self.random.random_range(0..5) {
                0 => format!("fn {name}({other}: &str) -> Result<(), Error> {{"),
                1 => format!("let {name} = {other}.get(\"{}\")?;", self.pick(&IDENTIFIERS)),
                2 => format!("// {}", self.prose(6)),
                3 => format!("if {name}.is_empty() {{ return Err(\"empty {other}\".into()); }}"),
                _ => "}".to_owned(),
            };
            text.push_str(&" ".repeat(indent));
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    fn path(&mut self) -> String {
        format!(
            "/home/user/project/src/{}/{}.rs",
            self.pick(&IDENTIFIERS),
            self.pick(&IDENTIFIERS)
        )
    }

    fn text_block(&mut self, words: usize) -> Value {
        let mut block = json!({"type": "text", "text": self.prose(words)});
        if self.chance(0.05) {
            block["annotations"] = json!({"audience": ["user"]});
        }
        block
    }

    fn content_block(&mut self) -> Value {
        match self.random.random_range(0..10) {
            0 => {
                json!({"type": "resource_link", "name": self.pick(&IDENTIFIERS), "uri": format!("file://{}", self.path())})
            }
            1 => {
                let lines = self.random.random_range(5..40);
                json!({"type": "resource", "resource": {"uri": format!("file://{}", self.path()), "mimeType": "text/x-rust", "text": self.code(lines)}})
            }
            _ => {
                let words = self.random.random_range(3..60);
                self.text_block(words)
            }
        }
    }

    fn tool_call_content(&mut self) -> Value {
        if self.chance(0.5) {
            let lines = self.random.random_range(10..80);
            let old_text = self.code(lines);
            let new_text = self.code(lines + 2);
            let mut diff = json!({"type": "diff", "path": self.path()});
            if self.chance(0.9) {
                diff["oldText"] = json!(old_text);
            }
            diff["newText"] = json!(new_text);
            diff
        } else {
            let words = self.random.random_range(10..120);
            json!({"type": "content", "content": self.text_block(words)})
        }
    }

    fn raw_input(&mut self) -> Value {
        let mut input = Map::new();
        input.insert("path".to_owned(), json!(self.path()));
        if self.chance(0.5) {
            input.insert("offset".to_owned(), json!(self.random.random_range(0..5000)));
            input.insert("limit".to_owned(), json!(self.random.random_range(1..500)));
        }
        if self.chance(0.3) {
            input.insert(
                "command".to_owned(),
                json!(format!("cargo test -p {}", self.pick(&IDENTIFIERS))),
            );
            input.insert("recursive".to_owned(), json!(self.chance(0.5)));
        }
        Value::Object(input)
    }

    fn chunk(&mut self, kind: &str) -> Value {
        let words = self.random.random_range(1..25);
        json!({"sessionUpdate": kind, "content": {"type": "text", "text": self.prose(words)}})
    }

    fn tool_call(&mut self) -> Value {
        self.tool_calls += 1;
        let mut update = json!({"sessionUpdate": "tool_call", "toolCallId": format!("call_{}", self.tool_calls)});
        update["title"] = json!(format!(
            "{} {}",
            self.pick(&["Reading", "Editing", "Searching", "Running"]),
            self.path()
        ));
        update["kind"] = json!(self.pick(&TOOL_KINDS));
        update["status"] = json!(if self.chance(0.7) { "pending" } else { "in_progress" });
        if self.chance(0.5) {
            update["locations"] = json!([{"path": self.path(), "line": self.random.random_range(1..2000)}]);
        }
        update["rawInput"] = self.raw_input();
        update
    }

    fn tool_call_update(&mut self) -> Value {
        let id = format!("call_{}", self.random.random_range(1..=self.tool_calls.max(1)));
        let mut update = json!({"sessionUpdate": "tool_call_update", "toolCallId": id});
        update["status"] = json!(self.pick(&TOOL_STATUSES));
        if self.chance(0.7) {
            let count = self.random.random_range(1..3);
            update["content"] = Value::Array((0..count).map(|_| self.tool_call_content()).collect());
        }
        if self.chance(0.3) {
            update["rawOutput"] = json!({"exitCode": self.random.random_range(0..2), "stdout": self.prose(20)});
        }
        update
    }

    fn plan(&mut self) -> Value {
        let count = self.random.random_range(2..8);
        let entries: Vec<Value> = (0..count)
            .map(|_| {
                let words = self.random.random_range(3..12);
                json!({"content": self.prose(words), "priority": self.pick(&["high", "medium", "low"]), "status": self.pick(&["pending", "in_progress", "completed"])})
            })
            .collect();
        json!({"sessionUpdate": "plan", "entries": entries})
    }

    fn commands(&mut self) -> Value {
        let count = self.random.random_range(1..6);
        let commands: Vec<Value> = (0..count)
            .map(|_| {
                let mut command = json!({"name": self.pick(&IDENTIFIERS), "description": self.prose(8)});
                if self.chance(0.5) {
                    command["input"] = json!({"hint": self.prose(3)});
                }
                command
            })
            .collect();
        json!({"sessionUpdate": "available_commands_update", "availableCommands": commands})
    }

    /// A notification; one update in twenty has its tag last, as a peer
    /// that builds objects member by member may send it.
    fn notification(&mut self, update: Value) -> Value {
        let update = match update {
            Value::Object(mut members) if self.chance(0.05) => {
                let tag = members.shift_remove("sessionUpdate").unwrap_or(Value::Null);
                members.insert("sessionUpdate".to_owned(), tag);
                Value::Object(members)
            }
            other => other,
        };
        json!({"sessionId": self.session, "update": update})
    }

    fn permission_request(&mut self) -> Value {
        let id = format!("call_{}", self.random.random_range(1..=self.tool_calls.max(1)));
        let mut tool_call = json!({"toolCallId": id, "title": format!("Run `cargo test -p {}`", self.pick(&IDENTIFIERS)), "kind": "execute", "status": "pending"});
        if self.chance(0.5) {
            tool_call["content"] = json!([self.tool_call_content()]);
        }
        json!({
            "sessionId": self.session,
            "toolCall": tool_call,
            "options": [
                {"optionId": "allow-once", "name": "Allow", "kind": "allow_once"},
                {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
                {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"}
            ]
        })
    }

    /// The next message, chosen by the traffic mix.
    fn message(&mut self) -> (&'static str, Value) {
        let roll = self.random.random_range(0..1000);
        match roll {
            0..=19 => {
                let count = self.random.random_range(1..4);
                let prompt: Vec<Value> = (0..count).map(|_| self.content_block()).collect();
                ("PromptRequest", json!({"sessionId": self.session, "prompt": prompt}))
            }
            20..=39 => (
                "PromptResponse",
                json!({"stopReason": self.pick(&["end_turn", "end_turn", "max_tokens", "cancelled", "refusal"])}),
            ),
            40..=54 => ("RequestPermissionRequest", self.permission_request()),
            55..=69 => {
                let outcome = if self.chance(0.8) {
                    json!({"outcome": "selected", "optionId": "allow-once"})
                } else {
                    json!({"outcome": "cancelled"})
                };
                ("RequestPermissionResponse", json!({"outcome": outcome}))
            }
            70..=79 => {
                let update = self.commands();
                ("SessionNotification", self.notification(update))
            }
            80..=119 => {
                let update = self.plan();
                ("SessionNotification", self.notification(update))
            }
            120..=219 => {
                let update = self.tool_call();
                ("SessionNotification", self.notification(update))
            }
            220..=369 => {
                let update = self.tool_call_update();
                ("SessionNotification", self.notification(update))
            }
            370..=459 => {
                let update = self.chunk("agent_thought_chunk");
                ("SessionNotification", self.notification(update))
            }
            460..=479 => {
                let update = self.chunk("user_message_chunk");
                ("SessionNotification", self.notification(update))
            }
            _ => {
                let update = self.chunk("agent_message_chunk");
                ("SessionNotification", self.notification(update))
            }
        }
    }
}

/// At least `bytes` bytes of messages (JSON text), the same for the same `seed`.
pub fn generate(seed: u64, bytes: usize) -> Vec<(&'static str, Value)> {
    let mut generator = Generator {
        random: StdRng::seed_from_u64(seed),
        session: format!("sess_{seed:016x}"),
        tool_calls: 0,
    };
    let mut messages = Vec::new();
    let mut total = 0;
    while total < bytes {
        let (type_name, value) = generator.message();
        total += value.to_string().len();
        messages.push((type_name, value));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_makes_the_same_corpus_and_another_seed_another() {
        let text = |seed| {
            generate(seed, 40_000)
                .into_iter()
                .map(|(name, value)| format!("{name}\t{value}\n"))
                .collect::<String>()
        };
        assert_eq!(text(7), text(7));
        assert_ne!(text(7), text(8));
    }
}
