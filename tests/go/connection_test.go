// The module's connection on the default schema (protocol v1 with the
// RFDs), end to end: an agent and a client, written on the `Agent` and
// `Client` interfaces, talk through pipes that cut every line into random
// pieces and hold them back at random, with handlers that pause at random
// too, from one seed per run. Every line each end wrote and read is logged
// in the order it happened, and the log is checked for the rules the
// connection exists to keep: R1 (no session-scoped notification leaves the
// agent before it read `session/ready`), R2 and R4 (the generated
// `TurnTracker` on what the client sent and read), and that a prompt call
// completes only once every update of its turn was handled. With the
// ordering no run breaks a rule; the same runs with
// `ConnectOptions{Unordered: true}` on both ends break each. Then
// cancellation (`$/cancel_request`, `session/cancel`), the faults, and the
// handshake. The Rust, TypeScript and Python connections run the same
// scenarios. The race tests' agent is the Go test agent
// (`tests/go/scripted_agent/`). Copied next to the default bindings by
// `cargo xtask test`, as an external test (the test agent imports the
// module), with the test agent as the module's `internal/scriptedagent`.

package acp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/acp-codegen/acp-bindings-go"
	"github.com/acp-codegen/acp-bindings-go/internal/scriptedagent"
)

// raceAgentOptions is the test agent of the race tests: it advertises
// `session/ready` and `turn_complete`, sends each new session's commands,
// and plays echo turns of 1 to 5 chunks with random waits, a third of them
// asking permission, telling `sent` each turn's chunks.
func raceAgentOptions(d *dice, sent *counts) scriptedagent.Options {
	capabilities := decodeAs[AgentCapabilities](`{"sessionCapabilities":{"ready":{},"turnComplete":{}}}`)
	return scriptedagent.Options{
		Capabilities: &capabilities,
		Commands:     true,
		Chunks:       func() int { return 1 + d.below(5) },
		Ask:          func() bool { return d.below(3) == 0 },
		Pause:        d.pause,
		Played:       sent.add,
	}
}

type raceClient struct {
	dice    *dice
	handled *counts
}

func (c *raceClient) SessionRequestPermission(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
	c.dice.pause(2)
	return decodeAs[RequestPermissionResponse](`{"outcome":{"outcome":"selected","optionId":"allow"}}`), nil
}

func (c *raceClient) SessionUpdate(_ context.Context, params SessionNotification) error {
	c.dice.pause(4)
	update := at(jsonOf(params), "update")
	if at(update, "sessionUpdate").Text() == "agent_message_chunk" {
		c.handled.add(promptOf(at(update, "content", "text").Text()), 1)
	}
	return nil
}

// found is the violations of each kind one run found.
type found struct {
	r1, r2, r4, undrained, turns int
}

func (f *found) add(other found) {
	f.r1 += other.r1
	f.r2 += other.r2
	f.r4 += other.r4
	f.undrained += other.undrained
	f.turns += other.turns
}

// raceRun is one run: the client opens `sessions` sessions and prompts
// each `prompts` times, the sessions at once.
func raceRun(t *testing.T, seed uint64, ordered bool, sessions, prompts int) found {
	d := newDice(seed)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	options := ConnectOptions{Unordered: !ordered}
	sent, handled := newCounts(), newCounts()
	agent := ConnectAgent(func(end *AgentConnection) Agent {
		return scriptedagent.New(end, raceAgentOptions(d, sent))
	}, toAgent, toClient, options)
	client := ConnectClient(func(*ClientConnection) Client {
		return &raceClient{dice: d, handled: handled}
	}, toClient, toAgent, options)
	ctx := context.Background()
	agentDone, clientDone := running(ctx, agent.Run), running(ctx, client.Run)
	if _, err := client.Initialize(ctx, decodeAs[InitializeRequest](`{"protocolVersion":1}`)); err != nil {
		t.Fatalf("seed %d: initialize: %v", seed, err)
	}
	if features := client.Features(); features.SessionReady != ordered && !features.SessionReady || !features.TurnComplete {
		t.Fatalf("seed %d: negotiated %+v", seed, features)
	}
	var undrained sync.Mutex
	result := found{turns: sessions * prompts}
	var group sync.WaitGroup
	for index := range sessions {
		group.Go(func() {
			created, err := client.SessionNew(ctx, decodeAs[NewSessionRequest](`{"cwd":"/tmp","mcpServers":[]}`))
			if err != nil {
				t.Errorf("seed %d: session/new: %v", seed, err)
				return
			}
			session := at(jsonOf(created), "sessionId").Text()
			for turn := range prompts {
				d.pause(2)
				text := fmt.Sprintf("s%d t%d", index, turn)
				prompt := fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}`, session, text)
				response, err := client.SessionPrompt(ctx, decodeAs[PromptRequest](prompt))
				if err != nil || response.StopReason != StopReasonEndTurn {
					t.Errorf("seed %d: session/prompt: %v %v", seed, response.StopReason, err)
					return
				}
				expected, _ := sent.get(text)
				if got, _ := handled.get(text); got != expected {
					undrained.Lock()
					result.undrained++
					undrained.Unlock()
				}
			}
		})
	}
	group.Wait()
	finish(t, toAgent, toClient, agentDone, clientDone)
	checked := checkLog(t, log.all())
	result.r1, result.r2, result.r4 = checked.r1, checked.r2, checked.r4
	return result
}

// checkLog finds R1 on the agent's side of the log; R2 and R4 by the turn
// tracker on the client's side (prompts as it wrote them, the rest as it
// read it), and prompts that got no `turn_complete` (R2).
func checkLog(t *testing.T, log []logged) found {
	var result found
	ready, early := map[string]bool{}, map[string]bool{}
	tracker := NewTurnTracker(true)
	prompts := map[string]RequestId{}
	sent, completed := map[string]bool{}, map[string]bool{}
	count := func(observation Observation[RequestId]) {
		for _, violation := range observation.Violations {
			if violation.Rule == "R2" {
				result.r2++
			} else {
				result.r4++
			}
		}
	}
	for _, entry := range log {
		method := at(entry.message, "method")
		session := at(entry.message, "params", "sessionId").Text()
		id := idKey(at(entry.message, "id"))
		switch {
		case entry.event == agentRead && method.Text() == "session/ready":
			ready[session] = true
		case entry.event == agentWrote && method.Text() == "session/update" && !ready[session]:
			early[session] = true
		case entry.event == clientWrote && method.Text() == "session/prompt":
			request, err := DecodeRequestId([]byte(id))
			if err != nil {
				t.Fatal(err)
			}
			sent[id] = true
			prompts[id] = request
			tracker.Prompt(session, request)
		case entry.event == clientRead && method.Text() == "session/update":
			update := at(entry.message, "params", "update")
			if at(update, "sessionUpdate").Text() == "turn_complete" {
				completed[idKey(at(update, "promptRequestId"))] = true
			}
			params, _ := at(entry.message, "params").MarshalJSON()
			var notification SessionNotification
			if err := notification.UnmarshalJSON(params); err != nil {
				t.Fatal(err)
			}
			count(tracker.Update(notification))
		case entry.event == clientRead && method.Kind() == KindNull:
			if request, ok := prompts[id]; ok {
				delete(prompts, id)
				var reason Nullable[StopReason]
				if text := at(entry.message, "result", "stopReason"); text.Kind() == KindString {
					reason = NonNull(StopReason(text.Text()))
				}
				count(tracker.Response(request, reason))
			}
		}
	}
	result.r1 = len(early)
	for id := range sent {
		if !completed[id] {
			result.r2++
		}
	}
	return result
}

// Seeds per mode, sessions per run and prompts per session.
const (
	raceSeeds    = 30
	raceSessions = 3
	racePrompts  = 10
)

func TestWithTheOrderingNoScheduleBreaksARule(t *testing.T) {
	var total found
	for seed := range uint64(raceSeeds) {
		got := raceRun(t, seed, true, raceSessions, racePrompts)
		if got.r1 != 0 || got.r2 != 0 || got.r4 != 0 || got.undrained != 0 {
			t.Fatalf("seed %d: %+v", seed, got)
		}
		total.add(got)
	}
	t.Logf("ordered: %d turns, %+v", total.turns, total)
	fmt.Printf("go connection (v1) ordered: %d turns, r1 %d, r2 %d, r4 %d, undrained %d\n", total.turns, total.r1, total.r2, total.r4, total.undrained)
}

func TestWithoutTheOrderingTheSameSchedulesBreakEveryRule(t *testing.T) {
	var total found
	for seed := range uint64(raceSeeds) {
		total.add(raceRun(t, seed, false, raceSessions, racePrompts))
	}
	fmt.Printf("go connection (v1) unordered: %d turns, r1 %d, r2 %d, r4 %d, undrained %d\n", total.turns, total.r1, total.r2, total.r4, total.undrained)
	if total.r1 == 0 || total.r2 == 0 || total.r4 == 0 || total.undrained == 0 {
		t.Fatalf("%+v", total)
	}
}

// stuckAgent's prompt handler waits for its ctx, and counts the handlers
// stopped.
type stuckAgent struct {
	stopped chan struct{}
}

func (stuckAgent) Initialize(_ context.Context, params InitializeRequest) (InitializeResponse, error) {
	return decodeAs[InitializeResponse](`{"protocolVersion":1}`), nil
}

func (stuckAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return NewSessionResponse{}, &RequestError{Code: -32602, Message: "Invalid params", Data: Some(ObjectValue([]Member{{Name: "why", Value: StringValue("no sessions here")}}))}
}

// SessionCancel is here so that a `session/cancel` is decoded, and one
// whose params do not decode is reported: without it the dispatcher
// answers method-not-found before decoding, which the agent's end, acting
// on `session/cancel` itself, does not report.
func (stuckAgent) SessionCancel(context.Context, CancelNotification) error { return nil }

func (a stuckAgent) SessionPrompt(ctx context.Context, _ PromptRequest) (PromptResponse, error) {
	<-ctx.Done()
	a.stopped <- struct{}{}
	return decodeAs[PromptResponse](`{"stopReason":"end_turn"}`), nil
}

func TestErrorsAndCancellationCrossTheConnection(t *testing.T) {
	d := newDice(7)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	stopped := make(chan struct{}, 1)
	agent := ConnectAgent(func(*AgentConnection) Agent { return stuckAgent{stopped: stopped} }, toAgent, toClient, ConnectOptions{})
	dropped := &reports{}
	client := ConnectClient(func(*ClientConnection) Client {
		return &raceClient{dice: d, handled: newCounts()}
	}, toClient, toAgent, ConnectOptions{Dropped: dropped.add})
	ctx := context.Background()
	agentDone, clientDone := running(ctx, agent.Run), running(ctx, client.Run)
	if _, err := client.Initialize(ctx, decodeAs[InitializeRequest](`{"protocolVersion":1}`)); err != nil {
		t.Fatal(err)
	}
	// The agent's error comes back as it was sent.
	_, err := client.SessionNew(ctx, decodeAs[NewSessionRequest](`{"cwd":"/tmp","mcpServers":[]}`))
	var answer *RequestError
	if !errors.As(err, &answer) || answer.Code != -32602 || at(answer.Data.Value, "why").Text() != "no sessions here" {
		t.Fatalf("session/new: %v", err)
	}
	// A prompt whose caller stops waiting: the agent's handler is stopped,
	// and its cancelled answer, to a request nobody waits for, is reported.
	waiting, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	_, err = client.SessionPrompt(waiting, decodeAs[PromptRequest](`{"sessionId":"s","prompt":[]}`))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the stuck prompt: %v", err)
	}
	<-stopped
	// An extension method the agent does not handle answers method-not-found.
	_, err = client.RequestExtension(ctx, "_x/unknown", ObjectValue(nil))
	if !errors.As(err, &answer) || answer.Code != -32601 {
		t.Fatalf("_x/unknown: %v", err)
	}
	finish(t, toAgent, toClient, agentDone, clientDone)
	var cancelled, answered Value
	for _, entry := range log.all() {
		if entry.event == agentRead && at(entry.message, "method").Text() == "$/cancel_request" {
			cancelled = at(entry.message, "params", "requestId")
		}
		if entry.event == clientRead && at(entry.message, "error", "code").Text() == "-32800" {
			answered = at(entry.message, "id")
		}
	}
	if cancelled.Kind() != KindNumber || idKey(cancelled) != idKey(answered) {
		t.Fatalf("$/cancel_request %s, the -32800 answer %s", idKey(cancelled), idKey(answered))
	}
	got := dropped.all()
	if len(got) != 1 || got[0].Method.Set || idKey(at(got[0].Error.Data.Value, "id")) != idKey(answered) {
		t.Fatalf("reported %+v", got)
	}
}

func TestUnreadableInputIsAnsweredAndNotificationsBeforeInitializeReported(t *testing.T) {
	dropped := &reports{}
	p, done := rawPeer(t, agentWrote, func(reader, writer *pipe) interface{ Run(context.Context) error } {
		return ConnectAgent(func(*AgentConnection) Agent { return stuckAgent{} }, reader, writer, ConnectOptions{Dropped: dropped.add})
	})
	go drainPipe(p.out)
	seen := 0
	expect := func(text, want string) {
		t.Helper()
		p.send(t, text)
		got, _ := p.next(t, &seen).MarshalJSON()
		if string(got) != want {
			t.Fatalf("%s: answered %s, not %s", text, got, want)
		}
	}
	expect(`{not json`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not JSON"}}`)
	expect(`[1]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC 2.0 message"}}`)
	expect(`{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the id is not a string, a number or null"}}`)
	expect(`{"jsonrpc":"2.0","id":3,"method":7}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"the method is not a string"}}`)
	expect(`{"jsonrpc":"2.0","id":"a"}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"neither a call nor an answer"}}`)
	p.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`)
	p.send(t, `{"jsonrpc":"2.0","id":99,"result":{}}`)
	expect(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"initialize has not been answered","data":{"method":"session/new"}}}`)
	// The handshake: the highest supported version at or below the
	// requested one (v1 has no unsupported-version error: its latest), and
	// the capabilities the handler left out.
	expect(`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":7}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
	expect(`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":0}}`,
		`{"jsonrpc":"2.0","id":6,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
	expect(`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":{"why":"no sessions here"}}}`)
	expect(`{"jsonrpc":"2.0","id":8,"method":"session/nothing"}`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"method not found: \"session/nothing\"","data":{"method":"session/nothing"}}}`)
	p.send(t, `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`)
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.out.Close()
	var lines []string
	for _, report := range dropped.all() {
		lines = append(lines, fmt.Sprintf("%d %s %d %s", report.Line, report.Method.Value, report.Error.Code, report.Error.Message))
	}
	want := []string{
		"6 session/cancel -32600 initialize has not been answered",
		"7  -32600 a response to no request in flight",
		"13 session/cancel -32602 invalid params for \"session/cancel\": cannot decode CancelNotification: at \"/sessionId\": missing required member \"sessionId\"",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reported\n%s\nnot\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// resultsAgent answers each extension method with the value of its name.
type resultsAgent struct {
	stuckAgent
	results map[string]Value
}

func (a resultsAgent) ExtensionRequest(_ context.Context, method string, _ Optional[Value]) (Value, error) {
	return a.results[method], nil
}

// A handler's result is answered as printing and parsing it makes it (the
// end keeps it as a value when that changes nothing), or with -32603 when
// it cannot be printed or parsed.
func TestAResultIsAnsweredAsItsPrintedText(t *testing.T) {
	deep := ArrayValue(nil)
	for range MaxDepth {
		deep = ArrayValue([]Value{deep})
	}
	results := map[string]Value{
		"_plain":     ObjectValue([]Member{{Name: "a", Value: NumberValue("1")}, {Name: "b", Value: StringValue("\u2028")}}),
		"_twice":     ObjectValue([]Member{{Name: "a", Value: NumberValue("1")}, {Name: "b", Value: NullValue()}, {Name: "a", Value: NumberValue("3")}}),
		"_utf8":      StringValue("a\xffb"),
		"_nan":       ObjectValue([]Member{{Name: "n", Value: NumberValue("NaN")}}),
		"_too_deep":  deep,
		"_deep_once": ArrayValue([]Value{NumberValue("2")}),
	}
	agentReads, peerWrites := io.Pipe()
	peerReads, agentWrites := io.Pipe()
	end := ConnectAgent(func(*AgentConnection) Agent { return resultsAgent{results: results} }, agentReads, agentWrites, ConnectOptions{})
	done := running(context.Background(), end.Run)
	lines := bufio.NewReader(peerReads)
	expect := func(id int, method, want string) {
		t.Helper()
		request := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"protocolVersion":1}}`+"\n", id, method)
		if _, err := peerWrites.Write([]byte(request)); err != nil {
			t.Fatal(err)
		}
		got, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if got = strings.TrimSuffix(got, "\n"); got != want {
			t.Fatalf("%s: answered\n%s\nnot\n%s", method, got, want)
		}
	}
	expect(1, "initialize", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}`)
	expect(2, "_plain", `{"jsonrpc":"2.0","id":2,"result":{"a":1,"b":"\u2028"}}`)
	expect(3, "_twice", `{"jsonrpc":"2.0","id":3,"result":{"a":3,"b":null}}`)
	expect(4, "_utf8", `{"jsonrpc":"2.0","id":4,"result":"a`+"\ufffd"+`b"}`)
	expect(5, "_nan", `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"\"NaN\" is not a JSON number"}}`)
	pointer := strings.Repeat("/0", MaxDepth)
	expect(6, "_too_deep", `{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"`+pointer+`: nested more than 127 arrays and objects deep"}}`)
	expect(7, "_deep_once", `{"jsonrpc":"2.0","id":7,"result":[2]}`)
	peerWrites.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestAClosedPeerFailsCalls(t *testing.T) {
	d := newDice(1)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	client := ConnectClient(func(*ClientConnection) Client { return &raceClient{dice: d, handled: newCounts()} }, toClient, toAgent, ConnectOptions{})
	done := running(context.Background(), client.Run)
	go func() {
		// The peer reads the request and leaves without answering.
		buffer := make([]byte, 1)
		for {
			if _, err := toAgent.Read(buffer); err != nil || buffer[0] == '\n' {
				break
			}
		}
		toClient.Close()
	}()
	_, err := client.Initialize(context.Background(), decodeAs[InitializeRequest](`{"protocolVersion":1}`))
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("initialize: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := client.Initialize(context.Background(), decodeAs[InitializeRequest](`{"protocolVersion":1}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("a later call: %v", err)
	}
}

// cancelledAgent's prompt handler sends an update, then waits on two calls
// to the client that the client holds, and fails with what they fail with.
// It has no `session/cancel` handler: its end acts on the notification
// itself.
type cancelledAgent struct {
	end *AgentConnection
	mu  sync.Mutex
	saw []string
}

func (a *cancelledAgent) Initialize(context.Context, InitializeRequest) (InitializeResponse, error) {
	return decodeAs[InitializeResponse](`{"protocolVersion":1}`), nil
}

func (a *cancelledAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return decodeAs[NewSessionResponse](`{"sessionId":"s"}`), nil
}

func (a *cancelledAgent) SessionPrompt(ctx context.Context, params PromptRequest) (PromptResponse, error) {
	session := at(jsonOf(params), "sessionId").Text()
	if err := a.end.SessionUpdate(decodeAs[SessionNotification](`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"reading"}}}`)); err != nil {
		return PromptResponse{}, err
	}
	var group sync.WaitGroup
	var read, allowed error
	group.Go(func() {
		_, read = a.end.FsReadTextFile(ctx, decodeAs[ReadTextFileRequest](`{"sessionId":"s","path":"/etc/hosts"}`))
	})
	group.Go(func() {
		permission := `{"sessionId":"s","toolCall":{"toolCallId":"call-1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`
		_, allowed = a.end.SessionRequestPermission(ctx, decodeAs[RequestPermissionRequest](permission))
	})
	group.Wait()
	<-a.end.Cancellation(session)
	a.mu.Lock()
	defer a.mu.Unlock()
	var cancelled *TurnCancelled
	a.saw = append(a.saw, fmt.Sprint(errors.As(read, &cancelled)), fmt.Sprint(errors.As(allowed, &cancelled)), cancelled.SessionID)
	return PromptResponse{}, errors.New("aborted")
}

// holdingClient holds every file read and permission request until its
// ctx is done, telling `arrived` of each.
type holdingClient struct {
	arrived chan struct{}
}

func (c holdingClient) SessionRequestPermission(ctx context.Context, _ RequestPermissionRequest) (RequestPermissionResponse, error) {
	c.arrived <- struct{}{}
	<-ctx.Done()
	return decodeAs[RequestPermissionResponse](`{"outcome":{"outcome":"selected","optionId":"allow"}}`), nil
}

func (c holdingClient) FsReadTextFile(ctx context.Context, _ ReadTextFileRequest) (ReadTextFileResponse, error) {
	c.arrived <- struct{}{}
	<-ctx.Done()
	return ReadTextFileResponse{}, ctx.Err()
}

func (holdingClient) SessionUpdate(context.Context, SessionNotification) error { return nil }

func TestACancelledTurnIsAnsweredCancelledAfterItsUpdates(t *testing.T) {
	d := newDice(11)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	agent := &cancelledAgent{}
	dropped := &reports{}
	agentEnd := ConnectAgent(func(end *AgentConnection) Agent { agent.end = end; return agent }, toAgent, toClient, ConnectOptions{Dropped: dropped.add})
	arrived := make(chan struct{}, 2)
	client := ConnectClient(func(*ClientConnection) Client { return holdingClient{arrived: arrived} }, toClient, toAgent, ConnectOptions{Dropped: dropped.add})
	ctx := context.Background()
	agentDone, clientDone := running(ctx, agentEnd.Run), running(ctx, client.Run)
	if _, err := client.Initialize(ctx, decodeAs[InitializeRequest](`{"protocolVersion":1}`)); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Once the client holds both calls of the turn.
		<-arrived
		<-arrived
		if err := client.SessionCancel(decodeAs[CancelNotification](`{"sessionId":"s"}`)); err != nil {
			t.Error(err)
		}
	}()
	response, err := client.SessionPrompt(ctx, decodeAs[PromptRequest](`{"sessionId":"s","prompt":[]}`))
	if err != nil || response.StopReason != StopReasonCancelled {
		t.Fatalf("the prompt: %v %v", response.StopReason, err)
	}
	// The client's withdrawn answer may still be on its way.
	waitForLine(t, log, clientWrote, `"outcome":"cancelled"`)
	finish(t, toAgent, toClient, agentDone, clientDone)
	if got := strings.Join(agent.saw, " "); got != "true true s" {
		t.Fatalf("the handler saw %s", got)
	}
	var read, wrote []string
	for _, entry := range log.all() {
		text, _ := entry.message.MarshalJSON()
		switch entry.event {
		case clientRead:
			read = append(read, string(text))
		case clientWrote:
			wrote = append(wrote, string(text))
		}
	}
	position := func(lines []string, part string) int {
		for index, line := range lines {
			if strings.Contains(line, part) {
				return index
			}
		}
		return -1
	}
	update, answer := position(read, `"session/update"`), position(read, `"stopReason":"cancelled"`)
	if update < 0 || answer < update {
		t.Fatalf("read %v", read)
	}
	// The client answered its pending permission request `cancelled`, after
	// `session/cancel`; the agent, no longer waiting, took it silently.
	cancel, withdrawn := position(wrote, `"session/cancel"`), position(wrote, `"result":{"outcome":{"outcome":"cancelled"}}`)
	if cancel < 0 || withdrawn < cancel {
		t.Fatalf("wrote %v", wrote)
	}
	if got := dropped.all(); len(got) != 0 {
		t.Fatalf("reported %+v", got)
	}
}

// askingAgent's prompt handler asks permission with a ctx that times out
// before the client answers, and keeps the call's error.
type askingAgent struct {
	cancelledAgent
	failed chan error
}

func (a *askingAgent) SessionPrompt(ctx context.Context, params PromptRequest) (PromptResponse, error) {
	asking, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	permission := `{"sessionId":"s","toolCall":{"toolCallId":"call-1"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`
	_, err := a.end.SessionRequestPermission(asking, decodeAs[RequestPermissionRequest](permission))
	a.failed <- err
	return decodeAs[PromptResponse](`{"stopReason":"end_turn"}`), nil
}

func TestTheAgentsCancelledCallCancelsTheClientsHandler(t *testing.T) {
	d := newDice(3)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	agent := &askingAgent{failed: make(chan error, 1)}
	dropped := &reports{}
	agentEnd := ConnectAgent(func(end *AgentConnection) Agent { agent.end = end; return agent }, toAgent, toClient, ConnectOptions{Dropped: dropped.add})
	arrived := make(chan struct{}, 2)
	client := ConnectClient(func(*ClientConnection) Client { return holdingClient{arrived: arrived} }, toClient, toAgent, ConnectOptions{})
	ctx := context.Background()
	agentDone, clientDone := running(ctx, agentEnd.Run), running(ctx, client.Run)
	if _, err := client.Initialize(ctx, decodeAs[InitializeRequest](`{"protocolVersion":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SessionPrompt(ctx, decodeAs[PromptRequest](`{"sessionId":"s","prompt":[]}`)); err != nil {
		t.Fatal(err)
	}
	if err := <-agent.failed; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the agent's call: %v", err)
	}
	// The client's handler saw its ctx cancelled and its request was
	// answered -32800, which the agent, no longer waiting, reported.
	waitForLine(t, log, agentRead, `"code":-32800`)
	finish(t, toAgent, toClient, agentDone, clientDone)
	var cancelled string
	for _, entry := range log.all() {
		if entry.event == clientRead && at(entry.message, "method").Text() == "$/cancel_request" {
			cancelled = idKey(at(entry.message, "params", "requestId"))
		}
	}
	got := dropped.all()
	if cancelled == "" || len(got) != 1 || got[0].Method.Set || idKey(at(got[0].Error.Data.Value, "id")) != cancelled {
		t.Fatalf("$/cancel_request for %s, reported %+v", cancelled, got)
	}
}

// writingAgent answers `initialize` with the capabilities it is given.
type writingAgent struct{ written string }

func (a writingAgent) Initialize(context.Context, InitializeRequest) (InitializeResponse, error) {
	return decodeAs[InitializeResponse](`{"protocolVersion":1,"agentCapabilities":` + a.written + `}`), nil
}

func (writingAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return decodeAs[NewSessionResponse](`{"sessionId":"s"}`), nil
}

func (writingAgent) SessionPrompt(context.Context, PromptRequest) (PromptResponse, error) {
	return decodeAs[PromptResponse](`{"stopReason":"end_turn"}`), nil
}

// loadingAgent also loads sessions.
type loadingAgent struct{ writingAgent }

func (loadingAgent) SessionLoad(context.Context, LoadSessionRequest) (LoadSessionResponse, error) {
	return decodeAs[LoadSessionResponse](`{}`), nil
}

// advertised is the capabilities member an agent's end answers
// `initialize` with.
func advertised(t *testing.T, agent Agent) string {
	t.Helper()
	p, done := rawPeer(t, agentWrote, func(reader, writer *pipe) interface{ Run(context.Context) error } {
		return ConnectAgent(func(*AgentConnection) Agent { return agent }, reader, writer, ConnectOptions{})
	})
	go drainPipe(p.out)
	seen := 0
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	capabilities, _ := at(p.next(t, &seen), "result", "agentCapabilities").MarshalJSON()
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.out.Close()
	return string(capabilities)
}

// Capabilities from handlers (v1's `loadSession` gates `session/load`): the
// agent's end advertises what its handlers answer, whatever its
// `initialize` handler wrote.
func TestAnAgentWithoutASessionLoadHandlerDoesNotAdvertiseLoadSession(t *testing.T) {
	got := advertised(t, writingAgent{`{"loadSession":true,"promptCapabilities":{"image":true}}`})
	if want := `{"promptCapabilities":{"image":true}}`; got != want {
		t.Fatalf("advertised %s, not %s", got, want)
	}
}

func TestAnAgentWithASessionLoadHandlerAdvertisesLoadSession(t *testing.T) {
	for _, written := range []string{`{}`, `{"loadSession":false}`} {
		if got := advertised(t, loadingAgent{writingAgent{written}}); got != `{"loadSession":true}` {
			t.Fatalf("wrote %s, advertised %s", written, got)
		}
	}
}

// Once `initialize` is done, the client's end refuses a call the agent did
// not advertise, before it is written.
func TestAClientsCallTheAgentDidNotAdvertiseFailsBeforeItIsWritten(t *testing.T) {
	d := newDice(1)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	client := ConnectClient(func(*ClientConnection) Client { return &raceClient{dice: d, handled: newCounts()} }, toClient, toAgent, ConnectOptions{})
	done := running(context.Background(), client.Run)
	go func() {
		// The peer reads the request and answers it without capabilities.
		buffer := make([]byte, 1)
		for {
			if _, err := toAgent.Read(buffer); err != nil || buffer[0] == '\n' {
				break
			}
		}
		_, _ = toClient.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}` + "\n"))
	}()
	if _, err := client.Initialize(context.Background(), decodeAs[InitializeRequest](`{"protocolVersion":1}`)); err != nil {
		t.Fatal(err)
	}
	_, err := client.SessionLoad(context.Background(), decodeAs[LoadSessionRequest](`{"sessionId":"s","cwd":"/","mcpServers":[]}`))
	var refused *CapabilityError
	if !errors.As(err, &refused) {
		t.Fatalf("session/load: %v", err)
	}
	if got := fmt.Sprint(refused.Method, " ", refused.Pointer, " ", refused.Side, " ", refused.Capability); got != "session/load  agent /agentCapabilities/loadSession" {
		t.Fatalf("refused: %s", got)
	}
	toClient.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	toAgent.Close()
	written := 0
	for _, entry := range log.all() {
		if entry.event == clientWrote {
			written++
		}
	}
	if written != 1 {
		t.Fatalf("the client wrote %d messages, not only initialize", written)
	}
}

// Per-session gates (`schema/capabilities.json`'s `sessionGates`):
// `session/set_mode` and `session/set_config_option` may be called only on
// a session whose opening answer offered `modes` (`configOptions`).

// offeringAgent offers every per-session method in its `session/new`
// answers, and handles none of them.
type offeringAgent struct{ writingAgent }

func (offeringAgent) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return decodeAs[NewSessionResponse](`{"sessionId":"s","modes":` + sessionModes + `,"configOptions":` + sessionOptions + `}`), nil
}

// configuringAgent also handles `session/set_config_option`.
type configuringAgent struct{ offeringAgent }

func (configuringAgent) SessionSetConfigOption(context.Context, SetSessionConfigOptionRequest) (SetSessionConfigOptionResponse, error) {
	return decodeAs[SetSessionConfigOptionResponse](`{"configOptions":` + sessionOptions + `}`), nil
}

const (
	sessionModes   = `{"currentModeId":"m","availableModes":[{"id":"m","name":"M"}]}`
	sessionOptions = `[{"id":"o","name":"O","type":"select","currentValue":"a","options":[{"value":"a","name":"A"}]}]`
)

// opened is the members of the result of an agent's end's answer to
// `session/new`, in order.
func opened(t *testing.T, agent Agent) []string {
	t.Helper()
	p, done := rawPeer(t, agentWrote, func(reader, writer *pipe) interface{ Run(context.Context) error } {
		return ConnectAgent(func(*AgentConnection) Agent { return agent }, reader, writer, ConnectOptions{})
	})
	go drainPipe(p.out)
	seen := 0
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	p.next(t, &seen)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	var members []string
	for _, member := range at(p.next(t, &seen), "result").Members() {
		members = append(members, member.Name)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.out.Close()
	return members
}

// The agent's end leaves out of its opening answers the offers of the
// per-session methods it has no handler for.
func TestTheAgentLeavesOutTheOffersOfThePerSessionMethodsItDoesNotHandle(t *testing.T) {
	offering := offeringAgent{writingAgent{`{}`}}
	if got := fmt.Sprint(opened(t, offering)); got != "[sessionId]" {
		t.Fatalf("answered the members %s, not only sessionId", got)
	}
	if got := fmt.Sprint(opened(t, configuringAgent{offering})); got != "[sessionId configOptions]" {
		t.Fatalf("answered the members %s, not sessionId and configOptions", got)
	}
}

// clientWithSession is a client's end past `initialize`, with `session/new`
// answered by `{"sessionId":"a"}` plus `offers`; the peer reads what the
// end writes (logged as `agentWrote`: `peer.next` reads those), `seen`
// lines of it so far.
func clientWithSession(t *testing.T, offers string) (client *ClientConnection, p *peer, seen *int, done <-chan error) {
	t.Helper()
	p, done = rawPeer(t, agentWrote, func(reader, writer *pipe) interface{ Run(context.Context) error } {
		client = ConnectClient(func(*ClientConnection) Client { return holdingClient{} }, reader, writer, ConnectOptions{})
		return client
	})
	go drainPipe(p.out)
	seen = new(int)
	answer := func(call func() error, result string) {
		failed := make(chan error, 1)
		go func() { failed <- call() }()
		id, _ := at(p.next(t, seen), "id").MarshalJSON()
		p.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+result+`}`)
		if err := <-failed; err != nil {
			t.Fatal(err)
		}
	}
	answer(func() error {
		_, err := client.Initialize(context.Background(), decodeAs[InitializeRequest](`{"protocolVersion":1}`))
		return err
	}, `{"protocolVersion":1}`)
	answer(func() error {
		_, err := client.SessionNew(context.Background(), decodeAs[NewSessionRequest](`{"cwd":"/","mcpServers":[]}`))
		return err
	}, `{"sessionId":"a"`+offers+`}`)
	return client, p, seen, done
}

// closePeer ends a peer's input and waits for the end.
func closePeer(t *testing.T, p *peer, done <-chan error) {
	t.Helper()
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.out.Close()
}

// The client's end refuses a per-session method on a session opened
// without its offer, before it is written; it sends it on a session not
// seen opened.
func TestTheClientRefusesPerSessionMethodsItsSessionWasNotOffered(t *testing.T) {
	client, p, seen, done := clientWithSession(t, "")
	// A call that is written waits for an answer that never comes.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := client.SessionSetConfigOption(ctx, decodeAs[SetSessionConfigOptionRequest](`{"sessionId":"a","configId":"o","value":"a"}`))
	var refused *CapabilityError
	if !errors.As(err, &refused) {
		t.Fatalf("session/set_config_option: %v", err)
	}
	if got := fmt.Sprint(refused.Method, " ", refused.Pointer, " ", refused.Side, " ", refused.Capability); got != "session/set_config_option  agent /configOptions" {
		t.Fatalf("refused: %s", got)
	}
	_, err = client.SessionSetMode(ctx, decodeAs[SetSessionModeRequest](`{"sessionId":"a","modeId":"m"}`))
	if !errors.As(err, &refused) || refused.Capability != "/modes" {
		t.Fatalf("session/set_mode: %v", err)
	}
	go func() {
		_, _ = client.SessionSetMode(context.Background(), decodeAs[SetSessionModeRequest](`{"sessionId":"elsewhere","modeId":"m"}`))
	}()
	if got := at(p.next(t, seen), "params", "sessionId").Text(); got != "elsewhere" {
		t.Fatalf("the next line written is for session %q, not the call on another session", got)
	}
	closePeer(t, p, done)
}

// The client's end sends a per-session method on a session opened with
// its offer.
func TestTheClientSendsPerSessionMethodsItsSessionWasOffered(t *testing.T) {
	client, p, seen, done := clientWithSession(t, `,"modes":`+sessionModes)
	go func() {
		_, _ = client.SessionSetMode(context.Background(), decodeAs[SetSessionModeRequest](`{"sessionId":"a","modeId":"m"}`))
	}()
	if got := at(p.next(t, seen), "method").Text(); got != "session/set_mode" {
		t.Fatalf("wrote %q", got)
	}
	closePeer(t, p, done)
}
