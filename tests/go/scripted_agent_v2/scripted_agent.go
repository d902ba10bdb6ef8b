// Package scriptedagent is the Go test agent on protocol v2: the one
// implementation of the v2 stable module's `Agent` interface that the
// connection's race tests (`tests/go/connection_v2_test.go`) and the
// interop agent (`tests/interop/go/cmd/agent_v2`) serve. `cargo xtask`
// copies it into each of their modules as `internal/scriptedagent`. Its v1
// counterpart is `tests/go/scripted_agent/`.
//
// The agent New returns opens a session per `session/new` (`session-1`,
// `session-2`, ...), answers `session/list`, `session/resume` and
// `session/close` (`session` offers them with `session/new` and
// `session/prompt`: the end advertises it only when the agent answers them
// all), and answers a prompt on any other session with resource-not-found.
// A prompt is acknowledged at once (`running`, then the response with the
// prompt's message id) and its turn, one of Turn, is played after and ended
// by `idle` (`error` when a call failed). Each program sets the Options it
// needs; the rest are inert.
package scriptedagent

import (
	"context"
	"fmt"
	"os"
	"sync"

	acp "github.com/acp-codegen/acp-bindings-go"
)

// Turn is what a prompt plays.
type Turn int

const (
	// Echo sends chunks of the prompt's first text, "<text> part <n>", as
	// many as Options.Chunks says, all answering the message
	// `reply-<text>`; the prompt's message id is `message-<text>`.
	Echo Turn = iota
	// Notes is the interop turn on `notes.txt`: the prompt echoed as the
	// user's message, a chunk, a tool call in progress, a permission
	// request on it, the tool call's end (completed when allowed, else
	// failed), a closing chunk. The prompts' message ids are `message-1`,
	// `message-2`, ...
	Notes
)

// Options are the agent's choices, each for the program that needs it.
type Options struct {
	// Info is the agent's name and version in its `initialize` answer
	// ("acp-codegen test agent (Go)" 0.1.0 when nil).
	Info *acp.Implementation
	// Capabilities is what its `initialize` answer advertises (none when
	// nil).
	Capabilities *acp.AgentCapabilities
	Turn         Turn
	// Chunks is the Echo turn's chunks (1 when nil).
	Chunks func() int
	// EarlyIdle is whether a prompt sends an `idle` snapshot (the state
	// before the turn starts, not its end) before its `running` (no when
	// nil).
	EarlyIdle func() bool
	// Pause is called before each Echo chunk, with at most 3 yields (the
	// race tests' random waits).
	Pause func(most int)
	// Played is told when an Echo turn sent all its chunks: its text and
	// chunks.
	Played func(text string, chunks int)
	// Work is where the turns run, so that a test can wait for them (a
	// group of the agent's own when nil).
	Work *sync.WaitGroup
}

// Agent is the test agent on one connection's agent end.
type Agent struct {
	end      *acp.AgentConnection
	options  Options
	mu       sync.Mutex
	sessions map[acp.SessionId]bool
	messages int
}

// New is the test agent on `end`, with `options`.
func New(end *acp.AgentConnection, options Options) *Agent {
	if options.Info == nil {
		options.Info = &acp.Implementation{Name: "acp-codegen test agent (Go)", Version: "0.1.0"}
	}
	if options.Chunks == nil {
		options.Chunks = func() int { return 1 }
	}
	if options.EarlyIdle == nil {
		options.EarlyIdle = func() bool { return false }
	}
	if options.Pause == nil {
		options.Pause = func(int) {}
	}
	if options.Played == nil {
		options.Played = func(string, int) {}
	}
	if options.Work == nil {
		options.Work = &sync.WaitGroup{}
	}
	return &Agent{end: end, options: options, sessions: map[acp.SessionId]bool{}}
}

func (a *Agent) Initialize(context.Context, acp.InitializeRequest) (acp.InitializeResponse, error) {
	response := acp.InitializeResponse{ProtocolVersion: acp.CurrentProtocolVersion, Info: *a.options.Info}
	if a.options.Capabilities != nil {
		response.Capabilities = acp.Some(*a.options.Capabilities)
	}
	return response, nil
}

func (a *Agent) SessionNew(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := acp.SessionId(fmt.Sprintf("session-%d", len(a.sessions)+1))
	a.sessions[id] = true
	return acp.NewSessionResponse{SessionId: id}, nil
}

func (a *Agent) SessionList(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}

func (a *Agent) SessionResume(_ context.Context, params acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.sessions[params.SessionId] {
		return acp.ResumeSessionResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	return acp.ResumeSessionResponse{}, nil
}

func (a *Agent) SessionClose(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *Agent) SessionPrompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	a.mu.Lock()
	known := a.sessions[params.SessionId]
	a.messages++
	messages := a.messages
	a.mu.Unlock()
	if !known {
		return acp.PromptResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	session, text := params.SessionId, textOf(params.Prompt)
	messageID := acp.MessageId("message-" + text)
	if a.options.Turn == Notes {
		messageID = acp.MessageId(fmt.Sprintf("message-%d", messages))
	}
	if a.options.EarlyIdle() {
		if err := a.update(session, acp.SessionUpdateStateUpdate{StateUpdate: acp.StateUpdateIdle{}}); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	if err := a.update(session, acp.SessionUpdateStateUpdate{StateUpdate: acp.StateUpdateRunning{}}); err != nil {
		return acp.PromptResponse{}, err
	}
	// The turn outlives the handler, whose ctx ends with its answer.
	turn := context.WithoutCancel(ctx)
	a.options.Work.Go(func() {
		var err error
		if a.options.Turn == Notes {
			err = a.notes(turn, session, params.Prompt, messageID)
		} else {
			err = a.echo(session, text)
		}
		var stopReason acp.IdleStateUpdateStopReason = acp.IdleStateUpdateStopReasonEndTurn{}
		if err != nil {
			fmt.Fprintf(os.Stderr, "the turn of %s failed: %v\n", messageID, err)
			stopReason = acp.IdleStateUpdateStopReasonError{}
		}
		idle := acp.StateUpdateIdle{IdleStateUpdate: acp.IdleStateUpdate{StopReason: stopReason}}
		if err := a.update(session, acp.SessionUpdateStateUpdate{StateUpdate: idle}); err != nil {
			fmt.Fprintf(os.Stderr, "the idle of %s: %v\n", messageID, err)
		}
	})
	return acp.PromptResponse{MessageId: messageID}, nil
}

func (a *Agent) update(session acp.SessionId, update acp.SessionUpdate) error {
	return a.end.SessionUpdate(acp.UpdateSessionNotification{SessionId: session, Update: update})
}

func (a *Agent) chunk(session acp.SessionId, message acp.MessageId, words string) error {
	content := acp.ContentBlockText{TextContent: acp.TextContent{Text: words}}
	return a.update(session, acp.SessionUpdateAgentMessageChunk{ContentChunk: acp.ContentChunk{MessageId: message, Content: content}})
}

// echo is the Echo turn of the prompt `prompt`.
func (a *Agent) echo(session acp.SessionId, prompt string) error {
	chunks := a.options.Chunks()
	for index := range chunks {
		a.options.Pause(3)
		if err := a.chunk(session, acp.MessageId("reply-"+prompt), fmt.Sprintf("%s part %d", prompt, index)); err != nil {
			return err
		}
	}
	a.options.Played(prompt, chunks)
	return nil
}

// notes is the Notes turn of the prompt `prompt`, the message `messageID`.
func (a *Agent) notes(ctx context.Context, session acp.SessionId, prompt []acp.ContentBlock, messageID acp.MessageId) error {
	reply := acp.MessageId("reply-to-" + string(messageID))
	echoed := acp.UserMessage{MessageId: messageID, Content: acp.Some(acp.NonNull(prompt))}
	if err := a.update(session, acp.SessionUpdateUserMessage{UserMessage: echoed}); err != nil {
		return err
	}
	if err := a.chunk(session, reply, "Editing notes.txt."); err != nil {
		return err
	}
	editing := acp.ToolCallUpdate{
		ToolCallId: "call-1",
		Title:      acp.Some(acp.NonNull("Edit notes.txt")),
		Kind:       acp.Some(acp.NonNull(acp.ToolKindEdit)),
		Status:     acp.Some(acp.NonNull(acp.ToolCallStatusInProgress)),
	}
	if err := a.update(session, acp.SessionUpdateToolCallUpdate{ToolCallUpdate: editing}); err != nil {
		return err
	}
	subject := acp.RequestPermissionSubjectToolCall{ToolCallPermissionSubject: acp.ToolCallPermissionSubject{ToolCall: acp.ToolCallUpdate{ToolCallId: "call-1"}}}
	answer, err := a.end.SessionRequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: session,
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
	if err := a.update(session, acp.SessionUpdateToolCallUpdate{ToolCallUpdate: acp.ToolCallUpdate{ToolCallId: "call-1", Status: acp.Some(acp.NonNull(status))}}); err != nil {
		return err
	}
	return a.chunk(session, reply, closing)
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
