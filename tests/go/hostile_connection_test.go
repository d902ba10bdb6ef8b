// Hostile wire input through the module's connection, for
// `hostile_wire_test.go`: a case's wire text sent as the params of one
// message (or, a `line` case, as the whole line) to one end
// (`ConnectAgent` / `ConnectClient`, an agent's end after `initialize`
// unless the case says otherwise), whose answer, `Dropped` report and
// handler calls must be what the table's `connection` states for Go. Go's
// connection reads a whole message with `Parse`, whose depth limit counts
// from the message, so that text nested deeper, and text `Parse` refuses
// (a number beyond a double, a lone escaped surrogate, invalid UTF-8),
// answers -32700 as Rust's does.

package acp

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// seenParams keeps what the handlers were given, encoded.
type seenParams struct {
	mu   sync.Mutex
	seen []Value
}

func (s *seenParams) push(value interface{ MarshalJSON() ([]byte, error) }) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, err := value.MarshalJSON()
	if err != nil {
		panic(err)
	}
	parsed, err := Parse(text)
	if err != nil {
		panic(err)
	}
	s.seen = append(s.seen, parsed)
}

type hostileAgent struct{ *seenParams }

func (hostileAgent) Initialize(context.Context, InitializeRequest) (InitializeResponse, error) {
	return InitializeResponse{ProtocolVersion: 1}, nil
}

func (hostileAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return NewSessionResponse{}, methodNotFound(MethodSessionNew)
}

func (a hostileAgent) SessionPrompt(_ context.Context, params PromptRequest) (PromptResponse, error) {
	a.push(params)
	return PromptResponse{StopReason: StopReasonEndTurn}, nil
}

type hostileClient struct{ *seenParams }

func (hostileClient) SessionRequestPermission(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
	return RequestPermissionResponse{}, methodNotFound(MethodSessionRequestPermission)
}

func (c hostileClient) SessionUpdate(_ context.Context, params SessionNotification) error {
	c.push(params)
	return nil
}

func (c hostileClient) TerminalCreate(_ context.Context, params CreateTerminalRequest) (CreateTerminalResponse, error) {
	c.push(params)
	return CreateTerminalResponse{TerminalId: "t"}, nil
}

// syncBuffer is a writer the test reads once the end returned.
type syncBuffer struct {
	mu     sync.Mutex
	buffer bytes.Buffer
}

func (b *syncBuffer) has(part string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Contains(b.buffer.Bytes(), []byte(part))
}

func (b *syncBuffer) Write(data []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buffer.Write(data)
}

// checkHostileConnection sends the case to an end of its side.
func checkHostileConnection(t *testing.T, hostile hostileCase, expected hostileExpected) {
	wire := hostile.bytes(t)
	initializeFirst := hostile.Side == "agent" && (hostile.Initialized == nil || *hostile.Initialized) && !hostile.Line
	id := ""
	if hostile.Kind == "request" {
		id = `"id":7,`
	}
	message := []byte(`{"jsonrpc":"2.0",` + id + `"method":` + strconv.Quote(hostile.Method) + `,"params":`)
	message = append(append(message, wire...), "}\n"...)
	if hostile.Line {
		message = append(slices.Clone(wire), '\n')
	}
	seen := &seenParams{}
	var droppedMu sync.Mutex
	var dropped []Dropped
	written := &syncBuffer{}
	options := ConnectOptions{Dropped: func(report Dropped) {
		droppedMu.Lock()
		defer droppedMu.Unlock()
		dropped = append(dropped, report)
	}}
	reader, input := io.Pipe()
	var run func(context.Context) error
	if hostile.Side == "agent" {
		run = ConnectAgent(func(*AgentConnection) Agent { return hostileAgent{seen} }, reader, written, options).Run
	} else {
		run = ConnectClient(func(*ClientConnection) Client { return hostileClient{seen} }, reader, written, options).Run
	}
	done := make(chan error, 1)
	go func() { done <- run(context.Background()) }()
	if initializeFirst {
		// The case's message once `initialize` was answered.
		if _, err := input.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n")); err != nil {
			t.Fatal(err)
		}
		for !written.has(`"id":0,`) {
			time.Sleep(time.Millisecond)
		}
	}
	if _, err := input.Write(message); err != nil {
		t.Fatal(err)
	}
	input.Close()
	if err := <-done; err != nil {
		t.Fatalf("the end did not read its input to the end: %v", err)
	}
	var errors []Value
	var answers []Value
	for _, line := range bytes.Split(written.buffer.Bytes(), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		answer, err := Parse(line)
		if err != nil {
			t.Fatalf("the end wrote %s: %v", line, err)
		}
		if id, _ := answer.Member("id"); initializeFirst && idKey(id) == "0" {
			continue
		}
		answers = append(answers, answer)
		if failure, ok := answer.Member("error"); ok {
			errors = append(errors, failure)
		}
	}
	droppedMu.Lock()
	reported := slices.Clone(dropped)
	droppedMu.Unlock()
	for _, report := range reported {
		errors = append(errors, report.Error.JSON())
	}
	if expected.Connection.Code == nil {
		if len(errors) != 0 || len(seen.seen) != 1 {
			t.Fatalf("an error for a message the handler should get: %v, handled %d", errors, len(seen.seen))
		}
		if !sameReadingOf(t, seen.seen[0], hostileWanted(expected, wire)) {
			t.Fatalf("the handler got another value")
		}
		return
	}
	if len(seen.seen) != 0 || len(errors) != 1 {
		t.Fatalf("handled %d, errors %v", len(seen.seen), errors)
	}
	code, _ := errors[0].Member("code")
	if message, _ := errors[0].Member("message"); code.Text() != strconv.FormatInt(*expected.Connection.Code, 10) {
		t.Fatalf("answered %s %s", code.Text(), message.Text())
	}
	if expected.Connection.Pointer != nil {
		data, _ := errors[0].Member("data")
		pointer, _ := data.Member("pointer")
		if got, want := pointer.Text(), hostilePointer(t, expected.Connection.Pointer); got != want {
			t.Fatalf("the pointer %q, not %q", got, want)
		}
	}
	if hostile.Kind == "request" && *expected.Connection.Code != codeParseError {
		if id, _ := answers[0].Member("id"); idKey(id) != "7" {
			t.Fatal("the answer does not name the request")
		}
	}
	if len(reported) > 0 {
		line := uint64(1)
		if initializeFirst {
			line = 2
		}
		if reported[0].Line != line {
			t.Fatalf("the report names the line %d, not %d", reported[0].Line, line)
		}
	}
}
