// Hostile wire input through the module's decoders: every case of
// `tests/hostile-wire.json` (copied into `testdata/` by `cargo xtask
// test`) decoded as its type (`Roundtrip` on the wire text) and by method
// on its side (the side's `Dispatch...` function, with an implementation
// that also handles extension methods), each giving the outcome the table
// states for Go; then through one end of a connection
// (`hostile_connection_test.go`). Every Go decoder reads text with
// `Parse`, so the limits of codegen/DECODING.md are errors at their JSON
// pointer before the schema's rules; text `Parse` refuses as a whole
// (invalid UTF-8) is a parse error without a pointer.

package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

type hostileCase struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
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
		Exact bool `json:"exact"`
	} `json:"wire"`
	Expect map[string]json.RawMessage `json:"expect"`
}

// hostileExpected is what the table states for Go: the decoders'
// outcome and the connection's.
type hostileExpected struct {
	Outcome    string          `json:"outcome"`
	Pointer    json.RawMessage `json:"pointer"`
	Encodes    *string         `json:"encodes"`
	Message    string          `json:"message"`
	Connection *struct {
		Code    *int64          `json:"code"`
		Pointer json.RawMessage `json:"pointer"`
	} `json:"connection"`
}

type hostileTable struct {
	MaxDepth int           `json:"maxDepth"`
	Cases    []hostileCase `json:"cases"`
}

func readHostileTable(t *testing.T) hostileTable {
	text, err := os.ReadFile("testdata/hostile-wire.json")
	if err != nil {
		t.Fatalf("reading the hostile wire table: %v", err)
	}
	var table hostileTable
	if err := json.Unmarshal(text, &table); err != nil {
		t.Fatalf("testdata/hostile-wire.json: %v", err)
	}
	return table
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

// hostileWanted is the JSON text an accepted case re-encodes to:
// `encodes`, else the wire text itself.
func hostileWanted(expected hostileExpected, wire []byte) []byte {
	if expected.Encodes != nil {
		return []byte(*expected.Encodes)
	}
	return wire
}

// sameReading is whether the JSON texts are the same JSON, object member
// order aside, read by `encoding/json` with numbers as their literal text:
// a reading of its own, so that a module whose `Parse` changed a number
// or a member would not agree with itself.
func sameReading(t *testing.T, left, right []byte) bool {
	if bytes.Equal(left, right) {
		return true
	}
	read := func(text []byte) any {
		decoder := json.NewDecoder(bytes.NewReader(text))
		decoder.UseNumber()
		var value any
		if err := decoder.Decode(&value); err != nil {
			t.Fatalf("%.200s: %v", text, err)
		}
		return value
	}
	return reflect.DeepEqual(read(left), read(right))
}

// sameReadingOf is whether `value` is the JSON text `text`.
func sameReadingOf(t *testing.T, value Value, text []byte) bool {
	encoded, err := value.MarshalJSON()
	return err == nil && sameReading(t, encoded, text)
}

func TestEveryHostileCaseGivesItsDocumentedOutcome(t *testing.T) {
	table := readHostileTable(t)
	if len(table.Cases) < 20 {
		t.Fatal("the table lost cases")
	}
	for _, hostile := range table.Cases {
		t.Run(hostile.Name, func(t *testing.T) {
			var expected hostileExpected
			if err := json.Unmarshal(hostile.Expect["go"], &expected); err != nil || expected.Connection == nil {
				t.Fatalf("the table gives no connection outcome for Go")
			}
			// A whole line states only what a connection does with it.
			if hostile.Line {
				if expected.Outcome != "" {
					t.Fatalf("a whole line states a decoder outcome %q", expected.Outcome)
				}
			} else {
				checkHostileDecoders(t, hostile, expected)
			}
			checkHostileConnection(t, hostile, expected)
		})
	}
}

func TestTheTablesDepthLimitIsTheDecoders(t *testing.T) {
	table := readHostileTable(t)
	if table.MaxDepth != MaxDepth {
		t.Fatalf("the table's depth limit %d is not the module's %d", table.MaxDepth, MaxDepth)
	}
	nest := func(depth int) []byte { return []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth)) }
	if _, err := Roundtrip("ExtRequest", nest(table.MaxDepth)); err != nil {
		t.Fatalf("%d levels: %v", table.MaxDepth, err)
	}
	_, err := Roundtrip("ExtRequest", nest(table.MaxDepth+1))
	var decodeError *DecodeError
	if !errors.As(err, &decodeError) || decodeError.Pointer != strings.Repeat("/0", table.MaxDepth) {
		t.Fatalf("%d levels: %v", table.MaxDepth+1, err)
	}
}

func TestAPeerSendingEverNewMemberNamesDoesNotGrowTheParser(t *testing.T) {
	p := &parser{}
	for index := range 3 * maxNames {
		name := "member" + strconv.Itoa(index)
		if got := p.name([]byte(name)); got != name {
			t.Fatalf("name %q read as %q", name, got)
		}
	}
	if len(p.names) != maxNames {
		t.Fatalf("the parser remembers %d names, its bound is %d", len(p.names), maxNames)
	}
	// Objects nested in objects and arrays keep their own members, the last
	// of a repeated name winning, on a parser taken from the pool again.
	for range 3 {
		value, err := Parse([]byte(`{"a":[{"a":1,"b":2,"a":3},{}],"b":{"c":[[],[4]]},"a":[5]}`))
		if err != nil {
			t.Fatal(err)
		}
		text, err := value.MarshalJSON()
		if err != nil || string(text) != `{"a":[5],"b":{"c":[[],[4]]}}` {
			t.Fatalf("read back as %s (%v)", text, err)
		}
	}
}

// extensionCall is an extension method's call as its handler got it.
type extensionCall struct {
	method string
	params Optional[Value]
}

// extensionCalls records the calls of extension methods; the dispatchers
// call handlers on the caller's goroutine.
type extensionCalls struct{ calls []extensionCall }

func (e *extensionCalls) ExtensionRequest(_ context.Context, method string, params Optional[Value]) (Value, error) {
	e.calls = append(e.calls, extensionCall{method, params})
	return NullValue(), nil
}

func (e *extensionCalls) ExtensionNotification(_ context.Context, method string, params Optional[Value]) error {
	e.calls = append(e.calls, extensionCall{method, params})
	return nil
}

// byMethod dispatches the wire text as the params of the case's method
// on its side: what the handlers got, the extension calls, the error.
func byMethod(hostile hostileCase, wire []byte) ([]Value, []extensionCall, error) {
	seen := &seenParams{}
	extensions := &extensionCalls{}
	agent := struct {
		hostileAgent
		*extensionCalls
	}{hostileAgent{seen}, extensions}
	client := struct {
		hostileClient
		*extensionCalls
	}{hostileClient{seen}, extensions}
	ctx := context.Background()
	var err error
	switch {
	case hostile.Side == "agent" && hostile.Kind == "request":
		_, err = DispatchAgentRequest(ctx, agent, hostile.Method, wire)
	case hostile.Side == "agent":
		err = DispatchAgentNotification(ctx, agent, hostile.Method, wire)
	case hostile.Kind == "request":
		_, err = DispatchClientRequest(ctx, client, hostile.Method, wire)
	default:
		err = DispatchClientNotification(ctx, client, hostile.Method, wire)
	}
	return seen.seen, extensions.calls, err
}

// checkHostileDecoders decodes the case's wire text by type and by method.
func checkHostileDecoders(t *testing.T, hostile hostileCase, expected hostileExpected) {
	wire := hostile.bytes(t)
	encoded, err := Roundtrip(hostile.Type, wire)
	handled, extensions, dispatched := byMethod(hostile, wire)
	switch expected.Outcome {
	case "accepted":
		if err != nil {
			t.Fatalf("by type: %v", err)
		}
		wanted := hostileWanted(expected, wire)
		if !sameReading(t, encoded, wanted) {
			t.Fatalf("by type, re-encoded to something else: %.300s", encoded)
		}
		if hostile.Wire.Exact && !bytes.Contains(encoded, []byte(hostile.Wire.Fill.Text)) {
			t.Fatalf("%s was not written back as it came", hostile.Wire.Fill.Text)
		}
		if dispatched != nil || len(handled) != 1 || !sameReadingOf(t, handled[0], wanted) {
			t.Fatalf("by method: %v, the handler got %d values, not this one", dispatched, len(handled))
		}
	case "error":
		pointer := hostilePointer(t, expected.Pointer)
		if _, parsed := Parse(wire); parsed != nil && pointer == "" {
			t.Fatalf("Parse refuses the text as a whole (%v): a parse-error", parsed)
		}
		var decodeError *DecodeError
		if !errors.As(err, &decodeError) || decodeError.Pointer != pointer {
			t.Fatalf("by type: %v, not an error at %q", err, pointer)
		}
		if named := dataMember(t, requestError(t, dispatched, codeInvalidParams), "pointer"); named != pointer {
			t.Fatalf("by method: at %q, not %q", named, pointer)
		}
	case "parse-error":
		if expected.Message == "" {
			t.Fatal("a parse error states no `message` its text must hold")
		}
		_, parsed := Parse(wire)
		var decodeError *DecodeError
		if !errors.As(parsed, &decodeError) || decodeError.Pointer != "" || !strings.Contains(decodeError.Message, expected.Message) {
			t.Fatalf("Parse: %v, not a refusal of the whole text saying %q", parsed, expected.Message)
		}
		if err == nil || err.Error() != parsed.Error() {
			t.Fatalf("by type: %v, not Parse's error", err)
		}
		if named := dataMember(t, requestError(t, dispatched, codeInvalidParams), "pointer"); named != "" {
			t.Fatalf("by method: at %q, not at the whole text", named)
		}
	case "method-not-found":
		requestError(t, dispatched, codeMethodNotFound)
		if len(extensions) != 0 {
			t.Fatalf("by method: %d extension calls", len(extensions))
		}
	case "extension":
		if dispatched != nil || len(extensions) != 1 {
			t.Fatalf("by method: %v, %d extension calls", dispatched, len(extensions))
		}
		params, ok := extensions[0].params.Get()
		if extensions[0].method != hostile.Method || !ok || !sameReadingOf(t, params, wire) {
			t.Fatalf("not an extension call of %q with the params as they came", hostile.Method)
		}
	default:
		t.Fatalf("no outcome %q for Go", expected.Outcome)
	}
	if expected.Outcome != "accepted" && len(handled) != 0 {
		t.Fatalf("by method: a handler got the params")
	}
}
