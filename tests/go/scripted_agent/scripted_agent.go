// Package scriptedagent is the Go test agent on protocol v1: the one
// implementation of the generated module's `Agent` interface that the
// connection's race tests (`tests/go/connection_test.go`), the interop
// agent (`tests/interop/go/cmd/agent`) and the bench's round trips
// (`xtask/src/bench/programs/go/connection`) serve. `cargo xtask` copies
// it into each of their modules as `internal/scriptedagent`. Its v2
// counterpart is `tests/go/scripted_agent_v2/`.
//
// The agent New returns opens a session per `session/new` (`session-1`,
// `session-2`, ...) and answers a prompt on any other session with
// resource-not-found. A prompt plays a turn, answered `end_turn`; the turn
// is one of Turn. Each program sets the Options it needs; the rest are
// inert.
package scriptedagent

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	acp "github.com/acp-codegen/acp-bindings-go"
)

// Turn is what a prompt plays.
type Turn int

const (
	// Echo sends chunks of the prompt's first text, "<text> part <n>", as
	// many as Options.Chunks says, then a permission request when
	// Options.Ask says so.
	Echo Turn = iota
	// Notes is the interop turn on `notes.txt` in the session's folder: a
	// chunk, a tool call that reads the file (when the client can), a
	// permission request to edit it, the edit (when allowed and the client
	// can write), a closing chunk.
	Notes
)

// Options are the agent's choices, each for the program that needs it.
type Options struct {
	// Info is the agent's name and version in its `initialize` answer
	// (none when nil).
	Info *acp.Implementation
	// Capabilities is what its `initialize` answer advertises (none when
	// nil).
	Capabilities *acp.AgentCapabilities
	// Commands makes `session/new` send the session's available commands
	// before it answers (session-scoped: rule R1 holds them until the
	// client's `session/ready`).
	Commands bool
	Turn     Turn
	// Chunks is the Echo turn's chunks (1 when nil).
	Chunks func() int
	// Ask is whether an Echo turn asks permission (no when nil).
	Ask func() bool
	// Pause is called before each Echo chunk (with at most 3 yields), and
	// after `session/new`'s commands (the race tests' random waits).
	Pause func(most int)
	// Played is told when an Echo turn sent all its chunks: its text and
	// chunks.
	Played func(text string, chunks int)
}

// Agent is the test agent on one connection's agent end.
type Agent struct {
	end     *acp.AgentConnection
	options Options
	mu      sync.Mutex
	// client is what the client offered in `initialize`.
	client acp.FileSystemCapabilities
	// sessions is each open session's folder.
	sessions map[acp.SessionId]string
}

// New is the test agent on `end`, with `options`.
func New(end *acp.AgentConnection, options Options) *Agent {
	if options.Chunks == nil {
		options.Chunks = func() int { return 1 }
	}
	if options.Ask == nil {
		options.Ask = func() bool { return false }
	}
	if options.Pause == nil {
		options.Pause = func(int) {}
	}
	if options.Played == nil {
		options.Played = func(string, int) {}
	}
	return &Agent{end: end, options: options, sessions: map[acp.SessionId]string{}}
}

func (a *Agent) Initialize(_ context.Context, params acp.InitializeRequest) (acp.InitializeResponse, error) {
	a.mu.Lock()
	a.client = params.ClientCapabilities.Value.Fs.Value
	a.mu.Unlock()
	response := acp.InitializeResponse{ProtocolVersion: acp.CurrentProtocolVersion}
	if a.options.Info != nil {
		response.AgentInfo = acp.Some(acp.NonNull(*a.options.Info))
	}
	if a.options.Capabilities != nil {
		response.AgentCapabilities = acp.Some(*a.options.Capabilities)
	}
	return response, nil
}

func (a *Agent) SessionNew(_ context.Context, params acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	id := acp.SessionId(fmt.Sprintf("session-%d", len(a.sessions)+1))
	a.sessions[id] = params.Cwd
	a.mu.Unlock()
	if a.options.Commands {
		commands := acp.SessionUpdateAvailableCommandsUpdate{AvailableCommandsUpdate: acp.AvailableCommandsUpdate{
			AvailableCommands: []acp.AvailableCommand{{Name: "explain", Description: "Explains the code"}},
		}}
		if err := a.update(id, commands); err != nil {
			return acp.NewSessionResponse{}, err
		}
		a.options.Pause(3)
	}
	return acp.NewSessionResponse{SessionId: id}, nil
}

func (a *Agent) SessionPrompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	cwd, known := a.sessions[params.SessionId]
	a.mu.Unlock()
	if !known {
		return acp.PromptResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	var err error
	if a.options.Turn == Notes {
		err = a.notes(ctx, params.SessionId, filepath.Join(cwd, "notes.txt"))
	} else {
		err = a.echo(ctx, params.SessionId, textOf(params.Prompt))
	}
	if err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *Agent) update(session acp.SessionId, update acp.SessionUpdate) error {
	return a.end.SessionUpdate(acp.SessionNotification{SessionId: session, Update: update})
}

func (a *Agent) chunk(session acp.SessionId, words string) error {
	return a.update(session, acp.SessionUpdateAgentMessageChunk{ContentChunk: acp.ContentChunk{Content: text(words)}})
}

// echo is the Echo turn of the prompt `prompt`.
func (a *Agent) echo(ctx context.Context, session acp.SessionId, prompt string) error {
	chunks := a.options.Chunks()
	for index := range chunks {
		a.options.Pause(3)
		if err := a.chunk(session, fmt.Sprintf("%s part %d", prompt, index)); err != nil {
			return err
		}
	}
	if a.options.Ask() {
		permission := acp.RequestPermissionRequest{
			SessionId: session,
			ToolCall:  acp.ToolCallUpdate{ToolCallId: "call-1"},
			Options:   []acp.PermissionOption{{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}},
		}
		if _, err := a.end.SessionRequestPermission(ctx, permission); err != nil {
			return err
		}
	}
	a.options.Played(prompt, chunks)
	return nil
}

// notes is the Notes turn on the file `notes`.
func (a *Agent) notes(ctx context.Context, session acp.SessionId, notes string) error {
	a.mu.Lock()
	fs := a.client
	a.mu.Unlock()
	if err := a.chunk(session, "Reading notes.txt."); err != nil {
		return err
	}
	reading := acp.ToolCall{ToolCallId: "call-1", Title: "Read notes.txt", Kind: acp.Some(acp.ToolKindRead), Status: acp.Some(acp.ToolCallStatusInProgress)}
	if err := a.update(session, acp.SessionUpdateToolCall{ToolCall: reading}); err != nil {
		return err
	}
	content := ""
	if fs.ReadTextFile.Value {
		read, err := a.end.FsReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: session, Path: notes})
		if err != nil {
			return err
		}
		content = read.Content
	}
	shown := []acp.ToolCallContent{acp.ToolCallContentContent{Content: acp.Content{Content: text(content)}}}
	read := acp.ToolCallUpdate{ToolCallId: "call-1", Status: acp.Some(acp.NonNull(acp.ToolCallStatusCompleted)), Content: acp.Some(acp.NonNull(shown))}
	if err := a.update(session, acp.SessionUpdateToolCallUpdate{ToolCallUpdate: read}); err != nil {
		return err
	}
	answer, err := a.end.SessionRequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: session,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "call-2", Title: acp.Some(acp.NonNull("Edit notes.txt")), Kind: acp.Some(acp.NonNull(acp.ToolKindEdit))},
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
	if allowed && fs.WriteTextFile.Value {
		if _, err := a.end.FsWriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: session, Path: notes, Content: content + "edited\n"}); err != nil {
			return err
		}
	}
	closing := "Left as it was."
	if allowed {
		closing = "Edited."
	}
	return a.chunk(session, closing)
}

func text(words string) acp.ContentBlock {
	return acp.ContentBlockText{TextContent: acp.TextContent{Text: words}}
}

// textOf is the text of a prompt's first block ("" without one).
func textOf(prompt []acp.ContentBlock) string {
	if len(prompt) > 0 {
		if block, ok := prompt[0].(acp.ContentBlockText); ok {
			return block.TextContent.Text
		}
	}
	return ""
}
