// Our Go client, for the interop matrix: the same session as
// `tests/interop/rust/src/bin/client.rs`, on the generated module's
// connection. It runs the agent command given after `--` over its stdio,
// answers permission requests with the first "allow once" option, serves
// file reads and writes inside `--cwd`, prints what it saw as JSON and
// exits 0 when every prompt ended with a stop reason, else names the first
// failure. `--trace FILE` records every message.
//
//	client --cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...
package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/stdio"
)

// seen is what the agent asked of the client and sent it.
type seen struct {
	mu          sync.Mutex
	updates     map[string]int
	permissions int
	reads       int
	writes      int
}

type client struct {
	cwd  string
	seen *seen
}

// inside is `path` made absolute against the project, refused outside it.
func (c *client) inside(path string) (string, error) {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(c.cwd, path)
	}
	full = filepath.Clean(full)
	if relative, err := filepath.Rel(c.cwd, full); err != nil || relative == ".." || strings.HasPrefix(relative, "../") {
		data := acp.ObjectValue([]acp.Member{{Name: "outside", Value: acp.StringValue(full)}})
		return "", &acp.RequestError{Code: -32602, Message: "Invalid params", Data: acp.Some(data)}
	}
	return full, nil
}

func (c *client) SessionRequestPermission(_ context.Context, params acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.seen.mu.Lock()
	c.seen.permissions++
	c.seen.mu.Unlock()
	return stdio.PermissionOutcome(params.Options), nil
}

func (c *client) SessionUpdate(_ context.Context, params acp.SessionNotification) error {
	kind, _ := stdio.Member(params.Update, "sessionUpdate")
	c.seen.mu.Lock()
	defer c.seen.mu.Unlock()
	c.seen.updates[kind.Text()]++
	return nil
}

func (c *client) FsReadTextFile(_ context.Context, params acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	path, err := c.inside(params.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	c.seen.mu.Lock()
	c.seen.reads++
	c.seen.mu.Unlock()
	text := string(data)
	line, hasLine := params.Line.Value.Get()
	limit, hasLimit := params.Limit.Value.Get()
	if !hasLine && !hasLimit {
		return acp.ReadTextFileResponse{Content: text}, nil
	}
	lines := strings.Split(text, "\n")
	if hasLine && line > 1 {
		lines = lines[min(int(line)-1, len(lines)):]
	}
	if hasLimit {
		lines = lines[:min(int(limit), len(lines))]
	}
	var content strings.Builder
	for _, each := range lines {
		content.WriteString(each + "\n")
	}
	return acp.ReadTextFileResponse{Content: content.String()}, nil
}

func (c *client) FsWriteTextFile(_ context.Context, params acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	path, err := c.inside(params.Path)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	if err := os.WriteFile(path, []byte(params.Content), 0o644); err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	c.seen.mu.Lock()
	c.seen.writes++
	c.seen.mu.Unlock()
	return acp.WriteTextFileResponse{}, nil
}

// summary is what the client prints.
type summary struct {
	Agent       any              `json:"agent"`
	StopReasons []acp.StopReason `json:"stopReasons"`
	Updates     map[string]int   `json:"updates"`
	Permissions int              `json:"permissions"`
	Reads       int              `json:"reads"`
	Writes      int              `json:"writes"`
	Dropped     []string         `json:"dropped"`
}

func main() {
	options := stdio.ClientOptions("client --cwd ABSOLUTE_DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...", true)
	seen := &seen{updates: map[string]int{}}
	dropped := &stdio.Dropped{}
	handler := func(*acp.ClientConnection) acp.Client { return &client{cwd: filepath.Clean(options.Cwd), seen: seen} }
	stdio.RunClient(options, dropped, handler, func(ctx context.Context, end *acp.ClientConnection) (any, error) {
		fs := acp.FileSystemCapabilities{ReadTextFile: acp.Some(true), WriteTextFile: acp.Some(true)}
		initialized, err := end.Initialize(ctx, acp.InitializeRequest{
			ProtocolVersion:    acp.CurrentProtocolVersion,
			ClientCapabilities: acp.Some(acp.ClientCapabilities{Fs: acp.Some(fs), Terminal: acp.Some(false)}),
			ClientInfo:         acp.Some(acp.NonNull(acp.Implementation{Name: "acp-codegen interop client (Go)", Version: "0.1.0"})),
		})
		if err != nil {
			return nil, stdio.Failed("initialize", err)
		}
		if options.Authenticate != "" {
			if _, err := end.Authenticate(ctx, acp.AuthenticateRequest{MethodId: acp.AuthMethodId(options.Authenticate)}); err != nil {
				return nil, stdio.Failed("authenticate", err)
			}
		}
		session, err := end.SessionNew(ctx, acp.NewSessionRequest{Cwd: options.Cwd, McpServers: []acp.McpServer{}})
		if err != nil {
			return nil, stdio.Failed("session/new", err)
		}
		stopReasons := []acp.StopReason{}
		for _, text := range options.Prompts {
			prompt := []acp.ContentBlock{acp.ContentBlockText{TextContent: acp.TextContent{Text: text}}}
			response, err := end.SessionPrompt(ctx, acp.PromptRequest{SessionId: session.SessionId, Prompt: prompt})
			if err != nil {
				return nil, stdio.Failed("session/prompt", err)
			}
			stopReasons = append(stopReasons, response.StopReason)
		}
		var agent any
		if info, ok := initialized.AgentInfo.Value.Get(); ok {
			agent = info
		}
		seen.mu.Lock()
		defer seen.mu.Unlock()
		return summary{agent, stopReasons, seen.updates, seen.permissions, seen.reads, seen.writes, dropped.List()}, nil
	})
}
