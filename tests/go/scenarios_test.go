// What the RFD helper tests share: the scenarios of `tests/helpers.json`
// (copied into the module's `testdata/` by `cargo xtask test`) and the
// JSON of what the turn tracker observed, as the other languages print it.
// Copied, with `helpers_test.go` or `helpers_v2_test.go`, next to the
// bindings of the schema the scenarios are for.

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

type helperStep struct {
	// The gate's steps.
	Responded *string         `json:"responded"`
	Send      *string         `json:"send"`
	Item      json.RawMessage `json:"item"`
	Now       int64           `json:"now"`
	Ready     *string         `json:"ready"`
	Closed    *string         `json:"closed"`
	Expire    *int64          `json:"expire"`
	Timeout   int64           `json:"timeout"`
	Prompt    *struct {
		Session string          `json:"session"`
		Request json.RawMessage `json:"request"`
	} `json:"prompt"`
	Update   json.RawMessage `json:"update"`
	Response *struct {
		Request    json.RawMessage `json:"request"`
		StopReason json.RawMessage `json:"stopReason"`
		Accepted   bool            `json:"accepted"`
	} `json:"response"`
	Status *string         `json:"status"`
	Expect json.RawMessage `json:"expect"`
}

type helperScenario struct {
	Name   string `json:"name"`
	Schema string `json:"schema"`
	Helper string `json:"helper"`
	Setup  struct {
		SessionReady  bool `json:"sessionReady"`
		TurnComplete  bool `json:"turnComplete"`
		SessionStatus bool `json:"sessionStatus"`
		Load          bool `json:"load"`
	} `json:"setup"`
	Steps []helperStep `json:"steps"`
}

// scenarios is the scenarios of `tests/helpers.json` for the schema
// `schema` ("" for the default one).
func scenarios(t *testing.T, schema string) []helperScenario {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "helpers.json"))
	if err != nil {
		t.Fatalf("reading the helper scenarios: %v", err)
	}
	var table struct {
		Scenarios []helperScenario `json:"scenarios"`
	}
	if err := json.Unmarshal(text, &table); err != nil {
		t.Fatalf("the helper scenarios: %v", err)
	}
	var found []helperScenario
	for _, scenario := range table.Scenarios {
		if scenario.Schema == schema {
			found = append(found, scenario)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no scenarios for the schema %q", schema)
	}
	return found
}

func parsed(t *testing.T, text []byte) Value {
	t.Helper()
	value, err := Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return value
}

// expectJSON fails unless `got` is the step's expected JSON.
func expectJSON(t *testing.T, index int, got Value, step helperStep) {
	t.Helper()
	if !equal(got, parsed(t, step.Expect)) {
		text, _ := got.MarshalJSON()
		t.Fatalf("step %d: got %s, expected %s", index, text, step.Expect)
	}
}

// observationJSON is an observation as the other languages print it.
func observationJSON[R any](observation Observation[R], encode func(R) Value) Value {
	request := func(request Optional[R]) Value {
		if value, ok := request.Get(); ok {
			return encode(value)
		}
		return NullValue()
	}
	violations := []Value{}
	for _, violation := range observation.Violations {
		violations = append(violations, ObjectValue([]Member{
			{Name: "rule", Value: StringValue(violation.Rule)},
			{Name: "kind", Value: StringValue(violation.Kind)},
			{Name: "session", Value: StringValue(violation.Session)},
			{Name: "request", Value: request(violation.Request)},
		}))
	}
	return ObjectValue([]Member{
		{Name: "turn", Value: request(observation.Turn)},
		{Name: "drained", Value: request(observation.Drained)},
		{Name: "violations", Value: ArrayValue(violations)},
	})
}
