// The session-ready gate of acp-codegen's Go runtime (RFD session-ready,
// rule R1), copied as it is into every generated Go module (`gate.go`; the
// source is `templates/go/gate.go`): a pure state machine, with no I/O and
// no clock of its own (the caller passes the time in, in any monotonic
// unit). The TypeScript, Python and Rust bindings implement the same
// machine and decide alike.

package acp

import (
	"cmp"
	"slices"
)

// SessionReadyGate holds what an agent would send for a session until the
// client's `session/ready` for it.
type SessionReadyGate[T any] struct {
	// Required is whether the agent advertised `session/ready`: without it
	// every item passes at once.
	Required bool
	waiting  map[string]*heldItems[T]
	ready    map[string]bool
}

type heldItems[T any] struct {
	since int64
	held  []T
}

// ExpiredSession is a session the gate let go of on a timeout, with what
// it held, in order.
type ExpiredSession[T any] struct {
	Session string
	Items   []T
}

// NewSessionReadyGate is a gate; `required` is what the initialize
// exchange negotiated (`Negotiated.SessionReady`).
func NewSessionReadyGate[T any](required bool) *SessionReadyGate[T] {
	return &SessionReadyGate[T]{Required: required, waiting: map[string]*heldItems[T]{}, ready: map[string]bool{}}
}

// Responded is the agent's answer to `session/new` or `session/load` for
// `session` at `now`: its notifications wait from here on.
func (g *SessionReadyGate[T]) Responded(session string, now int64) {
	if !g.Required {
		return
	}
	delete(g.ready, session)
	if _, ok := g.waiting[session]; !ok {
		g.waiting[session] = &heldItems[T]{since: now}
	}
}

// Send is a session-scoped notification to send at `now`: what may be
// sent now (the item, or nothing while it is held).
func (g *SessionReadyGate[T]) Send(session string, item T, now int64) []T {
	if !g.Required || g.ready[session] {
		return []T{item}
	}
	waiting, ok := g.waiting[session]
	if !ok {
		waiting = &heldItems[T]{since: now}
		g.waiting[session] = waiting
	}
	waiting.held = append(waiting.held, item)
	return []T{}
}

// Ready is `session/ready` for `session`: what was held, in order.
func (g *SessionReadyGate[T]) Ready(session string) []T {
	if !g.Required {
		return []T{}
	}
	g.ready[session] = true
	return g.release(session)
}

// Expire is the caller's fallback: the sessions waiting `timeout` or
// longer at `now` count as ready, the longest waiting first.
func (g *SessionReadyGate[T]) Expire(now, timeout int64) []ExpiredSession[T] {
	var due []string
	for session, waiting := range g.waiting {
		if waiting.since+timeout <= now {
			due = append(due, session)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		return cmp.Or(cmp.Compare(g.waiting[a].since, g.waiting[b].since), cmp.Compare(a, b))
	})
	expired := make([]ExpiredSession[T], 0, len(due))
	for _, session := range due {
		expired = append(expired, ExpiredSession[T]{Session: session, Items: g.Ready(session)})
	}
	return expired
}

// Closed is the end of `session`: the gate forgets it and returns what it
// still held, never sent.
func (g *SessionReadyGate[T]) Closed(session string) []T {
	delete(g.ready, session)
	return g.release(session)
}

// Held is how many items `session` holds.
func (g *SessionReadyGate[T]) Held(session string) int {
	if waiting, ok := g.waiting[session]; ok {
		return len(waiting.held)
	}
	return 0
}

func (g *SessionReadyGate[T]) release(session string) []T {
	waiting, ok := g.waiting[session]
	delete(g.waiting, session)
	if !ok {
		return []T{}
	}
	return append([]T{}, waiting.held...)
}
