//! Our Rust agent on protocol v2, for the interop matrix: the v2 Rust test
//! agent (`tests/rust/scripted_agent_v2/`, copied next to these programs)
//! over the process's stdio, playing the `notes.txt` turn: acknowledged at
//! once, then played by its worker. `ACP_INTEROP_TRACE` names a file that
//! records every message.

// Copied here by the interop build; rustfmt checks it where it lives.
#[rustfmt::skip]
#[path = "../scripted_agent_v2/mod.rs"]
mod scripted_agent_v2;

use acp_bindings::connection::{connect_agent, ConnectOptions};
use acp_bindings::Implementation;
use acp_interop::{reader, Trace, Writer};
use scripted_agent_v2::{Options, Turn};

fn main() {
    let trace = Trace::create(std::env::var("ACP_INTEROP_TRACE").ok().as_deref()).expect("the trace file");
    let input = reader(std::io::stdin(), trace.clone(), "client-to-agent");
    let output = Writer::new(std::io::stdout(), trace, "agent-to-client");
    let (agent, worker) = scripted_agent_v2::script(Options {
        info: Implementation::new("acp-codegen interop agent (Rust, v2)", "0.1.0"),
        turn: Turn::Notes,
        ..Options::default()
    });
    let (end, driver) = connect_agent(agent, input, output, ConnectOptions::default());
    // The connection decides: when its input ends, so does the agent.
    let driven = futures::executor::block_on(async {
        let (driver, worker) = (Box::pin(driver), Box::pin(worker.run(end)));
        match futures::future::select(driver, worker).await {
            futures::future::Either::Left((driven, _)) => driven,
            futures::future::Either::Right(((), driver)) => driver.await,
        }
    });
    if let Err(error) = driven {
        eprintln!("the connection failed: {error}");
        std::process::exit(1);
    }
}
