// What the connection tests share: seeded dice, in-memory pipes that cut
// every line into random pieces and hand them over in random amounts, and
// a log of every line each end wrote and read, in the order it happened.
// Copied next to the bindings of the schemas with connection tests by
// `cargo xtask test`, as an external test like them.

package acp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/acp-codegen/acp-bindings-go"
)

// dice is a seeded source of chance shared by goroutines.
type dice struct {
	mu     sync.Mutex
	source *rand.Rand
}

func newDice(seed uint64) *dice {
	return &dice{source: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// below is a number in [0, n).
func (d *dice) below(n int) int {
	if n <= 1 {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.source.IntN(n)
}

// pause yields up to n times, and now and then sleeps a little.
func (d *dice) pause(n int) {
	for range d.below(n + 1) {
		runtime.Gosched()
	}
	if d.below(4) == 0 {
		time.Sleep(time.Duration(d.below(40)) * time.Microsecond)
	}
}

// event is where a line was logged.
type event int

const (
	agentWrote event = iota
	agentRead
	clientWrote
	clientRead
)

type logged struct {
	event   event
	message Value
}

// wireLog is every line, where and in which order it happened.
type wireLog struct {
	mu      sync.Mutex
	entries []logged
}

func (l *wireLog) push(at event, line []byte) {
	if message, err := Parse(bytes.TrimSpace(line)); err == nil {
		l.mu.Lock()
		l.entries = append(l.entries, logged{at, message})
		l.mu.Unlock()
	}
}

func (l *wireLog) all() []logged {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]logged{}, l.entries...)
}

// pipe carries what one end writes to the other: a Write is cut into
// random pieces with pauses between them, a Read hands over a random
// amount; a line is logged as written when its last byte was written and
// as read when its last byte was handed over.
type pipe struct {
	mu      sync.Mutex
	ready   *sync.Cond
	buffer  []byte
	closed  bool
	dice    *dice
	log     *wireLog
	wrote   event
	read    event
	writing []byte
	reading []byte
}

func newPipe(d *dice, log *wireLog, wrote, read event) *pipe {
	p := &pipe{dice: d, log: log, wrote: wrote, read: read}
	p.ready = sync.NewCond(&p.mu)
	return p
}

func (p *pipe) Write(data []byte) (int, error) {
	written := 0
	for written < len(data) {
		take := 1 + p.dice.below(min(len(data)-written, 64))
		piece := data[written : written+take]
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return written, errors.New("the pipe is closed")
		}
		p.buffer = append(p.buffer, piece...)
		for _, b := range piece {
			p.writing = append(p.writing, b)
			if b == '\n' {
				p.log.push(p.wrote, p.writing)
				p.writing = nil
			}
		}
		p.ready.Broadcast()
		p.mu.Unlock()
		written += take
		p.dice.pause(2)
	}
	return written, nil
}

func (p *pipe) Read(into []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.buffer) == 0 && !p.closed {
		p.ready.Wait()
	}
	if len(p.buffer) == 0 {
		return 0, io.EOF
	}
	n := copy(into, p.buffer[:1+p.dice.below(min(len(p.buffer), len(into)))])
	p.buffer = p.buffer[n:]
	for _, b := range into[:n] {
		p.reading = append(p.reading, b)
		if b == '\n' {
			p.log.push(p.read, p.reading)
			p.reading = nil
		}
	}
	return n, nil
}

// Close ends the pipe: its reader reads what is left, then io.EOF.
func (p *pipe) Close() {
	p.mu.Lock()
	p.closed = true
	p.ready.Broadcast()
	p.mu.Unlock()
}

// decodeAs decodes JSON text as T, panicking on failure (the tests'
// messages are fixed).
func decodeAs[T any, P interface {
	*T
	UnmarshalJSON([]byte) error
}](text string) T {
	var value T
	if err := P(&value).UnmarshalJSON([]byte(text)); err != nil {
		panic(text + ": " + err.Error())
	}
	return value
}

// jsonOf is a value's JSON.
func jsonOf(value interface{ MarshalJSON() ([]byte, error) }) Value {
	text, err := value.MarshalJSON()
	if err != nil {
		panic(err)
	}
	parsed, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return parsed
}

// at is the member at a path of names, or the null value.
func at(value Value, names ...string) Value {
	for _, name := range names {
		member, ok := value.Member(name)
		if !ok {
			return NullValue()
		}
		value = member
	}
	return value
}

// idKey is a value's JSON text, what ids and values are compared by.
func idKey(value Value) string {
	text, _ := value.MarshalJSON()
	return string(text)
}

// counts is a number per prompt text, shared by goroutines.
type counts struct {
	mu     sync.Mutex
	counts map[string]int
}

func newCounts() *counts { return &counts{counts: map[string]int{}} }

func (c *counts) add(key string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[key] += n
}

func (c *counts) get(key string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.counts[key]
	return n, ok
}

// promptOf is the prompt a chunk `<prompt> part <n>` belongs to.
func promptOf(text string) string {
	if index := bytes.LastIndex([]byte(text), []byte(" part ")); index >= 0 {
		return text[:index]
	}
	return ""
}

// running is a connection's Run in a goroutine, and its error once it
// returned.
func running(ctx context.Context, run func(context.Context) error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	return done
}

// finish closes the client's pipe, waits for the agent's end, closes the
// agent's pipe and waits for the client's end, failing on an error.
func finish(t *testing.T, toAgent, toClient *pipe, agentDone, clientDone <-chan error) {
	t.Helper()
	toAgent.Close()
	if err := <-agentDone; err != nil {
		t.Fatalf("the agent's end: %v", err)
	}
	toClient.Close()
	if err := <-clientDone; err != nil {
		t.Fatalf("the client's end: %v", err)
	}
}

// waitForLine waits until a line logged at `where` holds `part`.
func waitForLine(t *testing.T, log *wireLog, where event, part string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, entry := range log.all() {
			if text, _ := entry.message.MarshalJSON(); entry.event == where && strings.Contains(string(text), part) {
				return
			}
		}
	}
	t.Fatalf("no line with %s", part)
}

// reports collects what Dropped is told.
type reports struct {
	mu      sync.Mutex
	dropped []Dropped
}

func (r *reports) add(dropped Dropped) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped = append(r.dropped, dropped)
}

func (r *reports) all() []Dropped {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Dropped{}, r.dropped...)
}

// peer is the other end as raw lines: what the end under test wrote, and
// a way to write to it.
type peer struct {
	in  *pipe
	out *pipe
	log *wireLog
}

// rawPeer opens `open`'s end against lines the test writes itself.
func rawPeer(t *testing.T, written event, open func(reader, writer *pipe) interface{ Run(context.Context) error }) (*peer, <-chan error) {
	t.Helper()
	d := newDice(1)
	log := &wireLog{}
	in := newPipe(d, log, clientWrote, agentRead)
	out := newPipe(d, log, written, clientRead)
	end := open(in, out)
	return &peer{in: in, out: out, log: log}, running(context.Background(), end.Run)
}

func (p *peer) send(t *testing.T, text string) {
	t.Helper()
	if _, err := p.in.Write([]byte(text + "\n")); err != nil {
		t.Fatal(err)
	}
}

// next waits for the next line the end wrote.
func (p *peer) next(t *testing.T, seen *int) Value {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var lines []Value
		for _, entry := range p.log.all() {
			if entry.event == agentWrote {
				lines = append(lines, entry.message)
			}
		}
		if len(lines) > *seen {
			*seen++
			return lines[*seen-1]
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no answer")
	return Value{}
}

// drainPipe reads what the end writes, so that its writer never waits.
func drainPipe(p *pipe) {
	buffer := make([]byte, 4096)
	for {
		if _, err := p.Read(buffer); err != nil {
			return
		}
	}
}
