// The module's connection on protocol v2 (the latest release's stable
// schema), where a prompt's response only accepts it and the turn goes on:
// the agent reports `running`, its chunks, then `idle` with the stop
// reason, after the response. An agent written on the `Agent` interface
// accepts each prompt and hands the turn to a goroutine; a client prompts
// several sessions at once through pipes that cut lines and hold them back
// at random, from one seed per run. With the ordering, every prompt call
// completes only once every chunk of its turn and its `idle` were handled;
// without it (`ConnectOptions{Unordered: true}`), the same runs complete
// calls on the acceptance, before their turn was handled.
//
// `session/cancel` ends the session's foreground work as cancelled: the
// agent's `idle` says `cancelled` whatever the agent wrote, the work's
// pending calls to the client fail, and the client answers its pending
// permission request `cancelled`. While a permission request waits, the
// agent's end reports `requires_action`, and `running` once it is
// answered. The Rust, TypeScript and Python connections run the same
// scenarios. The race tests' agent is the Go test agent
// (`tests/go/scripted_agent_v2/`). Copied next to the v2 stable bindings by
// `cargo xtask test`, as an external test (the test agent imports the
// module), with the test agent as the module's `internal/scriptedagent`.

package acp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/acp-codegen/acp-bindings-go"
	"github.com/acp-codegen/acp-bindings-go/internal/scriptedagent"
)

const (
	v2Initialize = `{"protocolVersion":2,"info":{"name":"test","version":"1"}}`
)

// v2Info is what the test agent names itself in `initialize`.
var v2Info = Implementation{Name: "test", Version: "1"}

// v2Sessions answers what protocol v2's `session` capability offers with
// `session/new` and `session/prompt`: an agent's end advertises it when its
// agent answers them all, and the client's end calls none of them otherwise.
type v2Sessions struct{}

func (v2Sessions) SessionNew(context.Context, NewSessionRequest) (NewSessionResponse, error) {
	return decodeAs[NewSessionResponse](`{"sessionId":"s"}`), nil
}

func (v2Sessions) SessionList(context.Context, ListSessionsRequest) (ListSessionsResponse, error) {
	return decodeAs[ListSessionsResponse](`{"sessions":[]}`), nil
}

func (v2Sessions) SessionResume(context.Context, ResumeSessionRequest) (ResumeSessionResponse, error) {
	return decodeAs[ResumeSessionResponse](`{}`), nil
}

func (v2Sessions) SessionClose(context.Context, CloseSessionRequest) (CloseSessionResponse, error) {
	return decodeAs[CloseSessionResponse](`{}`), nil
}

// v2AgentOptions is the test agent of the race tests: echo turns of 1 to 5
// chunks with random waits, on `work`, a third of the prompts sending an
// `idle` snapshot before their `running`, telling `sent` each turn's
// chunks.
func v2AgentOptions(d *dice, sent *counts, work *sync.WaitGroup) scriptedagent.Options {
	return scriptedagent.Options{
		Info:      &v2Info,
		Chunks:    func() int { return 1 + d.below(5) },
		EarlyIdle: func() bool { return d.below(3) == 0 },
		Pause:     d.pause,
		Played:    sent.add,
		Work:      work,
	}
}

type v2Client struct {
	dice    *dice
	handled *counts
}

func (c *v2Client) SessionRequestPermission(context.Context, RequestPermissionRequest) (RequestPermissionResponse, error) {
	return RequestPermissionResponse{}, &RequestError{Code: -32601, Message: "method not found"}
}

func (c *v2Client) SessionUpdate(_ context.Context, params UpdateSessionNotification) error {
	c.dice.pause(4)
	update := at(jsonOf(params), "update")
	if at(update, "sessionUpdate").Text() == "agent_message_chunk" {
		c.handled.add(promptOf(at(update, "content", "text").Text()), 1)
	}
	return nil
}

// v2Run is one run; it returns the prompt calls that completed before
// their turn was handled.
func v2Run(t *testing.T, seed uint64, ordered bool, sessions, prompts int) int {
	d := newDice(seed)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	options := ConnectOptions{Unordered: !ordered}
	sent, handled := newCounts(), newCounts()
	var work sync.WaitGroup
	agent := ConnectAgent(func(end *AgentConnection) Agent {
		return scriptedagent.New(end, v2AgentOptions(d, sent, &work))
	}, toAgent, toClient, options)
	client := ConnectClient(func(*ClientConnection) Client {
		return &v2Client{dice: d, handled: handled}
	}, toClient, toAgent, options)
	ctx := context.Background()
	agentDone, clientDone := running(ctx, agent.Run), running(ctx, client.Run)
	if _, err := client.Initialize(ctx, decodeAs[InitializeRequest](v2Initialize)); err != nil {
		t.Fatalf("seed %d: initialize: %v", seed, err)
	}
	var mu sync.Mutex
	early := 0
	var group sync.WaitGroup
	for index := range sessions {
		group.Go(func() {
			created, err := client.SessionNew(ctx, decodeAs[NewSessionRequest](`{"cwd":"/tmp"}`))
			if err != nil {
				t.Errorf("seed %d: session/new: %v", seed, err)
				return
			}
			session := at(jsonOf(created), "sessionId").Text()
			for turn := range prompts {
				d.pause(2)
				text := fmt.Sprintf("s%d t%d", index, turn)
				prompt := fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":%q}]}`, session, text)
				if _, err := client.SessionPrompt(ctx, decodeAs[PromptRequest](prompt)); err != nil {
					t.Errorf("seed %d: session/prompt: %v", seed, err)
					return
				}
				expected, ok := sent.get(text)
				if got, _ := handled.get(text); !ok || got != expected {
					mu.Lock()
					early++
					mu.Unlock()
				}
			}
		})
	}
	group.Wait()
	work.Wait()
	finish(t, toAgent, toClient, agentDone, clientDone)
	return early
}

func TestAPromptCallCompletesWhenItsTurnIsIdleAndHandled(t *testing.T) {
	early := 0
	for seed := range uint64(raceSeedsV2) {
		found := v2Run(t, seed, true, raceSessionsV2, racePromptsV2)
		if found != 0 {
			t.Fatalf("seed %d: %d prompt calls completed before their turn was handled", seed, found)
		}
		early += found
	}
	fmt.Printf("go connection (v2) ordered: %d turns, %d completed early\n", raceSeedsV2*raceSessionsV2*racePromptsV2, early)
}

func TestWithoutTheOrderingPromptCallsCompleteOnTheAcceptance(t *testing.T) {
	early := 0
	for seed := range uint64(raceSeedsV2) {
		early += v2Run(t, seed, false, raceSessionsV2, racePromptsV2)
	}
	fmt.Printf("go connection (v2) unordered: %d turns, %d completed early\n", raceSeedsV2*raceSessionsV2*racePromptsV2, early)
	if early == 0 {
		t.Fatal("no prompt call completed early")
	}
}

// Seeds per mode, sessions per run and prompts per session.
const (
	raceSeedsV2    = 30
	raceSessionsV2 = 3
	racePromptsV2  = 10
)

// cancelledV2Agent's prompt starts foreground work that asks permission
// twice, then waits for its cancellation and ends the work with `idle`,
// saying `end_turn` as if nothing happened. It reports no state but
// `running` and `idle`, and has no `session/cancel` handler: its end acts
// on the notification itself.
type cancelledV2Agent struct {
	v2Sessions
	end *AgentConnection
	saw []string
}

func (a *cancelledV2Agent) Initialize(context.Context, InitializeRequest) (InitializeResponse, error) {
	return decodeAs[InitializeResponse](v2Initialize), nil
}

func (a *cancelledV2Agent) SessionPrompt(ctx context.Context, params PromptRequest) (PromptResponse, error) {
	session := at(jsonOf(params), "sessionId").Text()
	state := func(update string) {
		if err := a.end.SessionUpdate(decodeAs[UpdateSessionNotification](`{"sessionId":"` + session + `","update":` + update + `}`)); err != nil {
			panic(err)
		}
	}
	state(`{"sessionUpdate":"state_update","state":"running"}`)
	cancellation := a.end.Cancellation(session)
	permission := decodeAs[RequestPermissionRequest](`{"sessionId":"` + session + `","title":"Write?","options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}`)
	_, first := a.end.SessionRequestPermission(ctx, permission)
	_, second := a.end.SessionRequestPermission(ctx, permission)
	<-cancellation
	var cancelled *TurnCancelled
	a.saw = append(a.saw, fmt.Sprint("answered: ", first == nil), fmt.Sprint("cancelled: ", errors.As(second, &cancelled)))
	state(`{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}`)
	// The work ended: a new call is not refused for the old turn.
	select {
	case <-a.end.Cancellation(session):
		a.saw = append(a.saw, "still cancelled")
	default:
		a.saw = append(a.saw, "not cancelled")
	}
	return decodeAs[PromptResponse](`{"messageId":"message-1"}`), nil
}

// holdingV2Client allows the first permission request and holds the
// others, telling `arrived`, and keeps each state it handled (an `idle`
// with its stop reason).
type holdingV2Client struct {
	arrived chan struct{}
	mu      sync.Mutex
	asked   int
	states  []string
}

func (c *holdingV2Client) SessionRequestPermission(ctx context.Context, _ RequestPermissionRequest) (RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked++
	first := c.asked == 1
	c.mu.Unlock()
	if !first {
		c.arrived <- struct{}{}
		<-ctx.Done()
	}
	return decodeAs[RequestPermissionResponse](`{"outcome":{"outcome":"selected","optionId":"allow"}}`), nil
}

func (c *holdingV2Client) SessionUpdate(_ context.Context, params UpdateSessionNotification) error {
	update := at(jsonOf(params), "update")
	if state := at(update, "state"); state.Kind() == KindString {
		text := state.Text()
		if reason := at(update, "stopReason"); reason.Kind() == KindString {
			text += " " + reason.Text()
		}
		c.mu.Lock()
		c.states = append(c.states, text)
		c.mu.Unlock()
	}
	return nil
}

func TestACancelledTurnEndsWithAnIdleThatSaysCancelled(t *testing.T) {
	d := newDice(5)
	log := &wireLog{}
	toAgent := newPipe(d, log, clientWrote, agentRead)
	toClient := newPipe(d, log, agentWrote, clientRead)
	agent := &cancelledV2Agent{}
	dropped := &reports{}
	agentEnd := ConnectAgent(func(end *AgentConnection) Agent { agent.end = end; return agent }, toAgent, toClient, ConnectOptions{Dropped: dropped.add})
	client := &holdingV2Client{arrived: make(chan struct{}, 1)}
	clientEnd := ConnectClient(func(*ClientConnection) Client { return client }, toClient, toAgent, ConnectOptions{Dropped: dropped.add})
	ctx := context.Background()
	agentDone, clientDone := running(ctx, agentEnd.Run), running(ctx, clientEnd.Run)
	if _, err := clientEnd.Initialize(ctx, decodeAs[InitializeRequest](v2Initialize)); err != nil {
		t.Fatal(err)
	}
	go func() {
		<-client.arrived
		if err := clientEnd.SessionCancel(decodeAs[CancelSessionNotification](`{"sessionId":"s"}`)); err != nil {
			t.Error(err)
		}
	}()
	accepted, err := clientEnd.SessionPrompt(ctx, decodeAs[PromptRequest](`{"sessionId":"s","prompt":[{"type":"text","text":"go"}]}`))
	if err != nil || at(jsonOf(accepted), "messageId").Text() != "message-1" {
		t.Fatalf("the prompt: %v", err)
	}
	waitForLine(t, log, clientWrote, `"outcome":"cancelled"`)
	finish(t, toAgent, toClient, agentDone, clientDone)
	if got := strings.Join(agent.saw, ", "); got != "answered: true, cancelled: true, not cancelled" {
		t.Fatalf("the agent saw %s", got)
	}
	if got := strings.Join(client.states, ", "); got != "running, requires_action, running, requires_action, idle cancelled" {
		t.Fatalf("the client handled %s", got)
	}
	if got := dropped.all(); len(got) != 0 {
		t.Fatalf("reported %+v", got)
	}
}

func TestTheV2HandshakeRefusesAVersionBelowEverySupportedOne(t *testing.T) {
	p, done := rawPeer(t, agentWrote, func(reader, writer *pipe) interface{ Run(context.Context) error } {
		return ConnectAgent(func(end *AgentConnection) Agent {
			return scriptedagent.New(end, scriptedagent.Options{Info: &v2Info})
		}, reader, writer, ConnectOptions{})
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
	expect(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"info":{"name":"old","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":1,"supported":[2]}}}`)
	expect(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/"}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"initialize has not been answered","data":{"method":"session/new"}}}`)
	expect(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":9,"info":{"name":"new","version":"1"}}}`,
		// It answers the session methods: its end advertises them.
		`{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":2,"info":{"name":"test","version":"1"},"capabilities":{"session":{}}}}`)
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.out.Close()
	if got := SessionNotFound("s").JSON(); idKey(got) != `{"code":-32002,"message":"Resource not found","data":{"sessionId":"s"}}` {
		t.Fatalf("SessionNotFound: %s", idKey(got))
	}
}

// Two prompts of one session, both accepted, then one `idle`: the turn
// machine drains both, and both calls return once the `idle` was handled.
func TestOneIdleEndsEveryPromptOfItsSession(t *testing.T) {
	client := &holdingV2Client{}
	var end *ClientConnection
	p, done := rawPeer(t, agentWrote, func(reader, writer *pipe) interface{ Run(context.Context) error } {
		end = ConnectClient(func(*ClientConnection) Client { return client }, reader, writer, ConnectOptions{})
		return end
	})
	go drainPipe(p.out)
	returned := make(chan error, 2)
	seen := 0
	var ids []string
	for range 2 {
		go func() {
			_, err := end.SessionPrompt(context.Background(), decodeAs[PromptRequest](`{"sessionId":"s","prompt":[{"type":"text","text":"go"}]}`))
			returned <- err
		}()
		id, _ := at(p.next(t, &seen), "id").MarshalJSON()
		ids = append(ids, string(id))
	}
	for _, id := range ids {
		p.send(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"messageId":"m`+id+`"}}`)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}}`)
	for range ids {
		select {
		case err := <-returned:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a prompt call of the session did not return after its idle")
		}
	}
	if got := strings.Join(client.states, ", "); got != "idle end_turn" {
		t.Fatalf("the client handled %s", got)
	}
	p.in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	p.out.Close()
}
