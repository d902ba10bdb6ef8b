// Our Go agent on protocol v2, for the interop matrix: the same turn as
// `tests/interop/rust-v2/src/bin/agent_v2.rs`, played by the Go test agent
// (`tests/go/scripted_agent_v2/`, its Notes turn, which the interop build
// copies into this module as `internal/scriptedagent`) on the connection of
// the v2 stable bindings' module over its own stdio. `ACP_INTEROP_TRACE`
// names a file that records every message.
package main

import (
	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/scriptedagent"
	"acpinterop/internal/stdio"
)

func main() {
	info := acp.Implementation{Name: "acp-codegen interop agent (Go, v2)", Version: "0.1.0"}
	// The end advertises `session` from the handlers; it is written too, as
	// the agent always did.
	capabilities := acp.AgentCapabilities{Session: acp.Some(acp.NonNull(acp.SessionCapabilities{}))}
	stdio.ServeAgent(func(end *acp.AgentConnection) acp.Agent {
		return scriptedagent.New(end, scriptedagent.Options{Info: &info, Capabilities: &capabilities, Turn: scriptedagent.Notes})
	})
}
