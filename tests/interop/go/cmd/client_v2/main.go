// Our Go client on protocol v2, for the interop matrix: the same session
// as `tests/interop/rust-v2/src/bin/client_v2.rs`, on the connection of
// the v2 stable bindings' module. A prompt call returns once its turn is
// drained (the acknowledgement, then the `idle` that ends the turn,
// handled); the turn's stop reason is that `idle`'s. It runs the agent
// command given after `--` over its stdio, answers permission requests with
// the first "allow once" option, prints what it saw as JSON and exits 0
// when every prompt's turn ended, else names the first failure. `--trace
// FILE` records every message.
//
//	client_v2 --cwd DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...
package main

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/stdio"
)

// seen is what the agent asked of the client and sent it, and the stop
// reason of the last `idle` handled (nil: none since the prompt; JSON
// `null` when it gave none).
type seen struct {
	mu          sync.Mutex
	updates     map[string]int
	permissions int
	idle        json.RawMessage
}

type client struct{ seen *seen }

func (c *client) SessionRequestPermission(_ context.Context, params acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.seen.mu.Lock()
	c.seen.permissions++
	c.seen.mu.Unlock()
	return stdio.PermissionOutcome(params.Options), nil
}

func (c *client) SessionUpdate(_ context.Context, params acp.UpdateSessionNotification) error {
	kind, _ := stdio.Member(params.Update, "sessionUpdate")
	c.seen.mu.Lock()
	defer c.seen.mu.Unlock()
	c.seen.updates[kind.Text()]++
	if state, ok := params.Update.(acp.SessionUpdateStateUpdate); ok {
		if idle, ok := state.StateUpdate.(acp.StateUpdateIdle); ok {
			c.seen.idle = json.RawMessage("null")
			if reason, ok := stdio.Member(idle.IdleStateUpdate.StopReason, "stopReason"); ok {
				c.seen.idle, _ = reason.MarshalJSON()
			}
		}
	}
	return nil
}

// summary is what the client prints.
type summary struct {
	Agent       acp.Implementation `json:"agent"`
	StopReasons []json.RawMessage  `json:"stopReasons"`
	Updates     map[string]int     `json:"updates"`
	Permissions int                `json:"permissions"`
	Dropped     []string           `json:"dropped"`
}

func main() {
	options := stdio.ClientOptions("client_v2 --cwd ABSOLUTE_DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...", false)
	seen := &seen{updates: map[string]int{}}
	dropped := &stdio.Dropped{}
	handler := func(*acp.ClientConnection) acp.Client { return &client{seen: seen} }
	stdio.RunClient(options, dropped, handler, func(ctx context.Context, end *acp.ClientConnection) (any, error) {
		initialized, err := end.Initialize(ctx, acp.InitializeRequest{
			ProtocolVersion: acp.CurrentProtocolVersion,
			Info:            acp.Implementation{Name: "acp-codegen interop client (Go, v2)", Version: "0.1.0"},
		})
		if err != nil {
			return nil, stdio.Failed("initialize", err)
		}
		session, err := end.SessionNew(ctx, acp.NewSessionRequest{Cwd: acp.AbsolutePath(options.Cwd)})
		if err != nil {
			return nil, stdio.Failed("session/new", err)
		}
		stopReasons := []json.RawMessage{}
		for _, text := range options.Prompts {
			seen.mu.Lock()
			seen.idle = nil
			seen.mu.Unlock()
			prompt := []acp.ContentBlock{acp.ContentBlockText{TextContent: acp.TextContent{Text: text}}}
			if _, err := end.SessionPrompt(ctx, acp.PromptRequest{SessionId: session.SessionId, Prompt: prompt}); err != nil {
				return nil, stdio.Failed("session/prompt", err)
			}
			seen.mu.Lock()
			idle := seen.idle
			seen.mu.Unlock()
			if idle == nil {
				return nil, stdio.Failed("session/prompt", errors.New("the call returned before an idle ended its turn"))
			}
			stopReasons = append(stopReasons, idle)
		}
		seen.mu.Lock()
		defer seen.mu.Unlock()
		return summary{initialized.Info, stopReasons, seen.updates, seen.permissions, dropped.List()}, nil
	})
}
