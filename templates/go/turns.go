// The turn tracker's machine in acp-codegen's Go runtime (RFD turn-complete,
// rules R2 and R4; protocol v2's `idle` state update), copied into every
// generated Go module (`turns.go`; the source is `templates/go/turns.go`).
// It reads `session/update` params as their wire JSON through the members
// the schema names (the generated `helpers.go` holds them and the typed
// `TurnTracker`); the client's end of a connection (`connection.go`) runs
// it on the wire, request ids as JSON values, to know when a prompt's turn
// is drained. A pure state machine: the TypeScript, Python and Rust
// bindings implement the same and decide alike.

package acp

import "slices"

// turnRules are the schema's members and tags the machine reads: the
// notification's session and update members, the update's tag member,
// the tags of turn output and of the agent's reply, and what ends a turn:
// `turn_complete` (v1) or the `idle` state update (v2).
type turnRules struct {
	session     string
	update      string
	tagProperty string
	output      []string
	replies     []string
	complete    Optional[completeRules]
	lifecycle   Optional[lifecycleRules]
}

// completeRules is the `turn_complete` update: its tag, and its members
// naming the prompt request and the stop reason.
type completeRules struct {
	tag        string
	request    string
	stopReason string
}

// lifecycleRules is the state update: its tag, its state member and the
// `idle` state.
type lifecycleRules struct {
	tag   string
	state string
	idle  string
}

// Violation is a rule the agent broke: R4 for an update after the prompt
// response, R2 for the rest. Kind is one of `update_after_response`,
// `update_after_turn_complete`, `duplicate_turn_complete`,
// `stop_reason_mismatch`, `unknown_turn`, `update_after_idle`.
type Violation[R any] struct {
	Rule    string
	Kind    string
	Session string
	Request Optional[R]
}

// Observation is what the tracker made of one message: its turn, the turn
// it drained, the rules broken.
type Observation[R any] struct {
	Turn       Optional[R]
	Drained    Optional[R]
	Violations []Violation[R]
}

type trackedTurn[R any] struct {
	request R
	key     string
	// responded: the response arrived; refused: it was an error (v1) or
	// did not accept the prompt (v2); stopReason: its stop reason (v1).
	responded  bool
	refused    bool
	stopReason string
	// completed: the `turn_complete` stop reason (v1).
	completed Optional[string]
	// working: a non-idle state came after the prompt; idled: the `idle`
	// that ended the turn came (v2).
	working bool
	idled   bool
}

type turnMachine[R any] struct {
	rules        turnRules
	turnComplete bool
	encode       func(R) Value
	decode       func(Value, string) (R, error)
	sessions     map[string][]*trackedTurn[R]
	// order is the sessions in the order they were first prompted.
	order []string
	// working is the sessions whose last state was not `idle`.
	working map[string]bool
}

func newTurnMachine[R any](rules turnRules, turnComplete bool, encode func(R) Value, decode func(Value, string) (R, error)) *turnMachine[R] {
	return &turnMachine[R]{
		rules:        rules,
		turnComplete: turnComplete,
		encode:       encode,
		decode:       decode,
		sessions:     map[string][]*trackedTurn[R]{},
		working:      map[string]bool{},
	}
}

// jsonKey is the JSON text of a value, which identifies a request id.
func jsonKey(value Value) string {
	text, _ := value.MarshalJSON()
	return string(text)
}

// stringMember is the string member `name` of `value`, or "".
func stringMember(value Value, name string) string {
	member, ok := value.Member(name)
	if !ok || member.Kind() != KindString {
		return ""
	}
	return member.Text()
}

func (m *turnMachine[R]) drained(turn *trackedTurn[R]) bool {
	if !turn.responded {
		return false
	}
	if turn.refused {
		return true
	}
	if m.rules.lifecycle.Set {
		return turn.idled
	}
	return turn.completed.Set || !m.turnComplete
}

func (m *turnMachine[R]) find(session, key string) *trackedTurn[R] {
	for _, turn := range m.sessions[session] {
		if turn.key == key {
			return turn
		}
	}
	return nil
}

// prompt is the client's prompt `request` for `session`.
func (m *turnMachine[R]) prompt(session string, request R) {
	turns, known := m.sessions[session]
	if !known {
		m.order = append(m.order, session)
	}
	turns = slices.DeleteFunc(slices.Clone(turns), m.drained)
	m.sessions[session] = append(turns, &trackedTurn[R]{request: request, key: jsonKey(m.encode(request))})
}

// update is a `session/update` notification, as wire JSON.
func (m *turnMachine[R]) update(notification Value) Observation[R] {
	session := stringMember(notification, m.rules.session)
	update, _ := notification.Member(m.rules.update)
	tag := stringMember(update, m.rules.tagProperty)
	if lifecycle, ok := m.rules.lifecycle.Get(); ok {
		if tag == lifecycle.tag {
			return m.state(session, stringMember(update, lifecycle.state) == lifecycle.idle)
		}
		return m.reply(session, tag)
	}
	violations := []Violation[R]{}
	violation := func(kind string, request R) Violation[R] {
		rule := "R2"
		if kind == "update_after_response" {
			rule = "R4"
		}
		return Violation[R]{Rule: rule, Kind: kind, Session: session, Request: Some(request)}
	}
	if complete, ok := m.rules.complete.Get(); ok && tag == complete.tag {
		requestValue, _ := update.Member(complete.request)
		stopValue, _ := update.Member(complete.stopReason)
		stopReason := jsonKey(stopValue)
		turn := m.find(session, jsonKey(requestValue))
		if turn == nil {
			unknown := Violation[R]{Rule: "R2", Kind: "unknown_turn", Session: session}
			if request, err := m.decode(requestValue, ""); err == nil {
				unknown.Request = Some(request)
			}
			return Observation[R]{Violations: append(violations, unknown)}
		}
		if turn.responded {
			violations = append(violations, violation("update_after_response", turn.request))
		}
		if turn.completed.Set {
			violations = append(violations, violation("duplicate_turn_complete", turn.request))
			return Observation[R]{Turn: Some(turn.request), Violations: violations}
		}
		if turn.responded && !turn.refused && turn.stopReason != stopReason {
			violations = append(violations, violation("stop_reason_mismatch", turn.request))
		}
		wasDrained := m.drained(turn)
		turn.completed = Some(stopReason)
		observation := Observation[R]{Turn: Some(turn.request), Violations: violations}
		if !wasDrained && m.drained(turn) {
			observation.Drained = Some(turn.request)
		}
		return observation
	}
	turns := m.sessions[session]
	if !slices.Contains(m.rules.output, tag) || len(turns) == 0 {
		return Observation[R]{Violations: violations}
	}
	turn := turns[len(turns)-1]
	if turn.responded {
		violations = append(violations, violation("update_after_response", turn.request))
	} else if turn.completed.Set {
		violations = append(violations, violation("update_after_turn_complete", turn.request))
	}
	return Observation[R]{Turn: Some(turn.request), Violations: violations}
}

// reply is turn output in protocol v2: the agent's message or thought
// after the `idle` that ended its turn, before new foreground work,
// breaks R2; tool calls and plans may be background work and are not
// judged.
func (m *turnMachine[R]) reply(session, tag string) Observation[R] {
	nothing := Observation[R]{Violations: []Violation[R]{}}
	turns := m.sessions[session]
	if !slices.Contains(m.rules.output, tag) || len(turns) == 0 {
		return nothing
	}
	turn := turns[len(turns)-1]
	if !turn.idled {
		return Observation[R]{Turn: Some(turn.request), Violations: []Violation[R]{}}
	}
	if !slices.Contains(m.rules.replies, tag) || m.working[session] {
		return nothing
	}
	violation := Violation[R]{Rule: "R2", Kind: "update_after_idle", Session: session, Request: Some(turn.request)}
	return Observation[R]{Turn: Some(turn.request), Violations: []Violation[R]{violation}}
}

// state is a state snapshot (v2): a non-idle state marks the open turns
// as working; `idle` ends those that worked or were answered.
func (m *turnMachine[R]) state(session string, idle bool) Observation[R] {
	if idle {
		delete(m.working, session)
	} else {
		m.working[session] = true
	}
	observation := Observation[R]{Violations: []Violation[R]{}}
	for _, turn := range m.sessions[session] {
		switch {
		case turn.idled:
		case !idle:
			turn.working = true
			observation.Turn = Some(turn.request)
		case turn.working || turn.responded:
			wasDrained := m.drained(turn)
			turn.idled = true
			observation.Turn = Some(turn.request)
			if !wasDrained && m.drained(turn) {
				observation.Drained = Some(turn.request)
			}
		}
	}
	return observation
}

// response is the response to the prompt `request`: `refused` for an
// error response (v1) or a prompt not accepted (v2); its stop reason's
// JSON text otherwise (v1).
func (m *turnMachine[R]) response(request R, refused bool, stopReason string) Observation[R] {
	key := jsonKey(m.encode(request))
	for _, session := range m.order {
		turn := m.find(session, key)
		if turn == nil {
			continue
		}
		observation := Observation[R]{Turn: Some(request), Violations: []Violation[R]{}}
		if turn.responded {
			return observation
		}
		if completed, ok := turn.completed.Get(); ok && !refused && completed != stopReason && !m.rules.lifecycle.Set {
			violation := Violation[R]{Rule: "R2", Kind: "stop_reason_mismatch", Session: session, Request: Some(request)}
			observation.Violations = append(observation.Violations, violation)
		}
		turn.responded, turn.refused, turn.stopReason = true, refused, stopReason
		if m.drained(turn) {
			observation.Drained = Some(request)
		}
		return observation
	}
	return Observation[R]{Violations: []Violation[R]{}}
}

// isDrained is whether the turn of the prompt `request` is drained (false
// for a request the machine does not track).
func (m *turnMachine[R]) isDrained(request R) bool {
	key := jsonKey(m.encode(request))
	for _, session := range m.order {
		if turn := m.find(session, key); turn != nil {
			return m.drained(turn)
		}
	}
	return false
}

// pending is the prompt request of `session`'s turn that is not drained
// yet.
func (m *turnMachine[R]) pending(session string) (R, bool) {
	turns := m.sessions[session]
	for index := len(turns) - 1; index >= 0; index-- {
		if !m.drained(turns[index]) {
			return turns[index].request, true
		}
	}
	var none R
	return none, false
}
