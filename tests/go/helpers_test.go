// The RFD helpers of the Go module on every default-schema scenario of
// `tests/helpers.json`: the session-ready gate, the turn tracker fed
// `session/update` params decoded as `SessionNotification`, and
// `NextStepFor` on a negotiated view, each deciding as the table says (the
// Rust, TypeScript and Python helpers run the same table). Copied next to
// the default schema's bindings by `cargo xtask test`.

package acp

import "testing"

// negotiatedFor is a negotiated view with the given features, from a v1
// initialize pair.
func negotiatedFor(t *testing.T, scenario helperScenario) *Negotiated {
	t.Helper()
	capabilities := []Member{}
	for _, feature := range []struct {
		on   bool
		name string
	}{{scenario.Setup.SessionReady, "ready"}, {scenario.Setup.TurnComplete, "turnComplete"}, {scenario.Setup.SessionStatus, "status"}} {
		if feature.on {
			capabilities = append(capabilities, Member{Name: feature.name, Value: ObjectValue(nil)})
		}
	}
	response, _ := ObjectValue([]Member{
		{Name: "protocolVersion", Value: NumberValue("1")},
		{Name: "agentCapabilities", Value: ObjectValue([]Member{
			{Name: "loadSession", Value: BoolValue(scenario.Setup.Load)},
			{Name: "sessionCapabilities", Value: ObjectValue(capabilities)},
		})},
	}).MarshalJSON()
	negotiated, err := NegotiateJSON([]byte(`{"protocolVersion":1,"clientCapabilities":{}}`), response)
	if err != nil {
		t.Fatalf("negotiating %s: %v", response, err)
	}
	return negotiated
}

func runGate(t *testing.T, scenario helperScenario) {
	gate := NewSessionReadyGate[Value](negotiatedFor(t, scenario).SessionReady())
	if gate.Required != scenario.Setup.SessionReady {
		t.Fatalf("the gate's Required is %v", gate.Required)
	}
	for index, step := range scenario.Steps {
		var got []Value
		switch {
		case step.Responded != nil:
			gate.Responded(*step.Responded, step.Now)
			continue
		case step.Send != nil:
			got = gate.Send(*step.Send, parsed(t, step.Item), step.Now)
		case step.Ready != nil:
			got = gate.Ready(*step.Ready)
		case step.Closed != nil:
			held := gate.Held(*step.Closed)
			got = gate.Closed(*step.Closed)
			if len(got) != held {
				t.Fatalf("step %d: Held said %d, Closed returned %d", index, held, len(got))
			}
		case step.Expire != nil:
			sessions := []Value{}
			for _, expired := range gate.Expire(*step.Expire, step.Timeout) {
				sessions = append(sessions, ObjectValue([]Member{
					{Name: "session", Value: StringValue(expired.Session)},
					{Name: "items", Value: ArrayValue(expired.Items)},
				}))
			}
			expectJSON(t, index, ArrayValue(sessions), step)
			continue
		default:
			t.Fatalf("step %d: an unknown gate step", index)
		}
		expectJSON(t, index, ArrayValue(got), step)
	}
}

func runTurns(t *testing.T, scenario helperScenario) {
	tracker := NewTurnTracker(negotiatedFor(t, scenario).TurnComplete())
	if tracker.TurnComplete() != scenario.Setup.TurnComplete {
		t.Fatalf("the tracker's TurnComplete is %v", tracker.TurnComplete())
	}
	for index, step := range scenario.Steps {
		var got Observation[RequestId]
		switch {
		case step.Prompt != nil:
			request, err := DecodeRequestId(step.Prompt.Request)
			if err != nil {
				t.Fatalf("step %d: %v", index, err)
			}
			tracker.Prompt(step.Prompt.Session, request)
			if pending, ok := tracker.Pending(step.Prompt.Session); !ok || !equal(encodeRequestId(pending), encodeRequestId(request)) {
				t.Fatalf("step %d: the pending request is not the prompt's", index)
			}
			continue
		case step.Update != nil:
			var notification SessionNotification
			if err := notification.UnmarshalJSON(step.Update); err != nil {
				t.Fatalf("step %d: %v", index, err)
			}
			got = tracker.Update(notification)
		case step.Response != nil:
			request, err := DecodeRequestId(step.Response.Request)
			if err != nil {
				t.Fatalf("step %d: %v", index, err)
			}
			var stopReason Nullable[StopReason]
			if err := stopReason.Value.UnmarshalJSON(step.Response.StopReason); err == nil {
				stopReason.Valid = true
			} else if string(step.Response.StopReason) != "null" {
				t.Fatalf("step %d: %v", index, err)
			}
			got = tracker.Response(request, stopReason)
		default:
			t.Fatalf("step %d: an unknown turn step", index)
		}
		expectJSON(t, index, observationJSON(got, encodeRequestId), step)
	}
}

func runStatus(t *testing.T, scenario helperScenario) {
	view := negotiatedFor(t, scenario)
	for index, step := range scenario.Steps {
		got := NextStepFor(view, SessionStatus(*step.Status))
		expectJSON(t, index, StringValue(string(got)), step)
	}
}

func TestEveryHelperScenario(t *testing.T) {
	runners := map[string]func(*testing.T, helperScenario){"gate": runGate, "turns": runTurns, "status": runStatus}
	for _, scenario := range scenarios(t, "") {
		t.Run(scenario.Helper+": "+scenario.Name, func(t *testing.T) {
			run, ok := runners[scenario.Helper]
			if !ok {
				t.Fatalf("no runner for the helper %q", scenario.Helper)
			}
			run(t, scenario)
		})
	}
}

// The helpers as an agent and a client use them: seed 000's early
// `available_commands_update` held until `session/ready`, seed 004's late
// chunk reported.
func TestAnAgentAndAClientUseTheHelpers(t *testing.T) {
	negotiated, err := NegotiateJSON(
		[]byte(`{"protocolVersion":1,"clientCapabilities":{}}`),
		[]byte(`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"ready":{},"turnComplete":{}}}}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	gate := NewSessionReadyGate[string](negotiated.SessionReady())
	gate.Responded("sess_1", 0)
	if held := gate.Send("sess_1", "available_commands_update", 1); len(held) != 0 {
		t.Fatalf("sent %v before session/ready", held)
	}
	if released := gate.Ready("sess_1"); len(released) != 1 || released[0] != "available_commands_update" {
		t.Fatalf("released %v", released)
	}
	turns := NewTurnTracker(negotiated.TurnComplete())
	turns.Prompt("sess_1", RequestIdInteger{Value: 2})
	var done, late SessionNotification
	_ = done.UnmarshalJSON([]byte(`{"sessionId":"sess_1","update":{"sessionUpdate":"turn_complete","promptRequestId":2,"stopReason":"end_turn"}}`))
	if observed := turns.Update(done); len(observed.Violations) != 0 {
		t.Fatalf("turn_complete broke %v", observed.Violations)
	}
	observed := turns.Response(RequestIdInteger{Value: 2}, NonNull(StopReasonEndTurn))
	if drained, ok := observed.Drained.Get(); !ok || drained != (RequestIdInteger{Value: 2}) {
		t.Fatalf("the response drained %v", observed.Drained)
	}
	_ = late.UnmarshalJSON([]byte(`{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done."}}}`))
	violations := turns.Update(late).Violations
	if len(violations) != 1 || violations[0].Rule != "R4" || violations[0].Kind != "update_after_response" {
		t.Fatalf("the late chunk broke %v", violations)
	}
	if step := NextStepFor(negotiated, "live"); step != NextStepNotNegotiated {
		t.Fatalf("the next step is %s", step)
	}
}
