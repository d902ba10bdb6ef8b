//! Our Rust agent, for the interop matrix: the Rust test agent
//! (`tests/rust/scripted_agent/`, copied next to these programs) over the
//! process's stdio, playing the `notes.txt` turn. `ACP_INTEROP_TRACE` names
//! a file that records every message.

// Copied here by the interop build; rustfmt checks it where it lives.
#[rustfmt::skip]
#[path = "../scripted_agent/mod.rs"]
mod scripted_agent;

use acp_bindings::connection::{connect_agent, ConnectOptions};
use acp_bindings::Implementation;
use acp_interop::{reader, Trace, Writer};
use scripted_agent::{Options, ScriptedAgent, Turn};

fn main() {
    let trace = Trace::create(std::env::var("ACP_INTEROP_TRACE").ok().as_deref()).expect("the trace file");
    let input = reader(std::io::stdin(), trace.clone(), "client-to-agent");
    let output = Writer::new(std::io::stdout(), trace, "agent-to-client");
    let options = || Options {
        info: Some(Implementation::new("acp-codegen interop agent (Rust)", "0.1.0")),
        turn: Turn::Notes,
        ..Options::default()
    };
    let (_, driver) = connect_agent(
        |end| ScriptedAgent::new(end, options()),
        input,
        output,
        ConnectOptions::default(),
    );
    if let Err(error) = futures::executor::block_on(driver) {
        eprintln!("the connection failed: {error}");
        std::process::exit(1);
    }
}
