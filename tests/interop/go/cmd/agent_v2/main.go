// Our Go agent on protocol v2, for the interop matrix: the same turn as
// `tests/interop/rust-v2/src/bin/agent_v2.rs`, on the connection of the v2
// stable bindings' module over its own stdio. A prompt is acknowledged at
// once (`running`, then the response) and its turn is played after: the
// user message echoed, a chunk, a tool call (in progress), a permission
// request, the tool call's end, a closing chunk and `idle`.
// `ACP_INTEROP_TRACE` names a file that records every message.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/stdio"
)

type agent struct {
	end      *acp.AgentConnection
	mu       sync.Mutex
	sessions map[acp.SessionId]bool
	messages int
}

func (a *agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{
		ProtocolVersion: acp.CurrentProtocolVersion,
		Info:            acp.Implementation{Name: "acp-codegen interop agent (Go, v2)", Version: "0.1.0"},
		Capabilities:    acp.Some(acp.AgentCapabilities{Session: acp.Some(acp.NonNull(acp.SessionCapabilities{}))}),
	}, nil
}

func (a *agent) SessionNew(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := acp.SessionId(fmt.Sprintf("session-%d", len(a.sessions)+1))
	a.sessions[id] = true
	return acp.NewSessionResponse{SessionId: id}, nil
}

// SessionList and SessionResume: `session` offers them with `session/new`
// and `session/prompt`, and the end advertises it only when the agent
// answers them all.
func (a *agent) SessionList(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}

func (a *agent) SessionResume(_ context.Context, params acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.sessions[params.SessionId] {
		return acp.ResumeSessionResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	return acp.ResumeSessionResponse{}, nil
}

func (a *agent) SessionClose(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	known := a.sessions[params.SessionId]
	a.messages++
	messageID := acp.MessageId(fmt.Sprintf("message-%d", a.messages))
	a.mu.Unlock()
	if !known {
		return acp.PromptResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	running := acp.SessionUpdateStateUpdate{StateUpdate: acp.StateUpdateRunning{}}
	if err := a.end.SessionUpdate(acp.UpdateSessionNotification{SessionId: params.SessionId, Update: running}); err != nil {
		return acp.PromptResponse{}, err
	}
	// The turn outlives the handler, whose ctx ends with its answer.
	go a.turn(context.WithoutCancel(ctx), params.SessionId, params.Prompt, messageID)
	return acp.PromptResponse{MessageId: messageID}, nil
}

// turn is the turn after its acknowledgement, ended by `idle` (`error`
// when a call failed).
func (a *agent) turn(ctx context.Context, sessionID acp.SessionId, prompt []acp.ContentBlock, messageID acp.MessageId) {
	update := func(update acp.SessionUpdate) error {
		return a.end.SessionUpdate(acp.UpdateSessionNotification{SessionId: sessionID, Update: update})
	}
	reply := acp.MessageId("reply-to-" + string(messageID))
	chunk := func(text string) error {
		content := acp.ContentBlockText{TextContent: acp.TextContent{Text: text}}
		return update(acp.SessionUpdateAgentMessageChunk{ContentChunk: acp.ContentChunk{MessageId: reply, Content: content}})
	}
	played := func() error {
		echoed := acp.UserMessage{MessageId: messageID, Content: acp.Some(acp.NonNull(prompt))}
		if err := update(acp.SessionUpdateUserMessage{UserMessage: echoed}); err != nil {
			return err
		}
		if err := chunk("Editing notes.txt."); err != nil {
			return err
		}
		editing := acp.ToolCallUpdate{
			ToolCallId: "call-1",
			Title:      acp.Some(acp.NonNull("Edit notes.txt")),
			Kind:       acp.Some(acp.NonNull(acp.ToolKindEdit)),
			Status:     acp.Some(acp.NonNull(acp.ToolCallStatusInProgress)),
		}
		if err := update(acp.SessionUpdateToolCallUpdate{ToolCallUpdate: editing}); err != nil {
			return err
		}
		subject := acp.RequestPermissionSubjectToolCall{ToolCallPermissionSubject: acp.ToolCallPermissionSubject{ToolCall: acp.ToolCallUpdate{ToolCallId: "call-1"}}}
		answer, err := a.end.SessionRequestPermission(ctx, acp.RequestPermissionRequest{
			SessionId: sessionID,
			Title:     "Edit notes.txt?",
			Subject:   acp.Some(acp.NonNull[acp.RequestPermissionSubject](subject)),
			Options: []acp.PermissionOption{
				{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
				{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
			},
		})
		if err != nil {
			return err
		}
		selected, allowed := answer.Outcome.(acp.RequestPermissionOutcomeSelected)
		allowed = allowed && selected.SelectedPermissionOutcome.OptionId == "allow"
		status, closing := acp.ToolCallStatusFailed, "Left as it was."
		if allowed {
			status, closing = acp.ToolCallStatusCompleted, "Edited."
		}
		if err := update(acp.SessionUpdateToolCallUpdate{ToolCallUpdate: acp.ToolCallUpdate{ToolCallId: "call-1", Status: acp.Some(acp.NonNull(status))}}); err != nil {
			return err
		}
		return chunk(closing)
	}
	var stopReason acp.IdleStateUpdateStopReason = acp.IdleStateUpdateStopReasonEndTurn{}
	if err := played(); err != nil {
		fmt.Fprintf(os.Stderr, "the turn of %s failed: %v\n", messageID, err)
		stopReason = acp.IdleStateUpdateStopReasonError{}
	}
	idle := acp.StateUpdateIdle{IdleStateUpdate: acp.IdleStateUpdate{StopReason: stopReason}}
	if err := update(acp.SessionUpdateStateUpdate{StateUpdate: idle}); err != nil {
		fmt.Fprintf(os.Stderr, "the idle of %s: %v\n", messageID, err)
	}
}

func main() {
	stdio.ServeAgent(func(end *acp.AgentConnection) acp.Agent {
		return &agent{end: end, sessions: map[acp.SessionId]bool{}}
	})
}
