package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	acp "github.com/acp-codegen/acp-bindings-go"
)

// Dropped is what a connection dropped (`ConnectOptions.Dropped`), each
// as `method: message`.
type Dropped struct {
	mu   sync.Mutex
	list []string
}

// Report is the connection's `Dropped` option.
func (d *Dropped) Report(dropped acp.Dropped) {
	method, ok := dropped.Method.Get()
	if !ok {
		method = "(a response)"
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, method+": "+dropped.Error.Message)
}

// List is what was dropped so far (empty, not nil, when nothing was).
func (d *Dropped) List() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string{}, d.list...)
}

// Failed names the call `what` that failed with `err`, with the data of
// the peer's error when it has some.
func Failed(what string, err error) error {
	var failure *acp.RequestError
	if errors.As(err, &failure) {
		if data, ok := failure.Data.Get(); ok {
			text, _ := data.MarshalJSON()
			return fmt.Errorf("%s: %s %s", what, failure.Message, text)
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// PermissionOutcome is the answer to a permission request offering
// `options`: the first "allow once" option (else the first), or
// `cancelled` without options.
func PermissionOutcome(options []acp.PermissionOption) acp.RequestPermissionResponse {
	if len(options) == 0 {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcomeCancelled{}}
	}
	chosen := options[0]
	for _, option := range options {
		if option.Kind == acp.PermissionOptionKindAllowOnce {
			chosen = option
			break
		}
	}
	selected := acp.SelectedPermissionOutcome{OptionId: chosen.OptionId}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcomeSelected{SelectedPermissionOutcome: selected}}
}

// Member is the member `name` of `value` as the bindings write it (a
// union's tag, which its Go type names only by its variant's type).
func Member(value any, name string) (acp.Value, bool) {
	text, err := json.Marshal(value)
	if err != nil {
		return acp.Value{}, false
	}
	parsed, err := acp.Parse(text)
	if err != nil {
		return acp.Value{}, false
	}
	return parsed.Member(name)
}

// RunClient runs the agent command of `options` in a process group of its
// own, connects a client's end with the handlers `handler` makes to it,
// plays the session (`play` returns the summary printed as JSON) and exits
// 0, or 1 naming the first failure and what the connection dropped; the
// agent's group is killed either way.
func RunClient(options Options, dropped *Dropped, handler func(*acp.ClientConnection) acp.Client, play func(context.Context, *acp.ClientConnection) (any, error)) {
	trace, err := NewTrace(options.Trace)
	if err != nil {
		fail(err)
	}
	agent := exec.Command(options.Agent[0], options.Agent[1:]...)
	agent.Dir = options.Cwd
	agent.Stderr = os.Stderr
	agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := agent.StdinPipe()
	if err != nil {
		fail(err)
	}
	stdout, err := agent.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := agent.Start(); err != nil {
		fail(fmt.Errorf("starting the agent %q: %w", options.Agent[0], err))
	}
	stop := func() { _ = syscall.Kill(-agent.Process.Pid, syscall.SIGKILL) }
	end := acp.ConnectClient(handler, trace.Reader(stdout, AgentToClient), trace.Writer(stdin, ClientToAgent), acp.ConnectOptions{Dropped: dropped.Report})
	ctx := context.Background()
	go func() {
		if err := end.Run(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "reading the agent: %v\n", err)
		}
	}()
	summary, err := play(ctx, end)
	if err != nil {
		stop()
		list, _ := json.Marshal(dropped.List())
		fmt.Fprintf(os.Stderr, "FAIL: %v (dropped: %s)\n", err, list)
		os.Exit(1)
	}
	text, err := json.Marshal(summary)
	if err != nil {
		stop()
		fail(fmt.Errorf("writing the summary: %w", err))
	}
	fmt.Println(string(text))
	stop()
	os.Exit(0)
}

// ServeAgent serves an agent's end with the handlers `handler` makes over
// this process's stdio, recording every message to `ACP_INTEROP_TRACE`
// when it is set; exits when the client closes its side.
func ServeAgent(handler func(*acp.AgentConnection) acp.Agent) {
	trace, err := NewTrace(os.Getenv("ACP_INTEROP_TRACE"))
	if err != nil {
		fail(err)
	}
	end := acp.ConnectAgent(handler, trace.Reader(os.Stdin, ClientToAgent), trace.Writer(os.Stdout, AgentToClient), acp.ConnectOptions{})
	if err := end.Run(context.Background()); err != nil {
		fail(fmt.Errorf("reading the client: %w", err))
	}
	os.Exit(0)
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
	os.Exit(1)
}
