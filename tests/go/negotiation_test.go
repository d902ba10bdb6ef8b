// Capability negotiation on the initialize pairs of `tests/negotiation.json`
// (`cargo xtask test` writes this schema's entry to
// `<bindings>/negotiation.json`): every view as the table expects, the typed
// errors, every outgoing check passing and refused, accessors agreeing with
// the view. The compact JSON of each view goes to
// `<bindings>/negotiation-go.txt`, which `cargo xtask test` compares byte
// for byte with the other languages'. Copied next to the bindings by
// `cargo xtask test`; the folder is $ACP_BINDINGS, else `..`.

package acp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type negotiationPair struct {
	Name     string          `json:"name"`
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
	Error    string          `json:"error"`
}

type negotiationView struct {
	Pair            string   `json:"pair"`
	ProtocolVersion int64    `json:"protocolVersion"`
	True            []string `json:"true"`
	False           []string `json:"false"`
	Others          bool     `json:"others"`
}

type outgoingMessage struct {
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
	Pointer    string          `json:"pointer"`
	Capability string          `json:"capability"`
	Side       string          `json:"side"`
}

type negotiationCases struct {
	Pairs    map[string]negotiationPair `json:"pairs"`
	Views    []negotiationView          `json:"views"`
	Errors   []negotiationPair          `json:"errors"`
	Outgoing []outgoingMessage          `json:"outgoing"`
	Partial  []struct {
		Pair     negotiationPair   `json:"pair"`
		Outgoing []outgoingMessage `json:"outgoing"`
	} `json:"partial"`
}

func bindingsFolder() string {
	if folder := os.Getenv("ACP_BINDINGS"); folder != "" {
		return folder
	}
	return ".."
}

func loadNegotiationCases(t *testing.T) negotiationCases {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(bindingsFolder(), "negotiation.json"))
	if err != nil {
		t.Fatalf("reading the negotiation cases: %v", err)
	}
	var cases negotiationCases
	if err := json.Unmarshal(text, &cases); err != nil {
		t.Fatalf("the negotiation cases: %v", err)
	}
	return cases
}

func negotiated(t *testing.T, pair negotiationPair) *Negotiated {
	t.Helper()
	result, err := NegotiateJSON(pair.Request, pair.Response)
	if err != nil {
		t.Fatalf("%s: %v", pair.Name, err)
	}
	return result
}

// flags is every boolean of a view: `section/name` in its objects, `name`
// at the top.
func flags(view Value) map[string]bool {
	found := map[string]bool{}
	for _, member := range view.Members() {
		switch member.Value.Kind() {
		case KindObject:
			for _, inner := range member.Value.Members() {
				found[member.Name+"/"+inner.Name] = inner.Value.Bool()
			}
		case KindBool:
			found[member.Name] = member.Value.Bool()
		}
	}
	return found
}

func TestEveryViewIsAsTheTableSaysAndIsWrittenForComparison(t *testing.T) {
	cases := loadNegotiationCases(t)
	if len(cases.Views) == 0 {
		t.Fatal("the table has no views for this schema")
	}
	var lines strings.Builder
	for _, view := range cases.Views {
		pair := cases.Pairs[view.Pair]
		pair.Name = view.Pair
		result := negotiated(t, pair)
		if result.ProtocolVersion != view.ProtocolVersion {
			t.Fatalf("%s: protocol version %d", view.Pair, result.ProtocolVersion)
		}
		document := result.JSON()
		found := flags(document)
		for _, path := range slices.Concat(view.True, view.False) {
			if _, ok := found[path]; !ok {
				t.Fatalf("%s: the view has no %s", view.Pair, path)
			}
		}
		for path, flag := range found {
			expected := view.Others
			if slices.Contains(view.True, path) {
				expected = true
			} else if slices.Contains(view.False, path) {
				expected = false
			}
			if flag != expected {
				t.Fatalf("%s: %s is %v", view.Pair, path, flag)
			}
			section, name, nested := strings.Cut(path, "/")
			var accessor bool
			switch {
			case !nested && section == "sessionReady":
				accessor = result.SessionReady()
			case !nested && section == "turnComplete":
				accessor = result.TurnComplete()
			case !nested && section == "sessionStatus":
				accessor = result.SessionStatus()
			case !nested:
				continue
			case section == "agentHandles":
				accessor = result.AgentHandles(name)
			case section == "clientHandles":
				accessor = result.ClientHandles(name)
			default:
				accessor = result.Allows(section, name)
			}
			if accessor != flag {
				t.Fatalf("%s: the accessor of %s says %v", view.Pair, path, accessor)
			}
		}
		if result.AgentHandles("no/such_method") || result.ClientHandles("no/such_method") || result.Allows("no-section", "image") {
			t.Fatalf("%s: an unknown method or section is allowed", view.Pair)
		}
		var request InitializeRequest
		var response InitializeResponse
		if request.UnmarshalJSON(pair.Request) != nil || response.UnmarshalJSON(pair.Response) != nil {
			t.Fatalf("%s: the pair does not decode", view.Pair)
		}
		typed, err := Negotiate(request, response)
		if err != nil {
			t.Fatalf("%s: %v", view.Pair, err)
		}
		text, err := result.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		typedText, _ := typed.MarshalJSON()
		if string(typedText) != string(text) {
			t.Fatalf("%s: decoded values negotiate as %s, their JSON as %s", view.Pair, typedText, text)
		}
		lines.WriteString(view.Pair + "\t" + string(text) + "\n")
	}
	output := filepath.Join(bindingsFolder(), "negotiation-go.txt")
	if err := os.WriteFile(output, []byte(lines.String()), 0o644); err != nil {
		t.Fatalf("writing %s: %v", output, err)
	}
}

func TestBadPairsFailWithTypedErrors(t *testing.T) {
	cases := loadNegotiationCases(t)
	if len(cases.Errors) == 0 {
		t.Fatal("the table has no bad pairs")
	}
	for _, pair := range cases.Errors {
		_, err := NegotiateJSON(pair.Request, pair.Response)
		if pair.Error == "decode" {
			var decodeError *DecodeError
			if !errors.As(err, &decodeError) {
				t.Fatalf("%s: expected a DecodeError, got %v", pair.Name, err)
			}
			continue
		}
		var negotiationError *NegotiationError
		if !errors.As(err, &negotiationError) || negotiationError.Kind != pair.Error {
			t.Fatalf("%s: expected a NegotiationError %s, got %v", pair.Name, pair.Error, err)
		}
	}
}

func refusals(t *testing.T, cases negotiationCases, pair negotiationPair, messages []outgoingMessage) {
	t.Helper()
	if len(messages) == 0 {
		t.Fatal("no outgoing messages")
	}
	allowed := negotiated(t, cases.Pairs["all"])
	refused := negotiated(t, pair)
	for _, message := range messages {
		params, err := Parse(message.Params)
		if err != nil {
			t.Fatalf("%s: %v", message.Method, err)
		}
		if err := allowed.CheckOutgoing(message.Method, params); err != nil {
			t.Fatalf("%s is refused under `all`: %v", message.Method, err)
		}
		var capabilityError *CapabilityError
		if !errors.As(refused.CheckOutgoing(message.Method, params), &capabilityError) {
			t.Fatalf("%s %s is not refused", message.Method, message.Params)
		}
		got := [4]string{capabilityError.Method, capabilityError.Pointer, capabilityError.Capability, capabilityError.Side}
		want := [4]string{message.Method, message.Pointer, message.Capability, message.Side}
		if got != want {
			t.Fatalf("refused as %v, expected %v", got, want)
		}
	}
}

func TestOutgoingMessagesPassWhenAdvertisedAndAreRefusedWhenNot(t *testing.T) {
	cases := loadNegotiationCases(t)
	refusals(t, cases, cases.Pairs["none"], cases.Outgoing)
}

func TestPartsOfAllowedMethodsAreRefusedWhenNotAdvertised(t *testing.T) {
	cases := loadNegotiationCases(t)
	if len(cases.Partial) == 0 {
		t.Fatal("the table has no partial cases")
	}
	for _, partial := range cases.Partial {
		refusals(t, cases, partial.Pair, partial.Outgoing)
	}
}
