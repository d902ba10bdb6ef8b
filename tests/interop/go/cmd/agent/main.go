// Our Go agent, for the interop matrix: the same turn as
// `tests/interop/rust/src/bin/agent.rs`, on the generated module's
// connection over its own stdio: a chunk, a tool call reading notes.txt
// through the client (when it can read files), a permission request, the
// edit written through the client (when allowed and it can write files) and
// a closing chunk. `ACP_INTEROP_TRACE` names a file that records every
// message.
package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/stdio"
)

type agent struct {
	end      *acp.AgentConnection
	mu       sync.Mutex
	client   acp.FileSystemCapabilities
	sessions map[acp.SessionId]string
}

func (a *agent) Initialize(_ context.Context, params acp.InitializeRequest) (acp.InitializeResponse, error) {
	a.mu.Lock()
	a.client = params.ClientCapabilities.Value.Fs.Value
	a.mu.Unlock()
	return acp.InitializeResponse{
		ProtocolVersion: acp.CurrentProtocolVersion,
		AgentInfo:       acp.Some(acp.NonNull(acp.Implementation{Name: "acp-codegen interop agent (Go)", Version: "0.1.0"})),
	}, nil
}

func (a *agent) SessionNew(_ context.Context, params acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := acp.SessionId(fmt.Sprintf("session-%d", len(a.sessions)+1))
	a.sessions[id] = params.Cwd
	return acp.NewSessionResponse{SessionId: id}, nil
}

func text(text string) acp.ContentBlock {
	return acp.ContentBlockText{TextContent: acp.TextContent{Text: text}}
}

func (a *agent) SessionPrompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	sessionID := params.SessionId
	a.mu.Lock()
	cwd, known := a.sessions[sessionID]
	fs := a.client
	a.mu.Unlock()
	if !known {
		return acp.PromptResponse{}, acp.SessionNotFound(string(sessionID))
	}
	notes := filepath.Join(cwd, "notes.txt")
	update := func(update acp.SessionUpdate) error {
		return a.end.SessionUpdate(acp.SessionNotification{SessionId: sessionID, Update: update})
	}
	chunk := func(words string) error {
		return update(acp.SessionUpdateAgentMessageChunk{ContentChunk: acp.ContentChunk{Content: text(words)}})
	}
	if err := chunk("Reading notes.txt."); err != nil {
		return acp.PromptResponse{}, err
	}
	reading := acp.ToolCall{ToolCallId: "call-1", Title: "Read notes.txt", Kind: acp.Some(acp.ToolKindRead), Status: acp.Some(acp.ToolCallStatusInProgress)}
	if err := update(acp.SessionUpdateToolCall{ToolCall: reading}); err != nil {
		return acp.PromptResponse{}, err
	}
	content := ""
	if fs.ReadTextFile.Value {
		read, err := a.end.FsReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: sessionID, Path: notes})
		if err != nil {
			return acp.PromptResponse{}, err
		}
		content = read.Content
	}
	shown := []acp.ToolCallContent{acp.ToolCallContentContent{Content: acp.Content{Content: text(content)}}}
	read := acp.ToolCallUpdate{ToolCallId: "call-1", Status: acp.Some(acp.NonNull(acp.ToolCallStatusCompleted)), Content: acp.Some(acp.NonNull(shown))}
	if err := update(acp.SessionUpdateToolCallUpdate{ToolCallUpdate: read}); err != nil {
		return acp.PromptResponse{}, err
	}
	answer, err := a.end.SessionRequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: sessionID,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "call-2", Title: acp.Some(acp.NonNull("Edit notes.txt")), Kind: acp.Some(acp.NonNull(acp.ToolKindEdit))},
		Options: []acp.PermissionOption{
			{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionId: "reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil {
		return acp.PromptResponse{}, err
	}
	selected, allowed := answer.Outcome.(acp.RequestPermissionOutcomeSelected)
	allowed = allowed && selected.SelectedPermissionOutcome.OptionId == "allow"
	if allowed && fs.WriteTextFile.Value {
		if _, err := a.end.FsWriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: sessionID, Path: notes, Content: content + "edited\n"}); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	closing := "Left as it was."
	if allowed {
		closing = "Edited."
	}
	if err := chunk(closing); err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func main() {
	stdio.ServeAgent(func(end *acp.AgentConnection) acp.Agent {
		return &agent{end: end, sessions: map[acp.SessionId]string{}}
	})
}
