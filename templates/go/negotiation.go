// Capability negotiation in acp-codegen's Go runtime, copied as it is into
// every generated Go module whose schema negotiates at `initialize`
// (`negotiation.go`; the source is `templates/go/negotiation.go`): what one
// `initialize` exchange allows. The tables come from the schema's
// capability gates (the generated `negotiation_tables.go`); the functions
// here only read them. Omitted, `null` and `false` capabilities mean
// unsupported; `true` and any object mean supported; an offered method
// needs a non-empty list. The JSON view is the one every language prints.

package acp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// What an entry needs besides a rule (a rule's index otherwise).
const (
	needsNothing = -1
	needsAbsent  = -2
)

// negotiationRule is a gate: whether the agent's initialize message (else
// the client's) carries it, where, and whether it is an offer (a
// non-empty list).
type negotiationRule struct {
	agent   bool
	pointer []string
	offered bool
}

// negotiationEntry is one member of the view: `needsNothing` (the
// baseline), `needsAbsent` (not in this schema), or the rule that decides.
type negotiationEntry struct {
	name  string
	needs int
}

type negotiationSection struct {
	name    string
	entries []negotiationEntry
}

// negotiationCheck is a part of a method's params that a rule gates: at
// `pointer` ("*" = each array item), a value whose `tagProperty` (the
// value itself when empty) is `tagValue`, or any non-null value when
// `tagValue` is unset.
type negotiationCheck struct {
	method      string
	pointer     []string
	tagProperty Optional[string]
	tagValue    Optional[string]
	rule        int
}

// sessionGate is a method offered per session rather than at initialize:
// the member of the opening results that offers it (present and not null),
// the member naming the session, and the methods that open one.
type sessionGate struct {
	method  string
	member  string
	session string
	openers []sessionOpener
}

// sessionOpener is a method that opens a session, which it names in its
// result (a new session) or else in its params.
type sessionOpener struct {
	method   string
	inResult bool
}

// NegotiationError is why an initialize exchange does not negotiate:
// Kind is "version_above_requested" or "unsupported_version".
type NegotiationError struct {
	Kind      string
	Requested int64
	Answered  int64
}

func (e *NegotiationError) Error() string {
	if e.Kind == "version_above_requested" {
		return fmt.Sprintf("the agent answered protocol version %d, above the %d the client asked for", e.Answered, e.Requested)
	}
	return fmt.Sprintf("the agent answered protocol version %d; these bindings implement %d", e.Answered, CurrentProtocolVersion)
}

// CapabilityError is an outgoing message the negotiated capabilities do
// not allow.
type CapabilityError struct {
	Method string
	// Pointer is the JSON pointer of the offending part of the params (""
	// for the method itself).
	Pointer string
	// Side is the side that did not advertise the capability: "agent" or
	// "client".
	Side string
	// Capability is the JSON pointer of the capability in that side's
	// initialize message.
	Capability string
}

func (e *CapabilityError) Error() string {
	part := e.Pointer
	if part == "" {
		part = "the method"
	}
	return fmt.Sprintf("%s: %s needs the %s to advertise %s", e.Method, part, e.Side, e.Capability)
}

// Negotiated is what one initialize exchange allows. Its JSON is the view
// every language's bindings print.
type Negotiated struct {
	// ProtocolVersion is the agreed protocol version.
	ProtocolVersion int64
	request         Value
	response        Value
}

func (n *Negotiated) holds(rule int) bool {
	if rule < 0 || rule >= len(negotiationRules) {
		return false
	}
	gate := negotiationRules[rule]
	value := n.request
	if gate.agent {
		value = n.response
	}
	for _, token := range gate.pointer {
		var ok bool
		if value, ok = objectMember(value, token); !ok {
			return false
		}
	}
	if gate.offered {
		return value.Kind() == KindArray && len(value.Items()) > 0
	}
	return (value.Kind() == KindBool && value.Bool()) || value.Kind() == KindObject
}

func (n *Negotiated) needs(needs int) bool {
	switch needs {
	case needsNothing:
		return true
	case needsAbsent:
		return false
	}
	return n.holds(needs)
}

func (n *Negotiated) lookup(entries []negotiationEntry, name string) bool {
	for _, entry := range entries {
		if entry.name == name {
			return n.needs(entry.needs)
		}
	}
	return false
}

func (n *Negotiated) entries(entries []negotiationEntry) Value {
	members := make([]Member, 0, len(entries))
	for _, entry := range entries {
		members = append(members, Member{Name: entry.name, Value: BoolValue(n.needs(entry.needs))})
	}
	return ObjectValue(members)
}

// AgentHandles is whether the agent may be called with `method` (every
// agent-side method; unknown ones are false).
func (n *Negotiated) AgentHandles(method string) bool {
	return n.lookup(negotiationAgentMethods, method)
}

// ClientHandles is whether the client may be called with `method` (every
// client-side method; unknown ones are false).
func (n *Negotiated) ClientHandles(method string) bool {
	return n.lookup(negotiationClientMethods, method)
}

// Allows is one entry of a section: `prompt` (image, audio,
// embeddedContext), `mcp`, `updates`, `elicitation`.
func (n *Negotiated) Allows(section, name string) bool {
	for _, known := range negotiationSections {
		if known.name == section {
			return n.lookup(known.entries, name)
		}
	}
	return false
}

// SessionReady is whether the agent requires `session/ready` after each
// session is set up (RFD session-ready).
func (n *Negotiated) SessionReady() bool { return n.lookup(negotiationFeatures, "sessionReady") }

// TurnComplete is whether the agent ends every prompt turn with a
// `turn_complete` update (RFD turn-complete).
func (n *Negotiated) TurnComplete() bool { return n.lookup(negotiationFeatures, "turnComplete") }

// SessionStatus is whether the agent answers `session/status` (RFD
// session-status).
func (n *Negotiated) SessionStatus() bool { return n.lookup(negotiationFeatures, "sessionStatus") }

// CheckOutgoing is the first part of an outgoing `method` call with
// `params` that the capabilities do not allow, as a *CapabilityError, or
// nil.
func (n *Negotiated) CheckOutgoing(method string, params Value) error {
	if err := n.checkMethod(method); err != nil {
		return err
	}
	for _, check := range negotiationChecks {
		if check.method != method || n.holds(check.rule) {
			continue
		}
		for _, found := range locate(params, check.pointer) {
			if gated(check, found.value) {
				return refusal(method, check.rule, found.pointer)
			}
		}
	}
	return nil
}

// checkMethod is CheckOutgoing on the method's own gate alone, looking at
// nothing inside its params.
func (n *Negotiated) checkMethod(method string) error {
	if rule, ok := methodRule(method); ok && rule >= 0 && !n.holds(rule) {
		return refusal(method, rule, "")
	}
	return nil
}

// refusal is the CapabilityError of `method` refused by the rule `rule`,
// at `pointer` in its params.
func refusal(method string, rule int, pointer string) error {
	gate := negotiationRules[rule]
	side := "client"
	if gate.agent {
		side = "agent"
	}
	var capability strings.Builder
	for _, token := range gate.pointer {
		capability.WriteString("/" + escapeToken(token))
	}
	return &CapabilityError{Method: method, Pointer: pointer, Side: side, Capability: capability.String()}
}

// methodRule is what the entry of `method` needs, the agent's methods
// looked up first, when it has one.
func methodRule(method string) (int, bool) {
	for _, entries := range [][]negotiationEntry{negotiationAgentMethods, negotiationClientMethods} {
		for _, entry := range entries {
			if entry.name == method {
				return entry.needs, true
			}
		}
	}
	return 0, false
}

// gated is whether `value` is the part `check` gates.
func gated(check negotiationCheck, value Value) bool {
	tag, ok := check.tagValue.Get()
	if !ok {
		return value.Kind() != KindNull
	}
	if property, ok := check.tagProperty.Get(); ok {
		var found bool
		if value, found = objectMember(value, property); !found {
			return false
		}
	}
	return value.Kind() == KindString && value.Text() == tag
}

// JSON is the view every language prints: the protocol version, what
// each side handles, each section, each feature.
func (n *Negotiated) JSON() Value {
	members := []Member{
		{Name: "protocolVersion", Value: NumberValue(Number(strconv.FormatInt(n.ProtocolVersion, 10)))},
		{Name: "agentHandles", Value: n.entries(negotiationAgentMethods)},
		{Name: "clientHandles", Value: n.entries(negotiationClientMethods)},
	}
	for _, section := range negotiationSections {
		members = append(members, Member{Name: section.name, Value: n.entries(section.entries)})
	}
	for _, feature := range negotiationFeatures {
		members = append(members, Member{Name: feature.name, Value: BoolValue(n.needs(feature.needs))})
	}
	return ObjectValue(members)
}

// MarshalJSON writes the view as compact JSON.
func (n *Negotiated) MarshalJSON() ([]byte, error) { return n.JSON().MarshalJSON() }

// objectMember is the member `name` of `value`, when it is an object that
// has one.
func objectMember(value Value, name string) (Value, bool) {
	if value.Kind() != KindObject {
		return Value{}, false
	}
	return value.Member(name)
}

type located struct {
	pointer string
	value   Value
}

// locate is every value at `pattern` ("*" = each array item), with its
// concrete JSON pointer.
func locate(value Value, pattern []string) []located {
	found := []located{{"", value}}
	for _, token := range pattern {
		var next []located
		for _, current := range found {
			if token == "*" {
				if current.value.Kind() == KindArray {
					for index, item := range current.value.Items() {
						next = append(next, located{current.pointer + "/" + strconv.Itoa(index), item})
					}
				}
				continue
			}
			if inner, ok := objectMember(current.value, token); ok {
				next = append(next, located{current.pointer + "/" + escapeToken(token), inner})
			}
		}
		found = next
	}
	return found
}

// SessionOffers is what the answers that opened sessions offered, per
// session: a method offered per session (`session/set_mode` by `modes`)
// may be sent only on a session whose opening answer offered it. A session
// not seen opened here is not judged (another connection may have opened
// it). Not safe for concurrent use.
type SessionOffers struct {
	// The gated methods a session's opening answer did not offer, for the
	// sessions seen opened with one: a bit per entry of
	// negotiationSessionGates (the generator allows at most 64), so that
	// recording an opening is one map entry, and none when it offered all.
	withheld map[string]uint64
}

// NewSessionOffers is an empty record.
func NewSessionOffers() *SessionOffers {
	return &SessionOffers{withheld: map[string]uint64{}}
}

// Record notes what the answer `result` to `method` with `params` offered,
// when `method` opens a session.
func (o *SessionOffers) Record(method string, params, result Value) {
	// The gates of one session are noted together: the bits `method`
	// decides (touched), and those of them it withheld.
	session, touched, withheld := "", uint64(0), uint64(0)
	for index, gate := range negotiationSessionGates {
		for _, opener := range gate.openers {
			if opener.method != method {
				continue
			}
			named := params
			if opener.inResult {
				named = result
			}
			member, ok := objectMember(named, gate.session)
			if !ok || member.Kind() != KindString {
				continue
			}
			if touched != 0 && member.Text() != session {
				o.note(session, touched, withheld)
				touched, withheld = 0, 0
			}
			session = member.Text()
			bit := uint64(1) << index
			touched |= bit
			if offer, found := objectMember(result, gate.member); !found || offer.Kind() == KindNull {
				withheld |= bit
			} else {
				withheld &^= bit
			}
		}
	}
	if touched != 0 {
		o.note(session, touched, withheld)
	}
}

// note sets the `touched` bits of what `session` withheld to `withheld`.
func (o *SessionOffers) note(session string, touched, withheld uint64) {
	withheld |= o.withheld[session] &^ touched
	if withheld == 0 {
		delete(o.withheld, session)
	} else {
		o.withheld[session] = withheld
	}
}

// Check is a *CapabilityError when `method` with `params` names a session
// opened here without its offer, else nil.
func (o *SessionOffers) Check(method string, params Value) error {
	for index, gate := range negotiationSessionGates {
		if gate.method != method {
			continue
		}
		session, ok := objectMember(params, gate.session)
		if !ok || session.Kind() != KindString {
			return nil
		}
		if o.withheld[session.Text()]&(uint64(1)<<index) != 0 {
			return &CapabilityError{Method: method, Side: "agent", Capability: "/" + escapeToken(gate.member)}
		}
		return nil
	}
	return nil
}

// WithoutUnhandledOffers is `result`, the agent's answer to `method`,
// without the members that offer per session the methods `handles` says
// the agent does not handle.
func WithoutUnhandledOffers(method string, result Value, handles func(string) bool) Value {
	if result.Kind() != KindObject {
		return result
	}
	members := result.Members()
	for index, member := range members {
		if !unhandledOffer(method, member.Name, handles) {
			continue
		}
		kept := slices.Clone(members[:index])
		for _, later := range members[index+1:] {
			if !unhandledOffer(method, later.Name, handles) {
				kept = append(kept, later)
			}
		}
		return ObjectValue(kept)
	}
	return result
}

// unhandledOffer is whether the member `name` of the answer to `method`
// offers per session a method that `handles` says the agent does not
// handle.
func unhandledOffer(method, name string, handles func(string) bool) bool {
	for _, gate := range negotiationSessionGates {
		if gate.member != name || handles(gate.method) {
			continue
		}
		for _, opener := range gate.openers {
			if opener.method == method {
				return true
			}
		}
	}
	return false
}

// protocolVersionOf is the `protocolVersion` of an initialize message, -1
// when it has no integer one.
func protocolVersionOf(message Value) int64 {
	value, ok := objectMember(message, "protocolVersion")
	if !ok || value.Kind() != KindNumber {
		return -1
	}
	version, err := strconv.ParseInt(value.Text(), 10, 64)
	if err != nil {
		return -1
	}
	return version
}

// negotiate is the negotiation of the two initialize messages, as their
// decoders encode them back.
func negotiate(request, response Value) (*Negotiated, error) {
	requested, answered := protocolVersionOf(request), protocolVersionOf(response)
	if answered > requested {
		return nil, &NegotiationError{Kind: "version_above_requested", Requested: requested, Answered: answered}
	}
	if answered != CurrentProtocolVersion {
		return nil, &NegotiationError{Kind: "unsupported_version", Requested: requested, Answered: answered}
	}
	return &Negotiated{ProtocolVersion: answered, request: request, response: response}, nil
}
