// One end of an ACP connection, copied as it is into every generated Go
// module (`connection.go`; the source is `templates/go/connection.go`):
// JSON-RPC 2.0 over an io.Reader and an io.Writer, one message a line, as
// ACP's stdio transport carries it. The design the four languages'
// connections share (names, options, the report of dropped input, the
// answer to each fault) is docs/connection.md. The generated `ends.go`
// opens the typed end of each side (`ConnectAgent`, `ConnectClient`) and
// holds the rules this end acts on, printed from the IR (`connection...`
// variables); this file only reads them.
//
// `Run` reads the peer's messages until the reader ends, each handled by
// the goroutine that read it. The peer's requests are answered by a
// goroutine each (one that answered an earlier request, when one waits),
// so that they run concurrently with each other and with the reading; its
// notifications are handled one at a time, in the order they arrived, by
// one goroutine; responses settle the calls this end made. Everything this
// end sends leaves through one queue, in the order it was made, written by
// one goroutine at a time (the writer, or, when no other is writing, the
// goroutine that answered a request, which writes its answer itself, and a
// call whose ctx is never done, which writes its request), each message and
// its newline in one Write.
//
// The connection removes the races the RFDs are about, by construction:
//
//   - Prompts end when their turn is drained. The client's end feeds the
//     package's turn tracker machine (`turns.go`, the exported
//     `TurnTracker`'s) in read order: each `session/prompt` it sends, each
//     `session/update` and each prompt response it reads. A prompt call
//     returns once the machine says its turn is drained (by its response
//     alone, or with the `turn_complete` naming it when negotiated, or
//     protocol v2's `idle`) and every notification read up to the message
//     that drained it has been handled (its handler returned). An error
//     response drains the turn at once.
//   - The agent's end answers a prompt after its updates: every
//     notification a handler sent before returning precedes its response.
//     When `turn_complete` was negotiated and the prompt's handler sent
//     none, the end sends it, with the response's stop reason, just before
//     the response.
//   - `session/ready` (rule R1). When the agent advertised it, the client's
//     end sends it once a `session/new` or `session/load` result has
//     arrived, before the call returns, and the agent's end holds that
//     session's scoped notifications until it arrives, then releases them
//     in order.
//   - `session/cancel` ends the turn it names as cancelled. From the moment
//     the agent's end reads it, the turn's `Cancellation(sessionID)` channel
//     is closed, the turn's pending calls to the client (those whose params
//     name its session) fail with a *TurnCancelled, and new ones fail at
//     once. In protocol v1, whatever the prompt's handler ends with is
//     answered with the `cancelled` stop reason, after every update the
//     handler sent; in v2 the turn is the session's foreground work, from
//     a prompt (or a state that is not `idle`) to the `idle` state update
//     the agent sends, and that update carries the `cancelled` stop reason.
//     While such work waits for the user's answer to a permission request,
//     the v2 agent's end reports `requires_action`, and `running` once the
//     last is answered, unless the agent reported a state meanwhile. The
//     client's end, sending `session/cancel`, answers the session's pending
//     permission requests with the `cancelled` outcome, after it.
//
// `ConnectOptions{Unordered: true}` opens an end without the ordering, as
// connections without it behave; it exists to show what the ordering
// prevents. The agent's end keeps the schema's handshake: it answers every
// request before `initialize` was answered with -32600 and reports such a
// notification as dropped; its `initialize` answer names the highest
// version it supports at or below the requested one (or fails with the
// schema's unsupported-version error, when it has one) and always carries
// the agent's capabilities. Each end sets the method gates of its own
// capabilities from its handlers (`advertisedRules`): the agent's in that
// answer, the client's in the `initialize` it sends. Once the exchange is
// done (the agent answered it, the client got its result), every request
// and notification this end sends is checked against the gate of its
// method first: one the exchange does not allow fails with the
// negotiation's *CapabilityError, and nothing is written. Methods offered
// per session (`session/set_mode` by `modes`) are checked the same way
// against the answer that opened the session named, when this end received
// it (SessionOffers); the agent's end removes from its opening answers the
// offers of the methods it has no handler for. A call whose ctx is done before its answer
// forgets the request and, when the schema has `$/cancel_request`, tells
// the peer; the peer's `$/cancel_request` cancels the ctx of the handler it
// names, and its request is answered with -32800.

package acp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"
)

// The JSON-RPC error codes the connection answers with, besides the
// dispatchers'.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeRequestCancelled = -32800
)

// ErrClosed is what a call fails with once the connection's reader ended.
var ErrClosed = errors.New("the connection is closed")

// ConnectOptions is how an end behaves beyond the schema's rules.
type ConnectOptions struct {
	// Dropped, when set, is told of every received message that got
	// neither an answer nor a handler.
	Dropped func(Dropped)
	// Unordered turns off the ordering (prompts end on their response,
	// nothing is held for `session/ready` nor sent, no `turn_complete` is
	// added, responses are written ahead of queued notifications); it
	// exists to show what the ordering prevents.
	Unordered bool
}

// Dropped is a received message that got neither an answer nor a handler:
// a notification that is unknown, invalid, whose handler failed or that
// came before `initialize` was answered, or a response to no request in
// flight.
type Dropped struct {
	// Method is the notification's method; unset for a response.
	Method Optional[string]
	// Error is the JSON-RPC error the message would have been answered with.
	Error *RequestError
	// Line is the message's position: the Line-th message the end read
	// (each non-blank line), from 1.
	Line uint64
}

// TurnCancelled is what a call of a cancelled prompt turn fails with: the
// client's `session/cancel` named its session (the agent's end).
type TurnCancelled struct {
	SessionID string
}

func (e *TurnCancelled) Error() string {
	return "the prompt turn of session " + e.SessionID + " was cancelled"
}

// Features are the RFD features an `initialize` exchange turned on.
type Features struct {
	SessionReady bool
	TurnComplete bool
}

// readyRules are rule R1's messages: `session/ready` (the client's
// notification) and its session id member, the requests whose result
// opens a session, and the agent's session-scoped notifications.
type readyRules struct {
	notification string
	session      string
	openers      []readyOpener
	scoped       []string
}

// readyOpener is a request that opens a session: the session id is in its
// result, else in its params.
type readyOpener struct {
	method   string
	inResult bool
}

// turnEnd is what ends a prompt turn besides its response (the zero
// value: nothing), as the agent's end sends it.
type turnEnd int

const (
	// The update tagged `endTag` whose `request` member names the prompt
	// (protocol v1 with turn_complete, once negotiated).
	turnEndComplete turnEnd = iota + 1
	// The update tagged `endTag` whose `state` member is `idle` (v2).
	turnEndIdle
)

// promptTurns are a prompt turn's messages: the prompt, the update
// notification with its session id, update and tag members, and what
// ends a turn.
type promptTurns struct {
	prompt, update, session, payload, tag string
	end                                   turnEnd
	endTag                                string
	// turnEndComplete: the members naming the prompt and the stop reason.
	request, stopReason string
	// turnEndIdle: the state member and its `idle` value.
	state, idle string
}

// cancelRules are `$/cancel_request` and its member naming the request.
type cancelRules struct {
	method, member string
}

// turnCancelRules are what `session/cancel` asks of each end: the
// notification and the prompt, the session member, the stop reason member
// and its cancelled value, whether they go into the `idle` state update
// (v2) rather than the prompt's result (v1), the client's requests whose
// params name a session, the permission request with its cancelled result
// (JSON text), and v2's states around permission requests.
type turnCancelRules struct {
	notification, prompt, session string
	stopReason, cancelled         string
	idleEnd                       bool
	scoped                        []string
	permission                    string
	permissionResult              string
	awaiting                      *awaitingRules
}

// awaitingRules: while the turn's `request`s wait for the user, the
// agent's end reports `requiresAction`, then `running`.
type awaitingRules struct {
	request, requiresAction, running string
}

// handshakeRules are what the agent's end decides about `initialize`: the
// method, its version member, the supported versions (oldest first), the
// result member of the agent's capabilities and the unsupported-version
// error (nil: the latest supported version is answered).
type handshakeRules struct {
	method, version string
	supported       []int64
	capabilities    string
	unsupported     *unsupportedRules
	// The gates the agent's end and the client's end set from their handlers.
	advertises [2]advertisedRules
}

// advertisedRules are the method gates a side's initialize message
// carries, set from its handlers: each is on when the side handles every
// one of its methods (its value kept when on, else `on`, objects on the
// way created), and removed otherwise. A gate's methods include those of
// the gates enclosing it.
type advertisedRules struct {
	member string
	gates  []advertisedGate
}

// advertisedGate is one gate: the tokens of its pointer inside the
// capabilities object, its "on" value as JSON text, the requests it needs.
type advertisedGate struct {
	pointer []string
	on      string
	methods []string
}

// apply is `capabilities` with the gates set as `handled` says.
func (a *advertisedRules) apply(capabilities Value, handled func(string) bool) Value {
	if capabilities.Kind() != KindObject {
		capabilities = ObjectValue(nil)
	}
	for _, gate := range a.gates {
		on := true
		for _, method := range gate.methods {
			on = on && handled(method)
		}
		capabilities = setGate(capabilities, gate.pointer, on, gate.on)
	}
	return capabilities
}

// setGate is `object` with the gate at `pointer` turned on (kept when on,
// else `onText`, objects on the way created) or removed; what it changes
// is copied.
func setGate(object Value, pointer []string, on bool, onText string) Value {
	name := pointer[0]
	members := slices.Clone(object.Members())
	current, present := object.Member(name)
	if len(pointer) > 1 {
		if current.Kind() != KindObject {
			if !on {
				return object
			}
			current = ObjectValue(nil)
		}
		return ObjectValue(setMember(members, name, setGate(current, pointer[1:], on, onText)))
	}
	if !on {
		if !present {
			return object
		}
		return ObjectValue(slices.DeleteFunc(members, func(member Member) bool { return member.Name == name }))
	}
	if current.Kind() == KindObject || current.Kind() == KindBool && current.Bool() {
		return object
	}
	value, _ := Parse([]byte(onText))
	return ObjectValue(setMember(members, name, value))
}

// unsupportedRules is the error of an `initialize` below every supported
// version: its code, message and the data members of the requested and
// supported versions.
type unsupportedRules struct {
	code                          int64
	message, requested, supported string
}

// answer is the version answered to a request for `requested`, false for
// the unsupported-version error.
func (h *handshakeRules) answer(requested int64) (int64, bool) {
	for index := len(h.supported) - 1; index >= 0; index-- {
		if h.supported[index] <= requested {
			return h.supported[index], true
		}
	}
	if h.unsupported == nil && len(h.supported) > 0 {
		return h.supported[len(h.supported)-1], true
	}
	return 0, false
}

// jsonWhitespace is what a blank line holds: JSON's whitespace only (a
// form feed or a no-break space is text that is not JSON).
const jsonWhitespace = " \t\r\n"

// The message of the answer to a request before `initialize` was answered.
const notInitialized = "initialize has not been answered"

// callOutcome is a call's decoded result or its error.
type callOutcome struct {
	value any
	err   error
}

// clientTurn is a prompt call's turn on the client's end: its response's
// outcome once it was read, and once the turn machine drained it, how many
// notifications had been read by then.
type clientTurn struct {
	answered bool
	answer   callOutcome
	drained  bool
	read     int
}

// pendingCall is a request this end sent that is not answered yet.
type pendingCall struct {
	method  string
	params  Value
	decode  func(Value) (any, error)
	done    chan callOutcome
	settled bool
	turn    *clientTurn
	// The agent's end: the session whose turn the request belongs to.
	session string
}

func (p *pendingCall) deliver(result callOutcome) {
	if !p.settled {
		p.settled = true
		p.done <- result
	}
}

// turnInFlight is, on the agent's end, a prompt being handled (v1) or the
// session's foreground work (v2): the prompt's request key (empty for work
// the agent started), its cancellation, and (v2) whether a state that is
// not `idle` reported it, the last state sent, the permission requests
// waiting for the user and whether this end reported `requires_action`.
type turnInFlight struct {
	key       string
	cancelled bool
	signal    chan struct{}
	active    bool
	state     string
	asking    int
	reported  bool
}

func newTurn(key string) *turnInFlight {
	return &turnInFlight{key: key, signal: make(chan struct{})}
}

// answering is a peer's request being handled: its ctx's cancel, whether
// the peer cancelled it, and whether the client's `session/cancel`
// withdrew it (a permission request, answered `cancelled`).
type answering struct {
	cancel    context.CancelFunc
	stopped   bool
	withdrawn bool
}

// inboxItem is a notification waiting for its handler.
type inboxItem struct {
	method string
	params Value
	parsed payload
	line   uint64
}

// Connection is one end of a connection; ConnectAgent and ConnectClient
// open the typed ones.
type Connection struct {
	agent                bool
	dispatchRequest      func(ctx context.Context, method string, params payload) (Value, error)
	dispatchNotification func(ctx context.Context, method string, params payload) error
	// handles reports whether the implementation answers a request itself.
	handles func(method string) bool
	reader  io.Reader
	writer  io.Writer
	options ConnectOptions

	// reading is held while a line read is handled; readEnded is set once
	// Run stopped handling them.
	reading   sync.Mutex
	readEnded bool

	mu     sync.Mutex
	wake   *sync.Cond
	base   context.Context
	closed error
	// The reader ended: the notification goroutine stops once its queue is
	// empty, then the writer once everything was written; a Write failed.
	stopping bool
	finished bool
	broken   bool
	nextID   int64
	pending  map[int64]*pendingCall
	lines    uint64
	features Features
	// Once the `initialize` exchange is done: what the peer allows this end
	// to send (the negotiation's CheckOutgoing).
	outgoing func(method string) error
	// The client's end: what the answers opening sessions offered, per
	// session; nil when the schema offers nothing per session.
	offers sessionOfferRecord
	// The agent's end: `initialize` was answered with a result.
	initialized bool
	// The peer's requests being handled, by id key; how many goroutines
	// wait for the next one (startAnswer), and the requests handed to them.
	running  map[string]*answering
	handlers sync.WaitGroup
	idle     int
	requests chan peerRequest
	// The peer's notifications not handled yet, and how many were read and
	// handled.
	inbox   []inboxItem
	read    int
	handled int
	// What this end sends, in order (responses that overtake first, when
	// unordered).
	outbox     [][]byte
	overtaking [][]byte
	// A goroutine is writing what is queued (the writer, or a handler's
	// that queued its answer).
	writing bool
	// The agent's end: rule R1's gate, the prompts whose `turn_complete`
	// its handler sent, and the turns in flight by session. The client's
	// end: the sessions of the permission requests being handled, and the
	// turn machine its prompts, updates and responses feed (ordered, when
	// the schema has prompt turns; made at the first prompt).
	gate        *SessionReadyGate[[]byte]
	completed   map[string]bool
	turns       map[string]*turnInFlight
	permissions map[string]string
	machine     *turnMachine[Value]
}

func newConnection(agent bool, reader io.Reader, writer io.Writer, options ConnectOptions) *Connection {
	c := &Connection{
		agent:       agent,
		reader:      reader,
		writer:      writer,
		options:     options,
		base:        context.Background(),
		nextID:      1,
		pending:     map[int64]*pendingCall{},
		running:     map[string]*answering{},
		completed:   map[string]bool{},
		turns:       map[string]*turnInFlight{},
		permissions: map[string]string{},
		requests:    make(chan peerRequest),
		offers:      newSessionOffers(),
	}
	c.wake = sync.NewCond(&c.mu)
	return c
}

// Features is what this end's `initialize` exchange negotiated so far.
func (c *Connection) Features() Features {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.features
}

// Cancellation is, on the agent's end, a channel closed when the client's
// `session/cancel` names the session of the prompt turn in flight (one
// never closed when there is none). The end acts on it by itself: a
// handler watches it only to stop its own work.
func (c *Connection) Cancellation(sessionID string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if turn, ok := c.turns[sessionID]; ok {
		return turn.signal
	}
	return make(chan struct{})
}

// Run reads the peer's messages and handles them until the reader ends
// (io.EOF: Run returns nil) or ctx is done, and returns once every handler
// returned and everything queued was written. The handlers' ctx derive
// from ctx; calls still waiting fail with ErrClosed. A reader blocked in
// Read when ctx is done is left to its caller to close.
func (c *Connection) Run(ctx context.Context) error {
	base, cancel := context.WithCancel(ctx)
	defer cancel()
	c.mu.Lock()
	c.base = base
	c.mu.Unlock()
	written := make(chan struct{})
	go c.write(written)
	consumed := make(chan struct{})
	go c.consume(consumed)
	ended := make(chan error, 1)
	go c.readLines(ended)
	var failure error
	select {
	case <-ctx.Done():
		failure = ctx.Err()
	case failure = <-ended:
	}
	// From here on nothing read is handled: a message being handled is
	// waited for, and the reader, if still in Read, stops after it.
	c.reading.Lock()
	c.readEnded = true
	c.reading.Unlock()
	c.mu.Lock()
	c.close(ErrClosed)
	c.mu.Unlock()
	cancel()
	c.handlers.Wait()
	c.mu.Lock()
	c.stopping = true
	close(c.requests)
	c.wake.Broadcast()
	c.mu.Unlock()
	<-consumed
	c.mu.Lock()
	c.finished = true
	c.wake.Broadcast()
	c.mu.Unlock()
	<-written
	if errors.Is(failure, io.EOF) {
		return nil
	}
	return failure
}

// readLines handles each line the reader reads, in this goroutine (no handoff
// per message), until the reader fails or Run stopped reading; the
// reader's error goes to `ended`.
func (c *Connection) readLines(ended chan<- error) {
	buffered := bufio.NewReader(c.reader)
	var long []byte
	for {
		text, err := buffered.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(long) > 0 {
			// A line longer than the buffer is gathered in `long`, kept
			// for the next one.
			long = append(long, text...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			text = long
		}
		if len(text) > 0 && !c.handleLine(text) {
			return
		}
		long = long[:0]
		if err != nil {
			ended <- err
			return
		}
	}
}

// handleLine handles one line unless Run stopped reading; false once it
// did. Nothing keeps `text` after it returns.
func (c *Connection) handleLine(text []byte) bool {
	c.reading.Lock()
	defer c.reading.Unlock()
	if c.readEnded {
		return false
	}
	if text = bytes.Trim(text, jsonWhitespace); len(text) > 0 {
		c.receive(text)
	}
	return true
}

// close fails every call in flight, and every later one, with `reason`.
func (c *Connection) close(reason error) {
	if c.closed == nil {
		c.closed = reason
	}
	for id, pending := range c.pending {
		pending.deliver(callOutcome{err: c.closed})
		delete(c.pending, id)
	}
}

// write writes what is queued, in order, whenever no other goroutine does,
// until the end stops and nothing is left.
func (c *Connection) write(done chan<- struct{}) {
	defer close(done)
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for c.writing || len(c.outbox) == 0 && len(c.overtaking) == 0 && !c.finished {
			c.wake.Wait()
		}
		if len(c.outbox) == 0 && len(c.overtaking) == 0 {
			return
		}
		c.writeQueued()
	}
}

// writeQueued writes what is queued, in order, until nothing is; a Write
// that fails closes the end and drops the rest. The caller holds the lock,
// let go of during each Write, and no other goroutine is writing.
func (c *Connection) writeQueued() {
	c.writing = true
	for {
		var text []byte
		switch {
		case len(c.overtaking) > 0:
			text, c.overtaking = c.overtaking[0], c.overtaking[1:]
		case len(c.outbox) > 0:
			text, c.outbox = c.outbox[0], c.outbox[1:]
		default:
			c.writing = false
			if c.finished {
				c.wake.Broadcast()
			}
			return
		}
		c.mu.Unlock()
		_, err := c.writer.Write(text)
		c.mu.Lock()
		if err != nil {
			c.outbox, c.overtaking, c.broken = nil, nil, true
			c.close(err)
		}
	}
}

// queue sends `message` after everything queued before it (`overtaking`:
// before everything not overtaking), written by the writer goroutine. The
// caller holds the lock.
func (c *Connection) queue(message Value, overtaking bool) {
	if text, err := messageLine(message); c.enqueueLine(text, err, overtaking) {
		c.wake.Broadcast()
	}
}

// enqueueLine queues a message printed as `text` (unless printing it
// failed with `err`) without waking the writer: the caller does, or writes
// what is queued itself (writeQueued) unless another goroutine is writing.
// Whether the message was queued.
func (c *Connection) enqueueLine(text []byte, err error, overtaking bool) bool {
	if err != nil || c.broken {
		return false
	}
	if overtaking {
		c.overtaking = append(c.overtaking, text)
	} else {
		c.outbox = append(c.outbox, text)
	}
	return true
}

// messageLine is `message` as JSON text and its newline; most messages
// fit the first buffer.
func messageLine(message Value) ([]byte, error) {
	out := bytes.NewBuffer(make([]byte, 0, 256))
	if err := message.write(out); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// requestLine is the line of request `id`: messageLine of its object,
// printed without building it.
func requestLine(id int64, method string, params Value) ([]byte, error) {
	out := bytes.NewBuffer(make([]byte, 0, 256))
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	var digits [20]byte
	out.Write(strconv.AppendInt(digits[:0], id, 10))
	out.WriteString(`,"method":`)
	writeString(out, method)
	out.WriteString(`,"params":`)
	if err := params.write(out); err != nil {
		return nil, err
	}
	out.WriteString("}\n")
	return out.Bytes(), nil
}

// responseLine is messageLine of rpcResponse(id, result, failure), a
// result printed without building the response's object.
func responseLine(id, result Value, failure *RequestError) ([]byte, error) {
	if failure != nil {
		return messageLine(rpcResponse(id, result, failure))
	}
	out := bytes.NewBuffer(make([]byte, 0, 256))
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	if err := id.write(out); err != nil {
		return nil, err
	}
	out.WriteString(`,"result":`)
	if err := result.write(out); err != nil {
		return nil, err
	}
	out.WriteString("}\n")
	return out.Bytes(), nil
}

// receive handles one message, checked in docs/connection.md's order of
// faults.
func (c *Connection) receive(text []byte) {
	c.mu.Lock()
	c.lines++
	line := c.lines
	c.mu.Unlock()
	message, err := Parse(text)
	if err != nil {
		c.fault(NullValue(), codeParseError, "not JSON")
		return
	}
	version, _ := message.Member("jsonrpc")
	if message.Kind() != KindObject || version.Kind() != KindString || version.Text() != "2.0" {
		c.fault(NullValue(), codeInvalidRequest, "not a JSON-RPC 2.0 message")
		return
	}
	id, hasID := message.Member("id")
	if hasID && id.Kind() != KindString && id.Kind() != KindNumber && id.Kind() != KindNull {
		c.fault(NullValue(), codeInvalidRequest, "the id is not a string, a number or null")
		return
	}
	method, hasMethod := message.Member("method")
	if !hasMethod {
		_, hasResult := message.Member("result")
		_, hasError := message.Member("error")
		if hasResult || hasError {
			c.settle(message, id, line)
		} else {
			c.fault(id, codeInvalidRequest, "neither a call nor an answer")
		}
		return
	}
	if method.Kind() != KindString {
		c.fault(id, codeInvalidRequest, "the method is not a string")
		return
	}
	name := method.Text()
	params, hasParams := message.Member("params")
	parsed := parsedPayload(Optional[Value]{Set: hasParams, Value: params})
	c.mu.Lock()
	defer c.mu.Unlock()
	if hasID {
		if refusal := c.refusal(name, params); refusal != nil {
			c.queue(rpcResponse(id, Value{}, refusal), c.agent && c.options.Unordered)
			return
		}
		key := idKey(id)
		c.startTurn(key, name, params)
		ctx, cancel := context.WithCancel(c.base)
		running := &answering{cancel: cancel}
		c.running[key] = running
		c.startAnswer(peerRequest{ctx: ctx, running: running, key: key, id: id, method: name, params: params, parsed: parsed})
		return
	}
	if c.uninitialized(name) {
		c.report(Some(name), &RequestError{Code: codeInvalidRequest, Message: notInitialized, Data: Some(ObjectValue([]Member{{Name: "method", Value: StringValue(name)}}))}, line)
		return
	}
	c.onRead(name, params)
	c.read++
	if c.machine != nil && name == connectionTurns.update {
		c.machine.update(params)
		c.drainTurns()
	}
	c.inbox = append(c.inbox, inboxItem{method: name, params: params, parsed: parsed, line: line})
	c.wake.Broadcast()
}

// fault answers a message this end cannot take.
func (c *Connection) fault(id Value, code int64, message string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queue(rpcResponse(id, Value{}, &RequestError{Code: code, Message: message}), c.agent && c.options.Unordered)
}

// report tells Dropped of the line-th message. The caller holds the lock,
// which is let go of while Dropped runs.
func (c *Connection) report(method Optional[string], failure *RequestError, line uint64) {
	if c.options.Dropped == nil {
		return
	}
	c.mu.Unlock()
	defer c.mu.Lock()
	c.options.Dropped(Dropped{Method: method, Error: failure, Line: line})
}

// The peer's requests.

// uninitialized is whether the agent's end takes no `method` yet.
func (c *Connection) uninitialized(method string) bool {
	return c.agent && connectionHandshake != nil && method != connectionHandshake.method && !c.initialized
}

// refusal is the agent's end's answer to the request `method` without its
// handler: -32600 before `initialize` was answered, and the
// unsupported-version error to an `initialize` below every supported
// version.
func (c *Connection) refusal(method string, params Value) *RequestError {
	if c.uninitialized(method) {
		return &RequestError{Code: codeInvalidRequest, Message: notInitialized, Data: Some(ObjectValue([]Member{{Name: "method", Value: StringValue(method)}}))}
	}
	handshake := connectionHandshake
	if !c.agent || handshake == nil || method != handshake.method || handshake.unsupported == nil {
		return nil
	}
	requested, ok := versionMember(params, handshake.version)
	if !ok {
		return nil
	}
	if _, supported := handshake.answer(requested); supported {
		return nil
	}
	versions := make([]Value, 0, len(handshake.supported))
	for _, version := range handshake.supported {
		versions = append(versions, intValue(version))
	}
	data := ObjectValue([]Member{
		{Name: handshake.unsupported.requested, Value: intValue(requested)},
		{Name: handshake.unsupported.supported, Value: ArrayValue(versions)},
	})
	return &RequestError{Code: handshake.unsupported.code, Message: handshake.unsupported.message, Data: Some(data)}
}

// handshakeResult is the agent's answer to `initialize`: the agreed
// version (when the params name one) and the capabilities member, `{}`
// when the handler left it out.
func (c *Connection) handshakeResult(method string, params, result Value) Value {
	handshake := connectionHandshake
	if !c.agent || handshake == nil || method != handshake.method || result.Kind() != KindObject {
		return result
	}
	members := slices.Clone(result.Members())
	if requested, ok := versionMember(params, handshake.version); ok {
		if agreed, ok := handshake.answer(requested); ok {
			members = setMember(members, handshake.version, intValue(agreed))
		}
	}
	capabilities, _ := result.Member(handshake.capabilities)
	members = setMember(members, handshake.capabilities, handshake.advertises[0].apply(capabilities, c.handles))
	return ObjectValue(members)
}

// advertise: the client's end's `initialize` carries the capabilities its
// handlers allow.
func (c *Connection) advertise(method string, params Value) Value {
	handshake := connectionHandshake
	if c.agent || handshake == nil || method != handshake.method || params.Kind() != KindObject {
		return params
	}
	advertised := &handshake.advertises[1]
	written, present := params.Member(advertised.member)
	capabilities := advertised.apply(written, c.handles)
	if !present && len(capabilities.Members()) == 0 {
		// Left out, and nothing to advertise: still left out (the schema's default).
		return params
	}
	return ObjectValue(setMember(slices.Clone(params.Members()), advertised.member, capabilities))
}

// refused is the negotiation's *CapabilityError when the `initialize`
// exchange does not allow sending `method`.
func (c *Connection) refused(method string) error {
	if c.outgoing == nil {
		return nil
	}
	return c.outgoing(method)
}

// sessionOfferRecord is what the answers opening sessions offered (the
// negotiation's SessionOffers).
type sessionOfferRecord interface {
	Record(method string, params, result Value)
	Check(method string, params Value) error
}

// peerRequest is a request of the peer to answer: its handler's ctx,
// its entry among those running, its id (and key), method and params.
type peerRequest struct {
	ctx     context.Context
	running *answering
	key     string
	id      Value
	method  string
	params  Value
	parsed  payload
}

// keptAnswerers is how many goroutines that answered a request may wait
// for the next one, so that a request is usually handed to one whose
// stack has grown rather than to a new goroutine.
const keptAnswerers = 2

// startAnswer answers `request` on a goroutine of its own: a waiting one,
// else a new one. The caller holds the lock.
func (c *Connection) startAnswer(request peerRequest) {
	c.handlers.Add(1)
	if c.idle > 0 {
		c.idle--
		c.requests <- request
		return
	}
	go c.answerRequests(request)
}

// answerRequests answers `request`, then those startAnswer hands it while
// it waits, until Run stops or enough others wait.
func (c *Connection) answerRequests(request peerRequest) {
	for {
		c.answer(request)
		c.handlers.Done()
		c.mu.Lock()
		if c.idle >= keptAnswerers || c.stopping {
			c.mu.Unlock()
			return
		}
		c.idle++
		c.mu.Unlock()
		next, ok := <-c.requests
		if !ok {
			return
		}
		request = next
	}
}

// answer runs the handler of the peer's request, which the peer's
// `$/cancel_request` may cancel, then answers it.
func (c *Connection) answer(request peerRequest) {
	ctx, running, key, id, method, params, parsed := request.ctx, request.running, request.key, request.id, request.method, request.params, request.parsed
	result, err := c.dispatchRequest(ctx, method, parsed)
	running.cancel()
	var failure *RequestError
	if err == nil && !printsAsItself(result, 1) {
		// The answer is the result as printing and parsing it makes it, or
		// -32603 when it cannot be.
		var text []byte
		if text, err = printedResult(result, nil); err == nil {
			result, err = Parse(text)
		}
	}
	if err != nil && !errors.As(err, &failure) {
		failure = &RequestError{Code: codeInternalError, Message: err.Error()}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if failure == nil {
		result = c.handshakeResult(method, params, result)
		if c.agent {
			result = withoutUnhandledOffers(method, result, c.handles)
		}
	}
	stopped := false
	if running.stopped {
		if running.withdrawn && connectionTurnCancel != nil && connectionTurnCancel.permission != "" {
			result, _ = Parse([]byte(connectionTurnCancel.permissionResult))
			failure = nil
		} else {
			stopped = true
			failure = &RequestError{Code: codeRequestCancelled, Message: "Request cancelled"}
		}
	}
	if c.running[key] == running {
		delete(c.running, key)
	}
	delete(c.permissions, key)
	// The turn ends either way; the peer's `$/cancel_request` keeps its answer.
	if ended, endedFailure := c.endTurn(key, method, params, result, failure); !stopped {
		result, failure = ended, endedFailure
	}
	if failure == nil {
		c.beforeResponse(id, method, params, result)
	}
	text, err := responseLine(id, result, failure)
	queued := c.enqueueLine(text, err, c.agent && c.options.Unordered)
	if failure == nil {
		c.afterResponse(method, params, result)
	}
	// The answer leaves from this goroutine, without waking the writer,
	// unless another goroutine is writing (it then writes the answer too).
	if queued && !c.writing {
		c.writeQueued()
	}
}

// beforeResponse: on the agent's end, before its answer is queued,
// `initialize` decides the features (and opens rule R1's gate); a prompt
// whose handler sent no `turn_complete` gets one, when negotiated.
func (c *Connection) beforeResponse(id Value, method string, params, result Value) {
	if !c.agent {
		return
	}
	if method == connectionInitialize {
		paramsText, _ := params.MarshalJSON()
		resultText, _ := result.MarshalJSON()
		c.features = negotiatedFeatures(paramsText, resultText)
		c.outgoing = negotiatedOutgoing(paramsText, resultText)
		c.initialized = true
		if c.features.SessionReady && !c.options.Unordered {
			c.gate = NewSessionReadyGate[[]byte](true)
		}
		return
	}
	turns := connectionTurns
	if turns == nil || method != turns.prompt || turns.end != turnEndComplete {
		return
	}
	key := idKey(id)
	if c.completed[key] {
		delete(c.completed, key)
		return
	}
	reason, ok := result.Member(turns.stopReason)
	if !c.features.TurnComplete || c.options.Unordered || !ok {
		return
	}
	session, _ := params.Member(turns.session)
	update := ObjectValue([]Member{
		{Name: turns.tag, Value: StringValue(turns.endTag)},
		{Name: turns.request, Value: id},
		{Name: turns.stopReason, Value: reason},
	})
	c.postNotification(turns.update, ObjectValue([]Member{{Name: turns.session, Value: session}, {Name: turns.payload, Value: update}}))
}

// afterResponse: the agent's end answered a request that opens a session;
// from now on its scoped notifications wait for `session/ready`.
func (c *Connection) afterResponse(method string, params, result Value) {
	if c.gate == nil || connectionReady == nil {
		return
	}
	for _, opener := range connectionReady.openers {
		if opener.method != method {
			continue
		}
		from := params
		if opener.inResult {
			from = result
		}
		if session, ok := textMember(from, connectionReady.session); ok {
			c.gate.Responded(session, 0)
		}
	}
}

// startTurn: a request of the peer arrives; on the agent's end, a prompt
// for a session starts a turn, which `session/cancel` may cancel; on the
// client's, a permission request is noted with its session.
func (c *Connection) startTurn(key, method string, params Value) {
	rules := connectionTurnCancel
	if rules == nil {
		return
	}
	session, ok := textMember(params, rules.session)
	if !ok {
		return
	}
	if c.agent && method == rules.prompt {
		// In v2, a prompt joins the session's foreground work still going.
		turn, going := c.turns[session]
		if !rules.idleEnd || !going || turn.cancelled {
			c.turns[session] = newTurn(key)
		}
	} else if !c.agent && rules.permission != "" && method == rules.permission {
		c.permissions[key] = session
	}
}

// endTurn: on the agent's end, in v1, the answer to a prompt whose turn
// was cancelled is the `cancelled` stop reason, whatever its handler ended
// with (the result's other members kept); the turn ends. In v2 the answer
// only accepts the prompt: a refused prompt ends a turn no state reported,
// and the `idle` state ends the others.
func (c *Connection) endTurn(key, method string, params, result Value, failure *RequestError) (Value, *RequestError) {
	rules := connectionTurnCancel
	if !c.agent || rules == nil || method != rules.prompt {
		return result, failure
	}
	session, ok := textMember(params, rules.session)
	turn := c.turns[session]
	if !ok || turn == nil || turn.key != key {
		return result, failure
	}
	if rules.idleEnd {
		if failure != nil && !turn.active {
			delete(c.turns, session)
		}
		return result, failure
	}
	delete(c.turns, session)
	if !turn.cancelled {
		return result, failure
	}
	var members []Member
	if failure == nil && result.Kind() == KindObject {
		members = slices.Clone(result.Members())
	}
	return ObjectValue(setMember(members, rules.stopReason, StringValue(rules.cancelled))), nil
}

// cancelTurn: the agent's end read `session/cancel`; the turn of the
// session it names is cancelled and its pending calls fail with a
// *TurnCancelled. Their entries stay until the client's answer, which then
// settles nothing and is not reported.
func (c *Connection) cancelTurn(method string, params Value) {
	rules := connectionTurnCancel
	if !c.agent || rules == nil || method != rules.notification {
		return
	}
	session, ok := textMember(params, rules.session)
	turn := c.turns[session]
	if !ok || turn == nil || turn.cancelled {
		return
	}
	turn.cancelled = true
	close(turn.signal)
	for _, pending := range c.pending {
		if pending.session == session {
			pending.deliver(callOutcome{err: &TurnCancelled{SessionID: session}})
		}
	}
}

// withdrawPermissions: the client's end sent `session/cancel`; the
// session's permission requests being handled stop, to be answered
// `cancelled` (answer).
func (c *Connection) withdrawPermissions(method string, params Value) {
	rules := connectionTurnCancel
	if c.agent || rules == nil || method != rules.notification {
		return
	}
	session, ok := textMember(params, rules.session)
	if !ok {
		return
	}
	for key, asked := range c.permissions {
		running := c.running[key]
		if asked != session || running == nil {
			continue
		}
		delete(c.permissions, key)
		delete(c.running, key)
		running.stopped, running.withdrawn = true, true
		running.cancel()
	}
}

// The peer's notifications.

// onRead is what a notification does as soon as it is read, before its
// handler runs: `$/cancel_request` cancels the handler it names,
// `session/cancel` the turn, `session/ready` releases what the agent's end
// held.
func (c *Connection) onRead(method string, params Value) {
	c.cancelTurn(method, params)
	if cancel := connectionCancel; cancel != nil && method == cancel.method {
		if id, ok := params.Member(cancel.member); ok {
			key := idKey(id)
			if running := c.running[key]; running != nil {
				delete(c.running, key)
				running.stopped = true
				running.cancel()
			}
		}
	}
	if ready := connectionReady; ready != nil && method == ready.notification && c.gate != nil {
		if session, ok := textMember(params, ready.session); ok {
			c.release(c.gate.Ready(session))
		}
	}
}

// consume handles the queued notifications in order, one at a time, until
// the end stops.
func (c *Connection) consume(done chan<- struct{}) {
	defer close(done)
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for len(c.inbox) == 0 && !c.stopping {
			c.wake.Wait()
		}
		if len(c.inbox) == 0 {
			return
		}
		item := c.inbox[0]
		c.inbox = c.inbox[1:]
		ctx := c.base
		c.mu.Unlock()
		err := c.dispatchNotification(ctx, item.method, item.parsed)
		c.mu.Lock()
		var failure *RequestError
		if err != nil && !errors.As(err, &failure) {
			failure = &RequestError{Code: codeInternalError, Message: err.Error()}
		}
		if failure != nil && !c.actedOn(item.method, failure) {
			c.report(Some(item.method), failure, item.line)
		}
		c.handled++
		c.finishTurns()
	}
}

// actedOn is whether a notification's failure is only that it lacks a
// handler while the end acts on it itself (`$/cancel_request`, the agent's
// `session/ready` and `session/cancel`): not reported.
func (c *Connection) actedOn(method string, failure *RequestError) bool {
	if failure.Code != codeMethodNotFound {
		return false
	}
	return (connectionCancel != nil && method == connectionCancel.method) ||
		(c.agent && connectionReady != nil && method == connectionReady.notification) ||
		(c.agent && connectionTurnCancel != nil && method == connectionTurnCancel.notification)
}

// The calls this end makes.

// settle: the peer answered a request in the line-th message; its call
// returns, or a prompt's waits for its turn to drain.
func (c *Connection) settle(message, id Value, line uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var pending *pendingCall
	key := int64(-1)
	if id.Kind() == KindNumber {
		if parsed, err := strconv.ParseInt(id.Text(), 10, 64); err == nil {
			key = parsed
		}
	}
	pending = c.pending[key]
	if pending == nil || (pending.turn != nil && pending.turn.answered) {
		data := ObjectValue([]Member{{Name: "id", Value: id}})
		c.report(Optional[string]{}, &RequestError{Code: codeInvalidRequest, Message: "a response to no request in flight", Data: Some(data)}, line)
		return
	}
	result := c.outcome(pending, message)
	if pending.turn == nil {
		delete(c.pending, key)
		pending.deliver(result)
		return
	}
	pending.turn.answered = true
	pending.turn.answer = result
	c.machine.response(intValue(key), result.err != nil, c.stopReason(message))
	c.drainTurns()
}

// outcome is the error of a response, or its decoded result; a result
// that decodes may change the features or owe a `session/ready`, which is
// queued before the call returns.
func (c *Connection) outcome(pending *pendingCall, message Value) callOutcome {
	if failure, ok := message.Member("error"); ok {
		code, codeOK := failure.Member("code")
		text, textOK := failure.Member("message")
		parsed, err := strconv.ParseInt(code.Text(), 10, 64)
		if !codeOK || !textOK || code.Kind() != KindNumber || text.Kind() != KindString || err != nil {
			return callOutcome{err: &RequestError{Code: codeInternalError, Message: "a malformed error for " + pending.method}}
		}
		answer := &RequestError{Code: parsed, Message: text.Text()}
		if data, ok := failure.Member("data"); ok {
			answer.Data = Some(data)
		}
		return callOutcome{err: answer}
	}
	result, _ := message.Member("result")
	decoded, err := pending.decode(result)
	if err != nil {
		return callOutcome{err: err}
	}
	if c.offers != nil {
		c.offers.Record(pending.method, pending.params, result)
	}
	if pending.method == connectionInitialize {
		paramsText, _ := pending.params.MarshalJSON()
		resultText, _ := result.MarshalJSON()
		c.features = negotiatedFeatures(paramsText, resultText)
		c.outgoing = negotiatedOutgoing(paramsText, resultText)
	} else if ready := connectionReady; ready != nil && c.features.SessionReady && !c.options.Unordered {
		for _, opener := range ready.openers {
			from := pending.params
			if opener.inResult {
				from = result
			}
			if session, ok := textMember(from, ready.session); ok && opener.method == pending.method {
				params := ObjectValue([]Member{{Name: ready.session, Value: StringValue(session)}})
				c.queue(rpcNotification(ready.notification, params), false)
			}
		}
	}
	return callOutcome{value: decoded}
}

// turnFor is the turn of a prompt the client's end sends as request `id`,
// fed to its turn machine (nil when it waits for its response only:
// another request, the agent's end, unordered, or no turn rules).
func (c *Connection) turnFor(id int64, method string, params Value) *clientTurn {
	rules := connectionTurnRules
	if rules == nil || connectionTurns == nil || method != connectionTurns.prompt || c.agent || c.options.Unordered {
		return nil
	}
	if c.machine == nil {
		c.machine = newTurnMachine(*rules, c.features.TurnComplete, wireRequest, decodeWireRequest)
	}
	session, _ := textMember(params, rules.session)
	c.machine.prompt(session, intValue(id))
	return &clientTurn{}
}

// wireRequest and decodeWireRequest are the turn machine's request ids:
// the JSON values themselves.
func wireRequest(id Value) Value { return id }

func decodeWireRequest(id Value, _ string) (Value, error) { return id, nil }

// stopReason is the JSON text of a prompt response's stop reason, when the
// turn rules compare it with `turn_complete`'s ("" otherwise).
func (c *Connection) stopReason(message Value) string {
	complete, ok := connectionTurnRules.complete.Get()
	if !ok {
		return ""
	}
	result, _ := message.Member("result")
	reason, _ := result.Member(complete.stopReason)
	return jsonKey(reason)
}

// drainTurns: the message just read was fed to the turn machine; the
// prompts whose turn it drained have drained once the notifications read
// so far are handled.
func (c *Connection) drainTurns() {
	for id, pending := range c.pending {
		turn := pending.turn
		if turn != nil && !turn.drained && c.machine.isDrained(intValue(id)) {
			turn.drained, turn.read = true, c.read
		}
	}
	c.finishTurns()
}

// finishTurns: every prompt whose turn drained and whose notifications
// read up to the message that drained it were handled returns.
func (c *Connection) finishTurns() {
	for id, pending := range c.pending {
		turn := pending.turn
		if turn == nil || !turn.drained || c.handled < turn.read {
			continue
		}
		delete(c.pending, id)
		pending.deliver(turn.answer)
	}
}

// call sends a request and waits for its outcome, decoded by `decode`.
func (c *Connection) call(ctx context.Context, method string, params Value, decode func(Value) (any, error)) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.closed != nil {
		defer c.mu.Unlock()
		return nil, c.closed
	}
	params = c.advertise(method, params)
	if err := c.refused(method); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if c.offers != nil {
		if err := c.offers.Check(method, params); err != nil {
			c.mu.Unlock()
			return nil, err
		}
	}
	session := c.turnSession(method, params)
	if turn := c.turns[session]; session != "" && turn != nil && turn.cancelled {
		c.mu.Unlock()
		return nil, &TurnCancelled{SessionID: session}
	}
	asking := c.ask(method, params)
	id := c.nextID
	c.nextID++
	pending := &pendingCall{method: method, params: params, decode: decode, done: make(chan callOutcome, 1), turn: c.turnFor(id, method, params), session: session}
	c.pending[id] = pending
	text, err := requestLine(id, method, params)
	switch {
	case !c.enqueueLine(text, err, false):
	case ctx.Done() == nil && !c.writing:
		// A ctx that is never done: waiting in Write is waiting for the
		// answer, so the request leaves from this goroutine.
		c.writeQueued()
	default:
		c.wake.Broadcast()
	}
	c.mu.Unlock()
	if asking != "" {
		defer func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.answered(asking)
		}()
	}
	select {
	case result := <-pending.done:
		return result.value, result.err
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.pending[id] == pending {
			delete(c.pending, id)
			if cancel := connectionCancel; cancel != nil {
				c.queue(rpcNotification(cancel.method, ObjectValue([]Member{{Name: cancel.member, Value: intValue(id)}})), false)
			}
		}
		return nil, ctx.Err()
	}
}

// tell sends a notification.
func (c *Connection) tell(method string, params Value) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed != nil {
		return c.closed
	}
	if err := c.refused(method); err != nil {
		return err
	}
	if c.agent {
		c.postNotification(method, params)
	} else {
		c.queue(rpcNotification(method, params), false)
		c.withdrawPermissions(method, params)
	}
	return nil
}

// postNotification: the agent's end queues a notification, or its gate
// holds it (rule R1).
func (c *Connection) postNotification(method string, params Value) {
	if turns := connectionTurns; turns != nil && method == turns.update && turns.end == turnEndComplete {
		update, _ := params.Member(turns.payload)
		tag, _ := textMember(update, turns.tag)
		if request, ok := update.Member(turns.request); ok && tag == turns.endTag {
			c.completed[idKey(request)] = true
		}
	}
	params = c.noteState(method, params)
	message := rpcNotification(method, params)
	ready := connectionReady
	session, ok := "", false
	if ready != nil && c.gate != nil && slices.Contains(ready.scoped, method) {
		session, ok = textMember(params, ready.session)
	}
	if !ok {
		c.queue(message, false)
		return
	}
	text, err := messageLine(message)
	if err != nil {
		return
	}
	c.release(c.gate.Send(session, text, 0))
}

// release queues texts the gate let go of.
func (c *Connection) release(texts [][]byte) {
	if !c.broken {
		c.outbox = append(c.outbox, texts...)
		c.wake.Broadcast()
	}
}

// noteState: the agent's end sends a `session/update` (protocol v2); a
// state that is not `idle` makes foreground work of the session, which
// `session/cancel` may cancel; `idle` ends it, with the `cancelled` stop
// reason written in when it was cancelled. Returns the params to send.
func (c *Connection) noteState(method string, params Value) Value {
	rules, turns := connectionTurnCancel, connectionTurns
	if rules == nil || !rules.idleEnd || turns == nil || turns.end != turnEndIdle || method != turns.update {
		return params
	}
	update, _ := params.Member(turns.payload)
	session, ok := textMember(params, turns.session)
	tag, _ := textMember(update, turns.tag)
	if !ok || update.Kind() != KindObject || tag != turns.endTag {
		return params
	}
	if state, _ := textMember(update, turns.state); state != turns.idle {
		work := c.turns[session]
		if work == nil {
			work = newTurn("")
			c.turns[session] = work
		}
		work.active, work.state, work.reported = true, state, false
		return params
	}
	turn := c.turns[session]
	delete(c.turns, session)
	if turn == nil || !turn.cancelled {
		return params
	}
	cancelled := ObjectValue(setMember(slices.Clone(update.Members()), rules.stopReason, StringValue(rules.cancelled)))
	return ObjectValue(setMember(slices.Clone(params.Members()), turns.payload, cancelled))
}

// ask: the agent's end asks the user through `method` (v2); the first
// permission request of a session's work reports `requires_action`, unless
// that was the last state sent. Returns the session whose work waits, when
// this is such a request.
func (c *Connection) ask(method string, params Value) string {
	rules := connectionTurnCancel
	if !c.agent || rules == nil || rules.awaiting == nil || method != rules.awaiting.request {
		return ""
	}
	session, ok := textMember(params, rules.session)
	turn := c.turns[session]
	if !ok || turn == nil || !turn.active || turn.cancelled {
		return ""
	}
	turn.asking++
	if turn.asking == 1 && turn.state != rules.awaiting.requiresAction {
		c.reportState(session, rules.awaiting.requiresAction)
		turn.reported = true
	}
	return session
}

// answered: a permission request of the session's work was answered or
// failed; once none waits, work this end reported waiting resumes
// (`running`), unless it was cancelled or the agent reported a state.
func (c *Connection) answered(session string) {
	rules := connectionTurnCancel
	turn := c.turns[session]
	if rules == nil || rules.awaiting == nil || turn == nil {
		return
	}
	turn.asking = max(0, turn.asking-1)
	if turn.asking == 0 && turn.reported && !turn.cancelled {
		c.reportState(session, rules.awaiting.running)
	}
}

// reportState sends the `state_update` of the session saying `value`.
func (c *Connection) reportState(session, value string) {
	turns := connectionTurns
	if turns == nil || turns.end != turnEndIdle {
		return
	}
	update := ObjectValue([]Member{{Name: turns.tag, Value: StringValue(turns.endTag)}, {Name: turns.state, Value: StringValue(value)}})
	c.postNotification(turns.update, ObjectValue([]Member{{Name: turns.session, Value: StringValue(session)}, {Name: turns.payload, Value: update}}))
}

// turnSession is, on the agent's end, the session whose turn its request
// `method` belongs to ("" for none).
func (c *Connection) turnSession(method string, params Value) string {
	rules := connectionTurnCancel
	if !c.agent || rules == nil || !slices.Contains(rules.scoped, method) {
		return ""
	}
	session, _ := textMember(params, rules.session)
	return session
}

// RequestExtension sends a request of a `_`-prefixed extension method and
// returns its JSON result.
func (c *Connection) RequestExtension(ctx context.Context, method string, params Value) (Value, error) {
	if !isExtension(method) {
		return Value{}, errors.New(method + " is not an extension method (those start with `_`)")
	}
	result, err := c.call(ctx, method, params, func(value Value) (any, error) { return value, nil })
	if err != nil {
		return Value{}, err
	}
	return result.(Value), nil
}

// NotifyExtension sends a notification of a `_`-prefixed extension method.
func (c *Connection) NotifyExtension(method string, params Value) error {
	if !isExtension(method) {
		return errors.New(method + " is not an extension method (those start with `_`)")
	}
	return c.tell(method, params)
}

// typedRequest is a typed call: params encoded and the result decoded by method.
func typedRequest[P, R any](ctx context.Context, c *Connection, method string, params P, encode func(P) Value, decode func(Value, string) (R, error)) (R, error) {
	result, err := c.call(ctx, method, encode(params), func(value Value) (any, error) { return decode(value, "") })
	if err != nil {
		var zero R
		return zero, err
	}
	return result.(R), nil
}

// typedNotify is a typed notification.
func typedNotify[P any](c *Connection, method string, params P, encode func(P) Value) error {
	return c.tell(method, encode(params))
}

func rpcResponse(id, result Value, failure *RequestError) Value {
	members := []Member{{Name: "jsonrpc", Value: StringValue("2.0")}, {Name: "id", Value: id}}
	if failure != nil {
		return ObjectValue(append(members, Member{Name: "error", Value: failure.JSON()}))
	}
	return ObjectValue(append(members, Member{Name: "result", Value: result}))
}

func rpcNotification(method string, params Value) Value {
	return ObjectValue([]Member{
		{Name: "jsonrpc", Value: StringValue("2.0")},
		{Name: "method", Value: StringValue(method)},
		{Name: "params", Value: params},
	})
}

// idKey is a request id as a key: ids compare as JSON values, so `2` and
// `"2"` differ.
func idKey(id Value) string {
	if id.kind == KindNumber {
		// A number's text is its literal, as written.
		return id.text
	}
	text, _ := id.MarshalJSON()
	return string(text)
}

func intValue(value int64) Value { return NumberValue(Number(strconv.FormatInt(value, 10))) }

func textMember(value Value, name string) (string, bool) {
	member, ok := value.Member(name)
	if !ok || member.Kind() != KindString {
		return "", false
	}
	return member.Text(), true
}

// versionMember is the protocol version `name` of `params`: a
// non-negative integer.
func versionMember(params Value, name string) (int64, bool) {
	member, ok := params.Member(name)
	if !ok || member.Kind() != KindNumber {
		return 0, false
	}
	version, err := strconv.ParseInt(member.Text(), 10, 64)
	return version, err == nil && version >= 0
}
