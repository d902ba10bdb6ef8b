//! The connection runtime (`templates/rust/connection.rs`) compiled, and run
//! once, with stand-ins for the parts of a generated crate it uses: the
//! error object, the side traits and their dispatchers, the negotiated
//! view, and the schema's rules. The generated crates' own tests run it on every schema.

pub mod types {
    /// The error object's stand-in.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Error {
        pub code: i64,
        pub message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub data: Option<serde_json::Value>,
    }
}

pub mod methods {
    use serde_json::value::RawValue;
    use serde_json::Value;

    use super::types::Error;

    /// The side traits' stand-ins: an agent that echoes its params.
    pub trait Agent {}
    pub trait Client {}

    pub mod agent {
        use super::*;

        pub async fn dispatch_request<H: super::Agent + ?Sized>(
            _: &H,
            method: &str,
            params: Box<RawValue>,
        ) -> Result<Value, Error> {
            match method {
                "echo" => serde_json::from_str(params.get()).map_err(|error| Error {
                    code: -32602,
                    message: error.to_string(),
                    data: None,
                }),
                _ => Err(Error {
                    code: -32601,
                    message: "Method not found".to_owned(),
                    data: None,
                }),
            }
        }

        pub async fn dispatch_notification<H: super::Agent + ?Sized>(
            _: &H,
            _: &str,
            _: Box<RawValue>,
        ) -> Result<(), Error> {
            Ok(())
        }

        pub fn handles<H: super::Agent + ?Sized>(_: &H, method: &str) -> bool {
            method == "echo"
        }
    }

    pub mod client {
        use super::*;

        pub async fn dispatch_request<H: super::Client + ?Sized>(
            _: &H,
            _: &str,
            _: Box<RawValue>,
        ) -> Result<Value, Error> {
            Err(Error {
                code: -32601,
                message: "Method not found".to_owned(),
                data: None,
            })
        }

        pub async fn dispatch_notification<H: super::Client + ?Sized>(
            _: &H,
            _: &str,
            _: Box<RawValue>,
        ) -> Result<(), Error> {
            Ok(())
        }

        pub fn handles<H: super::Client + ?Sized>(_: &H, _: &str) -> bool {
            false
        }
    }
}

pub mod helpers {
    pub use acp_ir::rfd::machines;
}

pub mod negotiation {
    /// The refusal's stand-in.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct CapabilityError {
        pub method: String,
        pub pointer: String,
        pub side: &'static str,
        pub capability: String,
    }

    impl std::fmt::Display for CapabilityError {
        fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(formatter, "{} needs {}", self.method, self.capability)
        }
    }

    /// The view's stand-in: it allows everything.
    #[derive(Debug, Clone)]
    pub struct Negotiated;

    impl Negotiated {
        pub fn check_outgoing<P: serde::Serialize>(&self, _: &str, _: &P) -> Result<(), CapabilityError> {
            Ok(())
        }

        pub fn check_method(&self, _: &str) -> Result<(), CapabilityError> {
            Ok(())
        }
    }

    /// The per-session offers' stand-in: nothing is offered per session.
    #[derive(Debug, Clone, Default)]
    pub struct SessionOffers;

    impl SessionOffers {
        pub fn record(&mut self, _: &str, _: &serde_json::Value, _: &serde_json::Value) {}

        pub fn reads_params(_: &str) -> bool {
            false
        }

        pub fn check(&self, _: &str, _: &serde_json::Value) -> Result<(), CapabilityError> {
            Ok(())
        }
    }

    /// No method is offered per session here.
    pub fn offered_per_session() -> impl Iterator<Item = &'static str> {
        std::iter::empty()
    }

    pub fn without_unhandled_offers(_: &str, _: &mut serde_json::Value, _: impl Fn(&str) -> bool) {}
}

pub use crate::codec;

pub mod ends {
    use super::connection::{Features, Handshake, Rules};

    pub static RULES: Rules = Rules {
        initialize: "initialize",
        features: |_, _| Features::default(),
        outgoing: |_, _| None,
        ready: None,
        turns: None,
        cancel: None,
        turn_cancel: None,
    };

    /// No handshake: the stand-in agent takes any call at once.
    pub static HANDSHAKE: Option<Handshake> = None;
}

#[path = "../../../templates/rust/connection.rs"]
pub mod connection;

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures::channel::mpsc;
    use futures::{StreamExt, TryStreamExt};
    use serde_json::{json, Value};

    use super::connection::{connect_agent, connect_client, CallError, ConnectOptions};

    struct Echo;
    impl super::methods::Agent for Echo {}
    struct Quiet;
    impl super::methods::Client for Quiet {}

    /// A pipe: a writer into a channel, and a reader of it.
    fn pipe() -> (futures::io::AllowStdIo<Channel>, impl futures::io::AsyncBufRead + Unpin) {
        let (sender, receiver) = mpsc::unbounded::<Vec<u8>>();
        (
            futures::io::AllowStdIo::new(Channel(sender)),
            receiver.map(Ok::<_, std::io::Error>).into_async_read(),
        )
    }

    struct Channel(mpsc::UnboundedSender<Vec<u8>>);

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

    #[test]
    fn two_ends_call_each_other_and_close() {
        let (to_agent, agent_reads) = pipe();
        let (to_client, client_reads) = pipe();
        let (_, agent) = connect_agent(|_| Echo, agent_reads, to_client, ConnectOptions::default());
        let (client, driver) = connect_client(|_| Quiet, client_reads, to_agent, ConnectOptions::default());
        let scenario = async {
            let echoed: Value = client.call("echo", &json!({"a": [1, 2]})).await.unwrap();
            assert_eq!(echoed, json!({"a": [1, 2]}));
            let Err(CallError::Remote(error)) = client.request("nothing", json!(null)).await else {
                panic!("method not found")
            };
            assert_eq!(error.code, -32601);
            client.close();
        };
        let (agent, client, ()) = futures::executor::block_on(async { futures::join!(agent, driver, scenario) });
        agent.unwrap();
        client.unwrap();
    }

    /// A received line is read member by member, as a parsed `Value` reads
    /// it: the last of twin members counts, names may be escaped, other
    /// members are skipped, and what is not an object is no message.
    #[test]
    fn lines_are_read_as_parsed_values() {
        let lines = [
            "{not json",
            "[1, 2]",
            r#"{"jsonrpc":"1.0","id":1,"method":"echo"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}"#,
            r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":2,"method":"nope","meth\u006fd":"echo","params":1,"params":{"last":true},"other":{"deep":[null]}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":5}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":null}"#,
            "   ",
        ];
        let input: Vec<u8> = lines.iter().flat_map(|line| format!("{line}\n").into_bytes()).collect();
        let (sender, written) = mpsc::unbounded::<Vec<u8>>();
        let dropped = Arc::new(Mutex::new(Vec::new()));
        let reports = dropped.clone();
        let options = ConnectOptions::default().dropped(move |report| reports.lock().unwrap().push(report));
        let (_, agent) = connect_agent(
            |_| Echo,
            futures::io::Cursor::new(input),
            futures::io::AllowStdIo::new(Channel(sender)),
            options,
        );
        futures::executor::block_on(agent).unwrap();
        let text: Vec<u8> = futures::executor::block_on(written.concat());
        let answers: Vec<Value> = text
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect();
        let fault = |code: i64, message: &str| json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
        let invalid = fault(-32600, "not a JSON-RPC 2.0 message");
        assert_eq!(answers.len(), 6, "{answers:?}");
        assert_eq!(answers[0], fault(-32700, "not JSON"));
        assert_eq!(answers[1..3], [invalid.clone(), invalid]);
        assert_eq!(answers[3], fault(-32600, "the id is not a string, a number or null"));
        assert!(
            answers.contains(&json!({"jsonrpc": "2.0", "id": 2, "result": {"last": true}})),
            "{answers:?}"
        );
        assert!(
            answers.contains(
                &json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32600, "message": "the method is not a string"}})
            ),
            "{answers:?}"
        );
        let reports = dropped.lock().unwrap().clone();
        assert_eq!(reports.len(), 1, "{reports:?}");
        let report = &reports[0];
        assert_eq!((report.method.as_deref(), report.line), (None, 7));
        assert_eq!(report.error.message, "a response to no request in flight");
        assert_eq!(report.error.data, Some(json!({ "id": 4 })));
    }
}
