// Our Go agent, for the interop matrix: the same turn as
// `tests/interop/rust/src/bin/agent.rs`, played by the Go test agent
// (`tests/go/scripted_agent/`, its Notes turn, which the interop build
// copies into this module as `internal/scriptedagent`) on the generated
// module's connection over its own stdio. `ACP_INTEROP_TRACE` names a file
// that records every message.
package main

import (
	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/scriptedagent"
	"acpinterop/internal/stdio"
)

func main() {
	info := acp.Implementation{Name: "acp-codegen interop agent (Go)", Version: "0.1.0"}
	stdio.ServeAgent(func(end *acp.AgentConnection) acp.Agent {
		return scriptedagent.New(end, scriptedagent.Options{Info: &info, Turn: scriptedagent.Notes})
	})
}
