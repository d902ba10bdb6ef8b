// The turn tracker of the Go module for protocol v2 (the latest release's
// stable schema) on the v2 scenarios of `tests/helpers.json`:
// `session/update` params decoded as `UpdateSessionNotification`, turns
// ended by the `idle` state update, and the agent's reply after it
// reported (the Rust, TypeScript and Python helpers run the same
// scenarios). Copied next to the v2 stable bindings by `cargo xtask test`.

package acp

import "testing"

func TestEveryV2TurnScenario(t *testing.T) {
	for _, scenario := range scenarios(t, "v2-stable") {
		t.Run("turns: "+scenario.Name, func(t *testing.T) {
			if scenario.Helper != "turns" {
				t.Fatalf("a v2 scenario of the helper %q", scenario.Helper)
			}
			tracker := NewTurnTracker()
			checked := 0
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
					var notification UpdateSessionNotification
					if err := notification.UnmarshalJSON(step.Update); err != nil {
						t.Fatalf("step %d: %v", index, err)
					}
					got = tracker.Update(notification)
				case step.Response != nil:
					request, err := DecodeRequestId(step.Response.Request)
					if err != nil {
						t.Fatalf("step %d: %v", index, err)
					}
					got = tracker.Response(request, step.Response.Accepted)
				default:
					t.Fatalf("step %d: an unknown turn step", index)
				}
				expectJSON(t, index, observationJSON(got, encodeRequestId), step)
				checked++
			}
			if checked == 0 {
				t.Fatal("the scenario checks nothing")
			}
		})
	}
}
