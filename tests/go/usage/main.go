// The Go bindings used as a programmer would: a small agent and client,
// each one end of a connection, joined by two pipes. The client opens a
// session and sends a prompt; the agent streams a message chunk, a tool
// call, its update with content and a plan, sends the `_zed/cursor`
// extension notification, asks the client's permission to merge and, once
// allowed, says so and answers; the client shows each update by its kind.
// `cargo xtask test` builds it in the module on the default schema (gofmt,
// go vet, staticcheck), runs it and checks what it prints;
// `../usage-official/main.go` is the same program written with
// `github.com/coder/acp-go-sdk`.
package main

import (
	"context"
	"fmt"
	"io"
	"log"

	acp "github.com/acp-codegen/acp-bindings-go"
)

type agent struct{ client *acp.AgentConnection }

func (a *agent) Initialize(_ context.Context, params acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (a *agent) SessionNew(context.Context, acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	return acp.NewSessionResponse{SessionId: "s1"}, nil
}

func text(words string) acp.ContentBlock {
	return acp.ContentBlockText{TextContent: acp.TextContent{Text: words}}
}

func message(words string) acp.SessionUpdate {
	return acp.SessionUpdateAgentMessageChunk{ContentChunk: acp.ContentChunk{Content: text(words)}}
}

func (a *agent) SessionPrompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	update := func(update acp.SessionUpdate) error {
		return a.client.SessionUpdate(acp.SessionNotification{SessionId: params.SessionId, Update: update})
	}
	call := acp.ToolCall{
		ToolCallId: "t1", Title: "git status", Kind: acp.Some(acp.ToolKindExecute), Status: acp.Some(acp.ToolCallStatusPending),
	}
	output := []acp.ToolCallContent{acp.ToolCallContentContent{Content: acp.Content{Content: text("nothing to commit")}}}
	done := acp.ToolCallUpdate{
		ToolCallId: "t1", Status: acp.Some(acp.NonNull(acp.ToolCallStatusCompleted)), Content: acp.Some(acp.NonNull(output)),
	}
	entry := acp.PlanEntry{Content: "Merge the branch", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusPending}
	updates := []acp.SessionUpdate{
		message("Looking at the branch."),
		acp.SessionUpdateToolCall{ToolCall: call},
		acp.SessionUpdateToolCallUpdate{ToolCallUpdate: done},
		acp.SessionUpdatePlan{Plan: acp.Plan{Entries: []acp.PlanEntry{entry}}},
	}
	for _, each := range updates {
		if err := update(each); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	cursor := acp.ObjectValue([]acp.Member{{Name: "line", Value: acp.NumberValue("3")}})
	if err := a.client.NotifyExtension("_zed/cursor", cursor); err != nil {
		return acp.PromptResponse{}, err
	}
	answer, err := a.client.SessionRequestPermission(ctx, acp.RequestPermissionRequest{
		SessionId: params.SessionId,
		ToolCall:  acp.ToolCallUpdate{ToolCallId: "t2", Title: acp.Some(acp.NonNull("git merge"))},
		Options:   []acp.PermissionOption{{OptionId: "allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce}},
	})
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if selected, ok := answer.Outcome.(acp.RequestPermissionOutcomeSelected); ok && selected.SelectedPermissionOutcome.OptionId == "allow" {
		if err := update(message("Merged.")); err != nil {
			return acp.PromptResponse{}, err
		}
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type client struct{}

func (client) SessionRequestPermission(_ context.Context, params acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	selected := acp.SelectedPermissionOutcome{OptionId: params.Options[0].OptionId}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcomeSelected{SelectedPermissionOutcome: selected}}, nil
}

func (client) ExtensionNotification(_ context.Context, method string, _ acp.Optional[acp.Value]) error {
	fmt.Println("extension", method)
	return nil
}

func (client) SessionUpdate(_ context.Context, params acp.SessionNotification) error {
	switch update := params.Update.(type) {
	case acp.SessionUpdateAgentMessageChunk:
		if block, ok := update.ContentChunk.Content.(acp.ContentBlockText); ok {
			fmt.Println("message", block.TextContent.Text)
		}
	case acp.SessionUpdateToolCall:
		fmt.Println("tool", update.ToolCall.Title)
	case acp.SessionUpdateToolCallUpdate:
		fmt.Println("tool update", update.ToolCallUpdate.Status.Value.Value)
	case acp.SessionUpdatePlan:
		fmt.Println("plan of", len(update.Plan.Entries))
	default:
		fmt.Printf("unknown %T\n", update)
	}
	return nil
}

func main() {
	ctx := context.Background()
	agentReads, clientWrites := io.Pipe()
	clientReads, agentWrites := io.Pipe()
	newAgent := func(end *acp.AgentConnection) acp.Agent { return &agent{client: end} }
	newClient := func(*acp.ClientConnection) acp.Client { return client{} }
	agentEnd := acp.ConnectAgent(newAgent, agentReads, agentWrites, acp.ConnectOptions{})
	clientEnd := acp.ConnectClient(newClient, clientReads, clientWrites, acp.ConnectOptions{})
	go agentEnd.Run(ctx)
	go clientEnd.Run(ctx)
	if _, err := clientEnd.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion}); err != nil {
		log.Fatal(err)
	}
	session, err := clientEnd.SessionNew(ctx, acp.NewSessionRequest{Cwd: "/repo", McpServers: []acp.McpServer{}})
	if err != nil {
		log.Fatal(err)
	}
	prompt := []acp.ContentBlock{text("Merge my branch")}
	answer, err := clientEnd.SessionPrompt(ctx, acp.PromptRequest{SessionId: session.SessionId, Prompt: prompt})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stop", answer.StopReason)
}
