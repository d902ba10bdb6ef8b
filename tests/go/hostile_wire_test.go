// Hostile wire input through the module's connection: every case of
// `tests/hostile-wire.json` (copied into `testdata/` by `cargo xtask
// test`) sent as the params of one message (or, a `line` case, as the
// whole line) to one end (`ConnectAgent` /
// `ConnectClient`, an agent's end after `initialize` unless the case says
// otherwise), whose answer, `Dropped` report and handler calls must be
// what the table's `connection` states for Go. Go's connection reads a
// whole message with `Parse`, whose depth limit counts from the message,
// so that text nested deeper, and text `Parse` refuses (a lone escaped
// surrogate, invalid UTF-8), answers -32700 as Rust's does.

package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

type hostileCase struct {
	Name        string `json:"name"`
	Method      string `json:"method"`
	Side        string `json:"side"`
	Kind        string `json:"kind"`
	Initialized *bool  `json:"initialized"`
	Line        bool   `json:"line"`
	Wire        struct {
		Template string `json:"template"`
		Fill     *struct {
			Nest   int    `json:"nest"`
			String string `json:"string"`
			Text   string `json:"text"`
			Times  int    `json:"times"`
			Bytes  string `json:"bytes"`
		} `json:"fill"`
	} `json:"wire"`
	Expect map[string]json.RawMessage `json:"expect"`
}

type hostileConnection struct {
	Connection *struct {
		Code    *int64          `json:"code"`
		Pointer json.RawMessage `json:"pointer"`
	} `json:"connection"`
}

// bytes is the case's wire text: its template with `@` filled.
func (c hostileCase) bytes(t *testing.T) []byte {
	before, after, _ := strings.Cut(c.Wire.Template, "@")
	out := []byte(before)
	if fill := c.Wire.Fill; fill != nil {
		switch {
		case fill.Nest > 0:
			out = append(out, bytes.Repeat([]byte("["), fill.Nest)...)
			out = append(out, '1')
			out = append(out, bytes.Repeat([]byte("]"), fill.Nest)...)
		case fill.String != "":
			out = append(out, '"')
			out = append(out, strings.Repeat(fill.String, fill.Times)...)
			out = append(out, '"')
		case fill.Text != "":
			out = append(out, strings.Repeat(fill.Text, max(fill.Times, 1))...)
		case fill.Bytes != "":
			for at := 0; at+2 <= len(fill.Bytes); at += 2 {
				b, err := strconv.ParseUint(fill.Bytes[at:at+2], 16, 8)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, byte(b))
			}
		}
	}
	return append(out, after...)
}

// hostilePointer is a JSON pointer as the table writes it: a string, a
// `json` string literal, or `prefix` then `repeat` `times` times.
func hostilePointer(t *testing.T, raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var spec struct {
		JSON   string `json:"json"`
		Prefix string `json:"prefix"`
		Repeat string `json:"repeat"`
		Times  int    `json:"times"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.JSON != "" {
		return spec.JSON
	}
	return spec.Prefix + strings.Repeat(spec.Repeat, spec.Times)
}

// seenParams keeps what the handlers were given, encoded.
type seenParams struct {
	mu   sync.Mutex
	seen []Value
}

func (s *seenParams) push(value interface{ MarshalJSON() ([]byte, error) }) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, jsonOf(value))
}

type hostileAgent struct{ *seenParams }

func (hostileAgent) Initialize(context.Context, InitializeRequest) (InitializeResponse, error) {
	return decodeAs[InitializeResponse](`{"protocolVersion":1}`), nil
}

func (hostileAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return NewSessionResponse{}, methodNotFound(MethodSessionNew)
}

func (a hostileAgent) SessionPrompt(_ context.Context, params PromptRequest) (PromptResponse, error) {
	a.push(params)
	return decodeAs[PromptResponse](`{"stopReason":"end_turn"}`), nil
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
	return decodeAs[CreateTerminalResponse](`{"terminalId":"t"}`), nil
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

func TestEveryHostileCaseGivesItsDocumentedConnectionOutcome(t *testing.T) {
	text, err := os.ReadFile("testdata/hostile-wire.json")
	if err != nil {
		t.Fatalf("reading the hostile wire table: %v", err)
	}
	var table struct {
		Cases []hostileCase `json:"cases"`
	}
	if err := json.Unmarshal(text, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Cases) < 20 {
		t.Fatal("the table lost cases")
	}
	for _, hostile := range table.Cases {
		t.Run(hostile.Name, func(t *testing.T) {
			var expected hostileConnection
			if err := json.Unmarshal(hostile.Expect["go"], &expected); err != nil || expected.Connection == nil {
				t.Fatalf("the table gives no connection outcome for Go")
			}
			checkHostile(t, hostile, expected)
		})
	}
}

func checkHostile(t *testing.T, hostile hostileCase, expected hostileConnection) {
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
	dropped := &reports{}
	written := &syncBuffer{}
	options := ConnectOptions{Dropped: dropped.add}
	reader, input := io.Pipe()
	var run func(context.Context) error
	if hostile.Side == "agent" {
		run = ConnectAgent(func(*AgentConnection) Agent { return hostileAgent{seen} }, reader, written, options).Run
	} else {
		run = ConnectClient(func(*ClientConnection) Client { return hostileClient{seen} }, reader, written, options).Run
	}
	done := running(context.Background(), run)
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
		if initializeFirst && idKey(at(answer, "id")) == "0" {
			continue
		}
		answers = append(answers, answer)
		if failure, ok := answer.Member("error"); ok {
			errors = append(errors, failure)
		}
	}
	for _, report := range dropped.all() {
		errors = append(errors, report.Error.JSON())
	}
	if expected.Connection.Code == nil {
		if len(errors) != 0 || len(seen.seen) != 1 {
			t.Fatalf("an error for a message the handler should get: %v, handled %d", errors, len(seen.seen))
		}
		wanted, err := Parse(wire)
		if err != nil {
			t.Fatal(err)
		}
		if !equal(seen.seen[0], wanted) {
			t.Fatalf("the handler got another value")
		}
		return
	}
	if len(seen.seen) != 0 || len(errors) != 1 {
		t.Fatalf("handled %d, errors %v", len(seen.seen), errors)
	}
	if code := at(errors[0], "code").Text(); code != strconv.FormatInt(*expected.Connection.Code, 10) {
		t.Fatalf("answered %s %s", code, at(errors[0], "message").Text())
	}
	if expected.Connection.Pointer != nil {
		if got, want := at(errors[0], "data", "pointer").Text(), hostilePointer(t, expected.Connection.Pointer); got != want {
			t.Fatalf("the pointer %q, not %q", got, want)
		}
	}
	if hostile.Kind == "request" && *expected.Connection.Code != codeParseError && idKey(at(answers[0], "id")) != "7" {
		t.Fatal("the answer does not name the request")
	}
	if reported := dropped.all(); len(reported) > 0 {
		line := uint64(1)
		if initializeFirst {
			line = 2
		}
		if reported[0].Line != line {
			t.Fatalf("the report names the line %d, not %d", reported[0].Line, line)
		}
	}
}
