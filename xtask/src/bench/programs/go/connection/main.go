// One end of a Go connection, measured:
//
//		connection <ours|official|floor> <receive|round-trip> <corpus.tsv> <runs>
//
//	  - receive: every `SessionNotification` of the corpus, as the line of a
//	    `session/update` notification, is read by a client's end from one
//	    reader holding them all; its handler counts it. Ours: `ConnectClient`
//	    and `Run`, which returns once the reader ended and every notification
//	    was handled. The official one (github.com/coder/acp-go-sdk):
//	    `NewClientSideConnection`, fed at most 512 lines ahead of its
//	    handler (its queue closes the connection when full) and waited for
//	    until its handler has seen every line. The floor: a bufio.Scanner over the
//	    lines and json.Unmarshal of each into `any`.
//	  - round-trip: a client initializes, then calls `session/new` on an
//	    agent in the same process over two pipes, one call after the other,
//	    as many times as the corpus has `SessionNotification`s. Our agent is
//	    the Go test agent (`tests/go/scripted_agent/`, which the bench writes
//	    into this module as `internal/scriptedagent`); the official SDK's
//	    agent opens and keeps its sessions the same way. The floor:
//	    the request and the response each marshalled and unmarshalled.
//
// A first pass warms up and counts; then each run is timed. Prints one
// JSON object, as the other languages' connection programs do.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"acp-bench/internal/process"
	"acp-bench/internal/scriptedagent"

	ours "github.com/acp-codegen/acp-bindings-go"
	official "github.com/coder/acp-go-sdk"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "connection: "+format+"\n", args...)
	os.Exit(2)
}

// ourClient counts the updates it is handed.
type ourClient struct{ handled *int }

func (c ourClient) SessionRequestPermission(context.Context, ours.RequestPermissionRequest) (ours.RequestPermissionResponse, error) {
	return ours.RequestPermissionResponse{Outcome: ours.RequestPermissionOutcomeCancelled{}}, nil
}

func (c ourClient) SessionUpdate(context.Context, ours.SessionNotification) error {
	*c.handled++
	return nil
}

// officialClient and officialAgent handle only what the program sends;
// the embedded interfaces stand for the methods it never calls.
type officialClient struct {
	official.Client
	handled *atomic.Int64
	// all is closed once `expected` updates were handled.
	all      chan struct{}
	expected int64
}

func (c officialClient) SessionUpdate(context.Context, official.SessionNotification) error {
	if c.handled.Add(1) == c.expected {
		close(c.all)
	}
	return nil
}

// officialAgent opens sessions as the Go test agent does (`session-1`,
// `session-2`, ..., each kept with its folder), so that both agents do the
// same work per call.
type officialAgent struct {
	official.Agent
	mu       *sync.Mutex
	sessions map[official.SessionId]string
}

func (officialAgent) Initialize(_ context.Context, params official.InitializeRequest) (official.InitializeResponse, error) {
	return official.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (a officialAgent) NewSession(_ context.Context, params official.NewSessionRequest) (official.NewSessionResponse, error) {
	a.mu.Lock()
	id := official.SessionId(fmt.Sprintf("session-%d", len(a.sessions)+1))
	a.sessions[id] = params.Cwd
	a.mu.Unlock()
	return official.NewSessionResponse{SessionId: id}, nil
}

// quiet is the official connections' logger: they log every close.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// drainingReader reads its text, then calls `drained` before it ends.
// pacedReader hands the official end its input at most `window` lines
// ahead of its handler: that end queues notifications for its handler, and
// when its queue (1,024) is full it closes the connection. At the end of the
// input it waits until every line was handled, or until a second passed
// without one more, before it reports the end: the end's Done() closes when
// its reader ends, while notifications may still wait in its queue.
type pacedReader struct {
	all      []byte
	ends     []int // the offset after each line
	at       int
	handled  *atomic.Int64
	window   int
	finished chan struct{}
}

func newPacedReader(all []byte, handled *atomic.Int64, finished chan struct{}) *pacedReader {
	var ends []int
	for at, character := range all {
		if character == '\n' {
			ends = append(ends, at+1)
		}
	}
	if len(all) > 0 && all[len(all)-1] != '\n' {
		ends = append(ends, len(all))
	}
	return &pacedReader{all: all, ends: ends, handled: handled, window: 512, finished: finished}
}

func (r *pacedReader) Read(buffer []byte) (int, error) {
	if r.at >= len(r.all) {
		for before := int64(-1); r.handled.Load() != before; {
			before = r.handled.Load()
			select {
			case <-r.finished:
				return 0, io.EOF
			case <-time.After(time.Second):
			}
		}
		return 0, io.EOF
	}
	for {
		allowed := min(int(r.handled.Load())+r.window, len(r.ends))
		if limit := r.ends[allowed-1]; limit > r.at {
			n := copy(buffer, r.all[r.at:limit])
			r.at += n
			return n, nil
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// receive hands every line to a client's end; how many were handled.
func receive(implementation string, lines [][]byte, all []byte) int {
	switch implementation {
	case "ours":
		handled := 0
		newClient := func(*ours.ClientConnection) ours.Client { return ourClient{&handled} }
		end := ours.ConnectClient(newClient, bytes.NewReader(all), io.Discard, ours.ConnectOptions{})
		if err := end.Run(context.Background()); err != nil {
			fail("ours: %v", err)
		}
		return handled
	case "official":
		var handled atomic.Int64
		client := officialClient{handled: &handled, all: make(chan struct{}), expected: int64(len(lines))}
		reader := newPacedReader(all, &handled, client.all)
		end := official.NewClientSideConnection(client, io.Discard, reader)
		end.SetLogger(quiet)
		<-end.Done()
		return int(handled.Load())
	default:
		scanner := bufio.NewScanner(bytes.NewReader(all))
		scanner.Buffer(nil, 1<<26)
		handled := 0
		for scanner.Scan() {
			var message any
			if json.Unmarshal(scanner.Bytes(), &message) == nil {
				handled++
			}
		}
		return handled
	}
}

var newSession = map[string]any{"cwd": "/tmp", "mcpServers": []any{}}

// roundTrips makes `calls` session/new calls one after the other; how many
// were answered with the session.
func roundTrips(implementation string, calls int) int {
	ctx := context.Background()
	answered := 0
	switch implementation {
	case "ours":
		agentReads, clientWrites := io.Pipe()
		clientReads, agentWrites := io.Pipe()
		agentEnd := ours.ConnectAgent(func(end *ours.AgentConnection) ours.Agent {
			return scriptedagent.New(end, scriptedagent.Options{})
		}, agentReads, agentWrites, ours.ConnectOptions{})
		handled := 0
		clientEnd := ours.ConnectClient(func(*ours.ClientConnection) ours.Client { return ourClient{&handled} }, clientReads, clientWrites, ours.ConnectOptions{})
		go func() { _ = agentEnd.Run(ctx) }()
		go func() { _ = clientEnd.Run(ctx) }()
		if _, err := clientEnd.Initialize(ctx, ours.InitializeRequest{ProtocolVersion: 1}); err != nil {
			fail("ours: initialize: %v", err)
		}
		for call := range calls {
			response, err := clientEnd.SessionNew(ctx, ours.NewSessionRequest{Cwd: "/tmp", McpServers: []ours.McpServer{}})
			// The test agent opens `session-1`, `session-2`, ...
			if err == nil && response.SessionId == ours.SessionId(fmt.Sprintf("session-%d", call+1)) {
				answered++
			}
		}
		clientWrites.Close()
		agentWrites.Close()
	case "official":
		agentReads, clientWrites := io.Pipe()
		clientReads, agentWrites := io.Pipe()
		agent := officialAgent{mu: &sync.Mutex{}, sessions: map[official.SessionId]string{}}
		official.NewAgentSideConnection(agent, agentWrites, agentReads).SetLogger(quiet)
		var handled atomic.Int64
		client := officialClient{handled: &handled, all: make(chan struct{}), expected: -1}
		clientEnd := official.NewClientSideConnection(client, clientWrites, clientReads)
		clientEnd.SetLogger(quiet)
		if _, err := clientEnd.Initialize(ctx, official.InitializeRequest{ProtocolVersion: 1}); err != nil {
			fail("official: initialize: %v", err)
		}
		for call := range calls {
			response, err := clientEnd.NewSession(ctx, official.NewSessionRequest{Cwd: "/tmp", McpServers: []official.McpServer{}})
			if err == nil && response.SessionId == official.SessionId(fmt.Sprintf("session-%d", call+1)) {
				answered++
			}
		}
		clientWrites.Close()
		agentWrites.Close()
	default:
		for id := range calls {
			var request, response map[string]any
			text, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/new", "params": newSession})
			if json.Unmarshal(text, &request) != nil {
				continue
			}
			text, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": request["id"], "result": map[string]any{"sessionId": "session-1"}})
			if json.Unmarshal(text, &response) == nil && response["result"].(map[string]any)["sessionId"] == "session-1" {
				answered++
			}
		}
	}
	return answered
}

func main() {
	if len(os.Args) != 5 {
		fail("usage: connection <ours|official|floor> <receive|round-trip> <corpus.tsv> <runs>")
	}
	implementation, mode, corpus := os.Args[1], os.Args[2], os.Args[3]
	runs, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fail("runs: %q is not a count", os.Args[4])
	}
	if (implementation != "ours" && implementation != "official" && implementation != "floor") || (mode != "receive" && mode != "round-trip") {
		fail("unknown implementation and mode: %s %s", implementation, mode)
	}
	text, err := os.ReadFile(corpus)
	if err != nil {
		fail("%v", err)
	}
	var lines [][]byte
	var all []byte
	for _, line := range bytes.Split(text, []byte("\n")) {
		params, ok := bytes.CutPrefix(line, []byte("SessionNotification\t"))
		if !ok {
			continue
		}
		message := append(append([]byte(`{"jsonrpc":"2.0","method":"session/update","params":`), params...), '}')
		lines = append(lines, message)
		all = append(append(all, message...), '\n')
	}
	run := func() int { return receive(implementation, lines, all) }
	if mode == "round-trip" {
		run = func() int { return roundTrips(implementation, len(lines)) }
	}
	handled := run()
	seconds := make([]float64, 0, runs)
	for range runs {
		start := time.Now()
		run()
		seconds = append(seconds, time.Since(start).Seconds())
	}
	// A round trip counts the bytes of a request and its response as the floor writes them.
	request, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": newSession})
	response, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"sessionId": "session-1"}})
	bytesTotal := len(lines) * (len(request) + len(response))
	outcome, what := "answered", "calls were not answered"
	if mode == "receive" {
		bytesTotal = len(all) - len(lines)
		outcome, what = "handled", "notifications were not handled"
	}
	failures := len(lines) - min(handled, len(lines))
	var first *string
	if failures > 0 {
		note := fmt.Sprintf("%d of %d %s", failures, len(lines), what)
		first = &note
	}
	report, err := json.Marshal(map[string]any{
		"messages":         len(lines),
		"bytes":            bytesTotal,
		"seconds":          seconds,
		"failures":         failures,
		"differ":           0,
		"first_difference": first,
		"outcome":          outcome,
		"peak_kib":         process.PeakKiB(),
	})
	if err != nil {
		fail("%v", err)
	}
	fmt.Println(string(report))
}
