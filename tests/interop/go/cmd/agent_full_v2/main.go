// Command agent_full_v2 is our full-surface Go agent on protocol v2, for
// `cargo xtask conformance`: the same agent as
// `tests/interop/python/agent_full_v2.py`, on the connection of the v2
// stable bindings' module (`acp.ConnectAgent`) over its own stdio. It
// advertises every capability of the v2 schema (`capabilities.session` with
// its prompt content, MCP transports, `delete` and `additionalDirectories`)
// and implements each simply: sessions in memory (new, list with the `cwd`
// filter, resume with `replayFrom: start` replaying the conversation, close,
// delete), config options (a mode, a model and a boolean), an agent-handled
// authentication method that always succeeds, a terminal one (offered when
// the client can run it: `--login`, which always succeeds) and
// `auth/logout`. A prompt is acknowledged at once (`running`, then its
// message id) and its turn is played by a goroutine: the user message, a
// plan, a tool call that asks permission and runs in a terminal, the
// prompt's words streamed back one chunk at a time, and `idle`. Payloads
// are written as JSON and decoded into the generated types, as the Python
// twin does.
//
// What the connection does, the agent leaves to it: it reports
// `requires_action` while the permission request waits and `running` once
// it is answered, and when `session/cancel` names the session it closes the
// turn's `Cancellation` channel and fails the pending permission request;
// the turn then ends with an `idle` that says no stop reason, into which the
// connection writes `cancelled`. `session/close` and `session/delete` are
// the agent's own: they end the turn at once with `idle` and the
// `cancelled` stop reason, and abandon its permission request. Nothing of a
// turn follows its `idle`.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/payload"
	"acpinterop/internal/stdio"
)

// pause is the time between two steps of a turn, so that a turn lasts long
// enough to be cancelled.
const pause = 50 * time.Millisecond

// object, and the helpers below, are the full agents' shared payload helpers.
type object = payload.Object

var (
	now     = payload.Now
	asJSON  = payload.AsJSON
	member  = payload.Member
	text    = payload.Text
	invalid = payload.Invalid
)

var modes = []object{{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}}

var models = []object{{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}}

// turn is the turn in flight in a session: its prompt's message id, the
// reply streamed so far, the connection's cancellation of it and its own
// context, cancelled when it ends.
type turn struct {
	message   string
	text      string
	cancelled <-chan struct{}
	ctx       context.Context
	end       context.CancelFunc
}

func (t *turn) reply() string { return "reply-to-" + t.message }

type session struct {
	cwd         string
	directories []any
	mode        string
	model       string
	brief       bool
	history     []object
	updated     string
	turn        *turn
}

type agent struct {
	end *acp.AgentConnection

	mu       sync.Mutex
	sessions map[string]*session
	created  int
	messages int
}

func written(value any) string {
	text, _ := json.Marshal(value)
	return string(text)
}

// words are the prompt's words: each block's text, or `[type]` for a block
// without one.
func words(blocks []any) []string {
	var parts []string
	for _, block := range blocks {
		if said, ok := member(block, "text").(string); ok {
			parts = append(parts, said)
		} else {
			parts = append(parts, "["+text(member(block, "type"))+"]")
		}
	}
	return strings.Fields(strings.Join(parts, " "))
}

func state(name, stopReason string) object {
	update := object{"sessionUpdate": "state_update", "state": name}
	if stopReason != "" {
		update["stopReason"] = stopReason
	}
	return update
}

func configOptions(s *session) []object {
	return []object{
		{"configId": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": s.mode, "options": modes},
		{"configId": "model", "name": "Model", "category": "model", "type": "select", "currentValue": s.model, "options": models},
		{"configId": "brief", "name": "Brief answers", "type": "boolean", "currentValue": s.brief},
	}
}

// find is the session `id`. The caller holds the lock.
func (a *agent) find(id string) (*session, error) {
	if s, ok := a.sessions[id]; ok {
		return s, nil
	}
	return nil, acp.SessionNotFound(id)
}

// send sends `update` for the session `id`. The caller holds the lock, so
// that updates leave in the order the turns decide them.
func (a *agent) send(id string, update object) error {
	notification, err := payload.Decoded[acp.UpdateSessionNotification](object{"sessionId": id, "update": update})
	if err != nil {
		return err
	}
	return a.end.SessionUpdate(notification)
}

// finish ends the turn `t` of the session `id`, unless it has ended: its
// reply joins the history, then `idle`, with `stopReason` when it is not
// empty. The caller holds the lock.
func (a *agent) finish(id string, t *turn, stopReason string) {
	s, ok := a.sessions[id]
	if !ok || s.turn != t {
		return
	}
	s.turn = nil
	if t.text != "" {
		s.history = append(s.history, object{
			"sessionUpdate": "agent_message", "messageId": t.reply(),
			"content": []object{{"type": "text", "text": t.text}},
		})
	}
	s.updated = now()
	t.end()
	if err := a.send(id, state("idle", stopReason)); err != nil {
		fmt.Fprintf(os.Stderr, "the end of the turn of %s was not sent: %v\n", t.message, err)
	}
}

// forget removes the session `id`, its turn in flight ended as cancelled.
func (a *agent) forget(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if ok && s.turn != nil {
		a.finish(id, s.turn, "cancelled")
	}
	delete(a.sessions, id)
	return ok
}

func (a *agent) Initialize(_ context.Context, params acp.InitializeRequest) (acp.InitializeResponse, error) {
	methods := []object{{"type": "agent", "methodId": "none", "name": "No credentials", "description": "Always succeeds."}}
	if member(member(asJSON(params)["capabilities"], "auth"), "terminal") != nil {
		methods = append(methods, object{
			"type": "terminal", "methodId": "terminal", "name": "Terminal login",
			"description": "Runs this agent with --login, which always succeeds.", "args": []string{"--login"},
		})
	}
	return payload.Decoded[acp.InitializeResponse](object{
		"protocolVersion": acp.CurrentProtocolVersion,
		"info":            object{"name": "acp-codegen full-surface agent (Go, v2)", "version": "0.1.0"},
		"capabilities": object{"session": object{
			"prompt":                object{"image": object{}, "audio": object{}, "embeddedContext": object{}},
			"mcp":                   object{"stdio": object{}, "http": object{}},
			"delete":                object{},
			"additionalDirectories": object{},
		}},
		"authMethods": methods,
	})
}

func (a *agent) AuthLogin(_ context.Context, params acp.LoginAuthRequest) (acp.LoginAuthResponse, error) {
	if params.MethodId != "none" {
		return acp.LoginAuthResponse{}, invalid(fmt.Sprintf("no authentication method %q for auth/login", params.MethodId))
	}
	return payload.Decoded[acp.LoginAuthResponse](object{})
}

func (a *agent) AuthLogout(context.Context, acp.LogoutAuthRequest) (acp.LogoutAuthResponse, error) {
	return payload.Decoded[acp.LogoutAuthResponse](object{})
}

func (a *agent) SessionNew(_ context.Context, params acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	request := asJSON(params)
	directories, _ := request["additionalDirectories"].([]any)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.created++
	id := fmt.Sprintf("session-%d", a.created)
	s := &session{cwd: text(request["cwd"]), directories: directories, mode: "ask", model: "small", updated: now()}
	a.sessions[id] = s
	return payload.Decoded[acp.NewSessionResponse](object{"sessionId": id, "configOptions": configOptions(s)})
}

func (a *agent) SessionResume(_ context.Context, params acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	request := asJSON(params)
	id := text(request["sessionId"])
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.find(id)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	if text(request["cwd"]) != s.cwd {
		return acp.ResumeSessionResponse{}, invalid("the session's cwd is " + s.cwd)
	}
	from := request["replayFrom"]
	if from != nil && member(from, "type") != "start" {
		return acp.ResumeSessionResponse{}, invalid("no replay from " + written(member(from, "type")))
	}
	s.directories, _ = request["additionalDirectories"].([]any)
	if from != nil {
		for _, update := range s.history {
			if err := a.send(id, update); err != nil {
				return acp.ResumeSessionResponse{}, err
			}
		}
	}
	now := "idle"
	if s.turn != nil {
		now = "running"
	}
	if err := a.send(id, state(now, "")); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	return payload.Decoded[acp.ResumeSessionResponse](object{"configOptions": configOptions(s)})
}

func (a *agent) SessionList(_ context.Context, params acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	wanted, filtered := asJSON(params)["cwd"].(string)
	a.mu.Lock()
	defer a.mu.Unlock()
	listed := []object{}
	for _, id := range slices.Sorted(maps.Keys(a.sessions)) {
		s := a.sessions[id]
		if filtered && s.cwd != wanted {
			continue
		}
		info := object{"sessionId": id, "cwd": s.cwd, "title": "Session " + id, "updatedAt": s.updated}
		if len(s.directories) > 0 {
			info["additionalDirectories"] = s.directories
		}
		listed = append(listed, info)
	}
	return payload.Decoded[acp.ListSessionsResponse](object{"sessions": listed})
}

func (a *agent) SessionClose(_ context.Context, params acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	if !a.forget(string(params.SessionId)) {
		return acp.CloseSessionResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	return payload.Decoded[acp.CloseSessionResponse](object{})
}

func (a *agent) SessionDelete(_ context.Context, params acp.DeleteSessionRequest) (acp.DeleteSessionResponse, error) {
	a.forget(string(params.SessionId))
	return payload.Decoded[acp.DeleteSessionResponse](object{})
}

func (a *agent) SessionSetConfigOption(_ context.Context, params acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	request := asJSON(params)
	option, kind, value := text(request["configId"]), text(request["type"]), request["value"]
	among := func(values []object) bool {
		return kind == "id" && slices.ContainsFunc(values, func(known object) bool { return known["value"] == value })
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.find(text(request["sessionId"]))
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	brief, isBool := value.(bool)
	switch {
	case option == "mode" && among(modes):
		s.mode = text(value)
	case option == "model" && among(models):
		s.model = text(value)
	case option == "brief" && kind == "boolean" && isBool:
		s.brief = brief
	default:
		return acp.SetSessionConfigOptionResponse{}, invalid(fmt.Sprintf("no value %s (%s) for %s", written(value), kind, option))
	}
	return payload.Decoded[acp.SetSessionConfigOptionResponse](object{"configOptions": configOptions(s)})
}

func (a *agent) SessionPrompt(_ context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	id := string(params.SessionId)
	prompt, _ := asJSON(params)["prompt"].([]any)
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.find(id)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	if s.turn != nil {
		return acp.PromptResponse{}, invalid("a turn is in progress in " + id)
	}
	a.messages++
	ctx, end := context.WithCancel(context.Background())
	t := &turn{message: fmt.Sprintf("message-%d", a.messages), cancelled: a.end.Cancellation(id), ctx: ctx, end: end}
	s.turn = t
	s.history = append(s.history, object{"sessionUpdate": "user_message", "messageId": t.message, "content": prompt})
	s.updated = now()
	if err := a.send(id, state("running", "")); err != nil {
		return acp.PromptResponse{}, err
	}
	go a.play(id, t, prompt, s.cwd)
	return payload.Decoded[acp.PromptResponse](object{"messageId": t.message})
}

// No terminal or tool call of this agent advertises `capabilities.cancel`.
func (a *agent) TerminalCancel(_ context.Context, params acp.CancelTerminalRequest) (acp.CancelTerminalResponse, error) {
	a.mu.Lock()
	_, err := a.find(string(params.SessionId))
	a.mu.Unlock()
	if err != nil {
		return acp.CancelTerminalResponse{}, err
	}
	return acp.CancelTerminalResponse{}, invalid(fmt.Sprintf("terminal %q is unknown, has exited or cannot be cancelled", params.TerminalId))
}

func (a *agent) ToolCallCancel(_ context.Context, params acp.CancelToolCallRequest) (acp.CancelToolCallResponse, error) {
	a.mu.Lock()
	_, err := a.find(string(params.SessionId))
	a.mu.Unlock()
	if err != nil {
		return acp.CancelToolCallResponse{}, err
	}
	return acp.CancelToolCallResponse{}, invalid(fmt.Sprintf("tool call %q is unknown, final or cannot be cancelled", params.ToolCallId))
}

// step sends `update` while the turn `t` lasts, adding `said` to its reply;
// whether it lasts.
func (a *agent) step(id string, t *turn, update object, said string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[id]; !ok || s.turn != t {
		return false
	}
	t.text += said
	if err := a.send(id, update); err != nil {
		fmt.Fprintf(os.Stderr, "the turn of %s failed: %v\n", t.message, err)
		a.finish(id, t, "error")
		return false
	}
	return true
}

// rest waits between two steps of the turn `t`; whether it goes on. When
// the connection cancelled it, the turn ends here, with an `idle` the
// connection writes `cancelled` into.
func (a *agent) rest(id string, t *turn) bool {
	select {
	case <-time.After(pause):
		return true
	case <-t.ctx.Done():
		return false
	case <-t.cancelled:
		a.mu.Lock()
		a.finish(id, t, "")
		a.mu.Unlock()
		return false
	}
}

// play is the turn `t` of the session `id` after its acknowledgement; each
// step only while the turn lasts.
func (a *agent) play(id string, t *turn, prompt []any, cwd string) {
	said := words(prompt)
	plan := func(status string) object {
		return object{"sessionUpdate": "plan_update", "plan": object{
			"type": "items", "planId": "plan-" + t.message, "entries": []object{
				{"content": "Count the words", "priority": "high", "status": status},
				{"content": "Say them back", "priority": "medium", "status": status},
			},
		}}
	}
	call := "call-" + t.message
	terminal := "terminal-" + t.message
	before := []object{
		{"sessionUpdate": "user_message", "messageId": t.message, "content": prompt},
		plan("pending"),
		{"sessionUpdate": "tool_call_update", "toolCallId": call, "title": "Count the words", "kind": "execute", "status": "pending"},
	}
	for _, update := range before {
		if !a.step(id, t, update, "") || !a.rest(id, t) {
			return
		}
	}
	allowed, goes := a.ask(id, t, call)
	if !goes {
		return
	}
	ran := []object{{"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed"}}
	reply := []string{"Not", "counted."}
	if allowed {
		ran = []object{
			{"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress", "content": []object{{"type": "terminal", "terminalId": terminal}}},
			{"sessionUpdate": "terminal_update", "terminalId": terminal, "command": "wc -w", "cwd": cwd},
			{"sessionUpdate": "terminal_output_chunk", "terminalId": terminal, "data": base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "%d\n", len(said)))},
			{"sessionUpdate": "terminal_update", "terminalId": terminal, "exitStatus": object{"exitCode": 0}},
			{"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"},
			plan("in_progress"),
		}
		reply = said
	}
	for _, update := range ran {
		if !a.step(id, t, update, "") || !a.rest(id, t) {
			return
		}
	}
	for _, word := range reply {
		chunk := word + " "
		update := object{"sessionUpdate": "agent_message_chunk", "messageId": t.reply(), "content": object{"type": "text", "text": chunk}}
		if !a.step(id, t, update, chunk) || !a.rest(id, t) {
			return
		}
	}
	if a.step(id, t, plan("completed"), "") {
		a.mu.Lock()
		a.finish(id, t, "end_turn")
		a.mu.Unlock()
	}
}

// ask asks the client's permission to run the tool call `call` (the
// connection reports `requires_action` meanwhile, and `running` after);
// whether it was allowed, and whether the turn goes on.
func (a *agent) ask(id string, t *turn, call string) (allowed, goes bool) {
	request, err := payload.Decoded[acp.RequestPermissionRequest](object{
		"sessionId": id, "title": "Run `wc -w`?",
		"subject": object{"type": "tool_call", "toolCall": object{"toolCallId": call}},
		"options": []object{
			{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
			{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
		},
	})
	var answer acp.RequestPermissionResponse
	if err == nil {
		answer, err = a.end.SessionRequestPermission(t.ctx, request)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var cancelled *acp.TurnCancelled
	switch {
	case t.ctx.Err() != nil:
		return false, false
	case errors.As(err, &cancelled):
		a.finish(id, t, "")
		return false, false
	case err != nil:
		fmt.Fprintf(os.Stderr, "the turn of %s failed: %v\n", t.message, err)
		a.finish(id, t, "error")
		return false, false
	}
	outcome := member(asJSON(answer)["outcome"], "outcome")
	option := member(asJSON(answer)["outcome"], "optionId")
	return outcome == "selected" && option == "allow", true
}

func main() {
	// The terminal authentication method runs the agent with `--login`: nothing to log in to.
	if slices.Contains(os.Args[1:], "--login") {
		fmt.Println("Logged in: this agent needs no credentials.")
		return
	}
	// Recorded to ACP_INTEROP_TRACE when a client of the interop matrix keeps no record.
	stdio.ServeAgent(func(end *acp.AgentConnection) acp.Agent {
		return &agent{end: end, sessions: map[string]*session{}}
	})
}
