// The program of `../usage/main.go` written with
// `github.com/coder/acp-go-sdk` (at the pin of `cargo xtask bench`), kept
// to compare the two: the same agent, client, messages and output. Its
// `Agent` and `Client` interfaces name every stable method of a side, so
// the methods this program does not use answer method-not-found, as the
// generated dispatchers answer a method an implementation leaves out.
// `cargo xtask test` builds it in a module of its own on the default schema
// (gofmt, go vet, staticcheck), runs it and checks what it prints.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"

	"github.com/coder/acp-go-sdk"
)

type agent struct{ client *acp.AgentSideConnection }

func (a *agent) Initialize(_ context.Context, params acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (a *agent) NewSession(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: "s1"}, nil
}

func (a *agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, acp.NewMethodNotFound(acp.AgentMethodAuthenticate)
}

func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

func (a *agent) Prompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	update := func(update acp.SessionUpdate) error {
		return a.client.SessionUpdate(ctx, acp.SessionNotification{SessionId: params.SessionId, Update: update})
	}
	output := []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("nothing to commit"))}
	entry := acp.PlanEntry{Content: "Merge the branch", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusPending}
	updates := []acp.SessionUpdate{
		acp.UpdateAgentMessageText("Looking at the branch."),
		acp.StartToolCall("t1", "git status", acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending)),
		acp.UpdateToolCall("t1", acp.WithUpdateStatus(acp.ToolCallStatusCompleted), acp.WithUpdateContent(output)),
		acp.UpdatePlan(entry),
	}
	for _, each := range updates {
		if err := update(each); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	if err := a.client.NotifyExtension(ctx, "_zed/cursor", map[string]any{"line": 3}); err != nil {
		return acp.PromptResponse{}, err
	}
	answer, err := a.client.RequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: params.SessionId,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "t2", Title: acp.Ptr("git merge")},
		Options:   []acp.PermissionOption{{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}},
	})
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if answer.Outcome.Selected != nil && answer.Outcome.Selected.OptionId == "allow" {
		if err := update(acp.UpdateAgentMessageText("Merged.")); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type client struct{}

func (client) RequestPermission(_ context.Context, params acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeSelected(params.Options[0].OptionId)}, nil
}

func (client) HandleExtensionMethod(_ context.Context, method string, _ json.RawMessage) (any, error) {
	fmt.Println("extension", method)
	return nil, nil
}

func (client) SessionUpdate(_ context.Context, params acp.SessionNotification) error {
	switch update := params.Update; {
	case update.AgentMessageChunk != nil:
		if block := update.AgentMessageChunk.Content.Text; block != nil {
			fmt.Println("message", block.Text)
		}
	case update.ToolCall != nil:
		fmt.Println("tool", update.ToolCall.Title)
	case update.ToolCallUpdate != nil:
		fmt.Println("tool update", *update.ToolCallUpdate.Status)
	case update.Plan != nil:
		fmt.Println("plan of", len(update.Plan.Entries))
	default:
		fmt.Printf("unknown %+v\n", update)
	}
	return nil
}

func (client) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

func (client) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

func (client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

func main() {
	ctx := context.Background()
	agentReads, clientWrites := io.Pipe()
	clientReads, agentWrites := io.Pipe()
	server := &agent{}
	server.client = acp.NewAgentSideConnection(server, agentWrites, agentReads)
	clientEnd := acp.NewClientSideConnection(client{}, clientWrites, clientReads)
	if _, err := clientEnd.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		log.Fatal(err)
	}
	session, err := clientEnd.NewSession(ctx, acp.NewSessionRequest{Cwd: "/repo", McpServers: []acp.McpServer{}})
	if err != nil {
		log.Fatal(err)
	}
	prompt := []acp.ContentBlock{acp.TextBlock("Merge my branch")}
	answer, err := clientEnd.Prompt(ctx, acp.PromptRequest{SessionId: session.SessionId, Prompt: prompt})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stop", answer.StopReason)
}
