// Coverage-guided fuzzing of the connection's receive path (`cargo xtask
// fuzz`, docs/fuzzing.md), copied into the default schema's module as an
// internal test. The fuzzer's bytes are the peer's side of a connection,
// one message a line: they go to an agent's end (`ConnectAgent`) and to a
// client's end (`ConnectClient`), each over an in-memory pipe, with a small
// handler. The client's end has called `initialize`, `session/new` and
// `session/prompt` first (ids 1 to 3), so that responses have calls to
// settle. An input fails when an end panics, does not finish within
// fuzzHang once its input ended (a hang), writes what is not a JSON-RPC
// message, writes more than fuzzOutputBound allows (unbounded growth), or
// loses a line: every non-blank line (blank: JSON whitespace only) must be
// answered, reported to `Dropped`, handed to a notification handler, or
// settle a call. Only the prompt call may end closed with its response
// taken (its turn's notifications were still being handled), so one line
// fewer may be accounted for then.
//
// The seeds are the files of the folder `ACP_FUZZ_SEEDS` names (written by
// `cargo xtask fuzz` from the hostile wire table and the real captures);
// without it the fuzz test runs on what the fuzzer stored.

package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fuzzHang is how long an end may take to finish once its input ended.
const fuzzHang = 10 * time.Second

// fuzzOutputBound is the most an end may write for `lines` messages read
// from `size` bytes: a bounded answer per message, each at most a constant
// plus a multiple of what it answers.
func fuzzOutputBound(lines, size int) (int, int) {
	return 3*lines + 8, 8*size + 2048*(lines+3)
}

// fuzzTally counts what became of the messages an end read.
type fuzzTally struct {
	handled atomic.Int64
	dropped atomic.Int64
	settled atomic.Int64
}

func (t *fuzzTally) drop(Dropped) { t.dropped.Add(1) }

// fuzzOutput is the writer an end writes into.
type fuzzOutput struct {
	mu   sync.Mutex
	text bytes.Buffer
}

func (o *fuzzOutput) Write(data []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.text.Write(data)
}

func fuzzDecode[T any, P interface {
	*T
	UnmarshalJSON([]byte) error
}](text string) T {
	var value T
	if err := P(&value).UnmarshalJSON([]byte(text)); err != nil {
		panic(text + ": " + err.Error())
	}
	return value
}

// fuzzAgent answers `initialize` (advertising session/ready and
// turn_complete), `session/new` and `session/prompt` (after one update),
// and counts every notification it is handed.
type fuzzAgent struct {
	end   *AgentConnection
	tally *fuzzTally
}

func (a fuzzAgent) Initialize(context.Context, InitializeRequest) (InitializeResponse, error) {
	return fuzzDecode[InitializeResponse](`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"ready":{},"turnComplete":{}}}}`), nil
}

func (a fuzzAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return fuzzDecode[NewSessionResponse](`{"sessionId":"s"}`), nil
}

func (a fuzzAgent) SessionPrompt(_ context.Context, params PromptRequest) (PromptResponse, error) {
	session, _ := json.Marshal(string(params.SessionId))
	update := fuzzDecode[SessionNotification](`{"sessionId":` + string(session) + `,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`)
	_ = a.end.SessionUpdate(update)
	return fuzzDecode[PromptResponse](`{"stopReason":"end_turn"}`), nil
}

func (a fuzzAgent) SessionCancel(context.Context, CancelNotification) error {
	a.tally.handled.Add(1)
	return nil
}

func (a fuzzAgent) SessionReady(context.Context, SessionReadyNotification) error {
	a.tally.handled.Add(1)
	return nil
}

func (a fuzzAgent) CancelRequest(context.Context, CancelRequestNotification) error {
	a.tally.handled.Add(1)
	return nil
}

func (a fuzzAgent) ExtensionRequest(context.Context, string, Optional[Value]) (Value, error) {
	return NullValue(), nil
}

func (a fuzzAgent) ExtensionNotification(context.Context, string, Optional[Value]) error {
	a.tally.handled.Add(1)
	return nil
}

// fuzzClient refuses permission requests (the `cancelled` outcome) and
// counts every notification it is handed.
type fuzzClient struct{ tally *fuzzTally }

func (c fuzzClient) SessionRequestPermission(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
	return fuzzDecode[RequestPermissionResponse](`{"outcome":{"outcome":"cancelled"}}`), nil
}

func (c fuzzClient) SessionUpdate(context.Context, SessionNotification) error {
	c.tally.handled.Add(1)
	return nil
}

func (c fuzzClient) CancelRequest(context.Context, CancelRequestNotification) error {
	c.tally.handled.Add(1)
	return nil
}

func (c fuzzClient) ElicitationComplete(context.Context, CompleteElicitationNotification) error {
	c.tally.handled.Add(1)
	return nil
}

func (c fuzzClient) ExtensionRequest(context.Context, string, Optional[Value]) (Value, error) {
	return NullValue(), nil
}

func (c fuzzClient) ExtensionNotification(context.Context, string, Optional[Value]) error {
	c.tally.handled.Add(1)
	return nil
}

// fuzzLines is how many lines of `input` hold more than JSON whitespace.
func fuzzLines(input []byte) int {
	count := 0
	for _, line := range bytes.Split(input, []byte("\n")) {
		if len(bytes.Trim(line, " \t\r")) > 0 {
			count++
		}
	}
	return count
}

// fuzzCheck checks what the end of `side` wrote and accounted for.
func fuzzCheck(t *testing.T, side string, input []byte, written []byte, tally *fuzzTally, allowance int) {
	lines := fuzzLines(input)
	maxLines, maxBytes := fuzzOutputBound(lines, len(input))
	if len(written) > maxBytes {
		t.Fatalf("growth: the %s's end wrote %d bytes for %d lines of %d bytes (at most %d)", side, len(written), lines, len(input), maxBytes)
	}
	answered := 0
	count := 0
	for _, line := range bytes.Split(written, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		count++
		var message map[string]json.RawMessage
		if err := json.Unmarshal(line, &message); err != nil {
			t.Fatalf("the %s's end wrote what is not a JSON object: %q: %v", side, line, err)
		}
		if string(message["jsonrpc"]) != `"2.0"` {
			t.Fatalf("the %s's end wrote what is not JSON-RPC 2.0: %q", side, line)
		}
		if _, ok := message["method"]; !ok {
			answered++
		}
	}
	if count > maxLines {
		t.Fatalf("growth: the %s's end wrote %d messages for %d lines (at most %d)", side, count, lines, maxLines)
	}
	accounted := answered + int(tally.dropped.Load()+tally.handled.Load()+tally.settled.Load())
	if accounted > lines || accounted < lines-allowance {
		t.Fatalf("the %s's end read %d messages and accounted for %d: %d answered, %d reported, %d handled, %d settled a call",
			side, lines, accounted, answered, tally.dropped.Load(), tally.handled.Load(), tally.settled.Load())
	}
}

// fuzzAgentEnd runs the input through an agent's end.
func fuzzAgentEnd(t *testing.T, input []byte) {
	tally := &fuzzTally{}
	output := &fuzzOutput{}
	reader, writer := io.Pipe()
	end := ConnectAgent(func(end *AgentConnection) Agent { return fuzzAgent{end, tally} }, reader, output, ConnectOptions{Dropped: tally.drop})
	fuzzDrive(t, "agent", end.Connection, writer, input, nil)
	end.mu.Lock()
	read := end.lines
	end.mu.Unlock()
	if lines := fuzzLines(input); int(read) != lines {
		t.Fatalf("the agent's end read %d messages from %d non-blank lines", read, lines)
	}
	fuzzCheck(t, "agent", input, output.text.Bytes(), tally, 0)
}

// fuzzClientEnd runs the input through a client's end that made its calls.
func fuzzClientEnd(t *testing.T, input []byte) {
	tally := &fuzzTally{}
	output := &fuzzOutput{}
	reader, writer := io.Pipe()
	end := ConnectClient(func(*ClientConnection) Client { return fuzzClient{tally} }, reader, output, ConnectOptions{Dropped: tally.drop})
	var calls sync.WaitGroup
	promptClosed := atomic.Bool{}
	call := func(id int64, run func(context.Context) error, prompt bool) {
		calls.Add(1)
		go func() {
			defer calls.Done()
			err := run(context.Background())
			if errors.Is(err, ErrClosed) {
				if prompt {
					promptClosed.Store(true)
				}
				return
			}
			tally.settled.Add(1)
		}()
		// The call is queued, with its id, before the next one.
		for {
			end.mu.Lock()
			next := end.nextID
			end.mu.Unlock()
			if next > id {
				return
			}
			time.Sleep(10 * time.Microsecond)
		}
	}
	fuzzDrive(t, "client", end.Connection, writer, input, func() {
		call(1, func(ctx context.Context) error {
			_, err := end.Initialize(ctx, fuzzDecode[InitializeRequest](`{"protocolVersion":1}`))
			return err
		}, false)
		call(2, func(ctx context.Context) error {
			_, err := end.SessionNew(ctx, fuzzDecode[NewSessionRequest](`{"cwd":"/","mcpServers":[]}`))
			return err
		}, false)
		call(3, func(ctx context.Context) error {
			_, err := end.SessionPrompt(ctx, fuzzDecode[PromptRequest](`{"sessionId":"s","prompt":[]}`))
			return err
		}, true)
	})
	settled := make(chan struct{})
	go func() {
		calls.Wait()
		close(settled)
	}()
	select {
	case <-settled:
	case <-time.After(fuzzHang):
		t.Fatalf("hang: the client's calls did not return within %v of the end's finish", fuzzHang)
	}
	end.mu.Lock()
	read := end.lines
	end.mu.Unlock()
	if lines := fuzzLines(input); int(read) != lines {
		t.Fatalf("the client's end read %d messages from %d non-blank lines", read, lines)
	}
	allowance := 0
	if promptClosed.Load() {
		allowance = 1
	}
	fuzzCheck(t, "client", input, output.text.Bytes(), tally, allowance)
}

// fuzzDrive runs `end` until it finishes: `calls` (when given) once it
// runs, then the input, then the input's end.
func fuzzDrive(t *testing.T, side string, end *Connection, input *io.PipeWriter, data []byte, calls func()) {
	done := make(chan error, 1)
	go func() { done <- end.Run(context.Background()) }()
	if calls != nil {
		calls()
	}
	go func() {
		_, _ = input.Write(data)
		_ = input.Close()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the %s's end failed: %v", side, err)
		}
	case <-time.After(fuzzHang):
		t.Fatalf("hang: the %s's end did not finish within %v of its input's end", side, fuzzHang)
	}
}

func FuzzConnection(f *testing.F) {
	if folder := os.Getenv("ACP_FUZZ_SEEDS"); folder != "" {
		entries, err := os.ReadDir(folder)
		if err != nil {
			f.Fatalf("reading the seeds: %v", err)
		}
		for _, entry := range entries {
			seed, err := os.ReadFile(filepath.Join(folder, entry.Name()))
			if err != nil {
				f.Fatalf("reading the seed %s: %v", entry.Name(), err)
			}
			f.Add(seed)
		}
		fmt.Fprintf(os.Stderr, "fuzz seeds: %d from %s\n", len(entries), folder)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		fuzzAgentEnd(t, input)
		fuzzClientEnd(t, input)
	})
}
