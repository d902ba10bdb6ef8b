//! The connection runtime (`templates/rust/connection.rs`) compiled, and run
//! once, with stand-ins for the parts of a generated crate it uses: the
//! error object, the side traits and their dispatchers, and the schema's
//! rules. The generated crates' own tests run it on every schema.

pub mod types {
    /// The error object's stand-in.
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Error {
        pub code: i64,
        pub message: String,
    }
}

pub mod methods {
    use serde_json::Value;

    use super::types::Error;

    /// The side traits' stand-ins: an agent that echoes its params.
    pub trait Agent {}
    pub trait Client {}

    pub mod agent {
        use super::*;

        pub async fn dispatch_request<H: super::Agent + ?Sized>(_: &H, method: &str, params: Value) -> Result<Value, Error> {
            match method {
                "echo" => Ok(params),
                _ => Err(Error { code: -32601, message: "Method not found".to_owned() }),
            }
        }

        pub async fn dispatch_notification<H: super::Agent + ?Sized>(_: &H, _: &str, _: Value) -> Result<(), Error> {
            Ok(())
        }
    }

    pub mod client {
        use super::*;

        pub async fn dispatch_request<H: super::Client + ?Sized>(_: &H, _: &str, _: Value) -> Result<Value, Error> {
            Err(Error { code: -32601, message: "Method not found".to_owned() })
        }

        pub async fn dispatch_notification<H: super::Client + ?Sized>(_: &H, _: &str, _: Value) -> Result<(), Error> {
            Ok(())
        }
    }
}

pub mod helpers {
    pub use acp_ir::helpers::machines;
}

pub use crate::codec;

pub mod ends {
    use super::connection::{Features, Rules};

    pub static RULES: Rules = Rules { initialize: "initialize", features: |_, _| Features::default(), ready: None, turns: None, cancel: None };
}

#[path = "../../../templates/rust/connection.rs"]
pub mod connection;

#[cfg(test)]
mod tests {
    use futures::channel::mpsc;
    use futures::{StreamExt, TryStreamExt};
    use serde_json::{json, Value};

    use super::connection::{AgentEnd, CallError, ClientEnd};

    struct Echo;
    impl super::methods::Agent for Echo {}
    struct Quiet;
    impl super::methods::Client for Quiet {}

    /// A pipe: a writer into a channel, and a reader of it.
    fn pipe() -> (futures::io::AllowStdIo<Channel>, impl futures::io::AsyncBufRead + Unpin) {
        let (sender, receiver) = mpsc::unbounded::<Vec<u8>>();
        (futures::io::AllowStdIo::new(Channel(sender)), receiver.map(Ok::<_, std::io::Error>).into_async_read())
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
        let (_, agent) = AgentEnd::connect(|_| Echo, agent_reads, to_client);
        let (client, driver) = ClientEnd::connect(|_| Quiet, client_reads, to_agent);
        let scenario = async {
            let echoed: Value = client.call("echo", &json!({"a": [1, 2]})).await.unwrap();
            assert_eq!(echoed, json!({"a": [1, 2]}));
            let Err(CallError::Remote(error)) = client.request("nothing", json!(null)).await else { panic!("method not found") };
            assert_eq!(error.code, -32601);
            client.close();
        };
        let (agent, client, ()) = futures::executor::block_on(async { futures::join!(agent, driver, scenario) });
        agent.unwrap();
        client.unwrap();
    }
}
