//! Rule R5, for captures of a NATS transport for agents: each request's
//! reply stream is a run of frames `{"type": ..., "data": ...}` ended by an
//! empty message. The first frame must be exactly one `status` frame whose
//! `data` is `"ack"`, before any other chunk; a request that failed to
//! decode gets an `error` frame with `data.code` 400 and no ack. Frames
//! after the first `status` (keep-alives) are not judged. A stream is
//! forgotten at its end.

use std::collections::HashMap;

use serde_json::Value;

use super::finding::Found;

/// How far a stream has got.
#[derive(Debug, Clone, Copy)]
struct Open {
    acked: bool,
}

#[derive(Debug, Default)]
pub(super) struct Streams {
    open: HashMap<String, Open>,
}

/// What a frame is.
enum Kind<'a> {
    Ack,
    /// An `error` frame for a request that did not decode.
    DecodeError,
    Other(&'a str),
}

fn kind(frame: &Value) -> Result<Kind<'_>, String> {
    let Some(members) = frame.as_object() else {
        return Err("the frame is not a JSON object".to_owned());
    };
    let Some(kind) = members.get("type").and_then(Value::as_str) else {
        return Err("the frame has no string `type`".to_owned());
    };
    let data = members.get("data");
    Ok(match kind {
        "status" if data.and_then(Value::as_str) == Some("ack") => Kind::Ack,
        "error" if data.and_then(|data| data.get("code")).and_then(Value::as_u64) == Some(400) => Kind::DecodeError,
        other => Kind::Other(other),
    })
}

impl Streams {
    /// A frame of `stream` (`None`: its end).
    pub(super) fn frame(&mut self, stream: &str, frame: Option<&Value>) -> Vec<Found> {
        let name = Value::from(stream);
        let finding = |rule, message: String| vec![Found::new(rule, message).request(Some(&name))];
        let Some(frame) = frame else {
            self.open.remove(stream);
            return Vec::new();
        };
        let kind = match kind(frame) {
            Ok(kind) => kind,
            Err(problem) => return finding("FRAME", format!("reply stream {stream}: {problem}")),
        };
        match (self.open.get_mut(stream), kind) {
            (None, Kind::Ack) => {
                self.open.insert(stream.to_owned(), Open { acked: true });
                Vec::new()
            }
            (None, Kind::DecodeError) => {
                self.open.insert(stream.to_owned(), Open { acked: false });
                Vec::new()
            }
            (None, Kind::Other(other)) => {
                self.open.insert(stream.to_owned(), Open { acked: false });
                finding(
                    "R5",
                    format!("reply stream {stream} opens with a `{other}` frame, not the leading status/ack"),
                )
            }
            (Some(open), Kind::DecodeError) if open.acked => {
                open.acked = false;
                finding(
                    "R5",
                    format!(
                        "reply stream {stream} acked a request that then failed to decode (error 400 after the ack)"
                    ),
                )
            }
            (Some(_), _) => Vec::new(),
        }
    }
}
