// Command agent_full is our full-surface Go agent, for `cargo xtask
// conformance`: the same agent as `tests/interop/python/agent_full.py`, on
// the generated module's connection (`acp.ConnectAgent`) over its own stdio.
// It advertises every capability of the v1 schema the conformance kit
// checks: sessions in memory (load with replay, resume, list, close,
// delete), modes, config options, a streamed turn around a tool call that
// ends `cancelled` on `session/cancel` or `session/close`, an
// authentication method that always succeeds, and `logout`. Payloads are
// written as JSON and decoded into the generated types, as the Python twin
// does.
//
// `session/cancel` is the connection's: it closes the turn's
// `Cancellation` channel, which stops the streaming here, and answers the
// prompt `cancelled` whatever the handler ends with. `session/close` and
// `session/delete` are the agent's own: they stop the turn in flight, which
// then answers `cancelled` itself.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	acp "github.com/acp-codegen/acp-bindings-go"

	"acpinterop/internal/payload"
	"acpinterop/internal/stdio"
)

// pause is the time between two streamed chunks, so that a turn lasts long
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

var modes = []object{
	{"id": "ask", "name": "Ask", "description": "Asks before acting."},
	{"id": "code", "name": "Code", "description": "Acts without asking."},
}

var models = []object{{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}}

type session struct {
	cwd         string
	directories []any
	mode        string
	model       string
	brief       bool
	history     []object
	updated     string
	// stop is closed when `session/close` or `session/delete` ends the
	// turn in flight; nil without one.
	stop chan struct{}
}

type agent struct {
	end *acp.AgentConnection

	mu       sync.Mutex
	client   object
	sessions map[string]*session
	created  int
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

// configOptions are the session's options; the boolean one only for a
// client that can show it. The caller holds the lock.
func (a *agent) configOptions(s *session) []object {
	options := []object{{
		"id": "model", "name": "Model", "category": "model", "type": "select",
		"currentValue": s.model, "options": models,
	}}
	if member(member(member(a.client, "session"), "configOptions"), "boolean") != nil {
		options = append(options, object{"id": "brief", "name": "Brief answers", "type": "boolean", "currentValue": s.brief})
	}
	return options
}

// state is the session's modes and config options. The caller holds the lock.
func (a *agent) state(s *session) object {
	return object{
		"modes":         object{"currentModeId": s.mode, "availableModes": modes},
		"configOptions": a.configOptions(s),
	}
}

// find is the session `id`. The caller holds the lock.
func (a *agent) find(id string) (*session, error) {
	if s, ok := a.sessions[id]; ok {
		return s, nil
	}
	return nil, acp.SessionNotFound(id)
}

// update sends `update` for the session `id`, recorded in its history when
// `record`.
func (a *agent) update(id string, update object, record bool) error {
	if record {
		a.mu.Lock()
		if s, ok := a.sessions[id]; ok {
			s.history = append(s.history, update)
			s.updated = now()
		}
		a.mu.Unlock()
	}
	notification, err := payload.Decoded[acp.SessionNotification](object{"sessionId": id, "update": update})
	if err != nil {
		return err
	}
	return a.end.SessionUpdate(notification)
}

// reopen is the state of an existing session, its `cwd` set to the
// request's.
func (a *agent) reopen(request object) (object, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.find(text(request["sessionId"]))
	if err != nil {
		return nil, err
	}
	s.cwd = text(request["cwd"])
	return a.state(s), nil
}

// remove forgets the session `id` and stops its turn in flight.
func (a *agent) remove(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if ok && s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
	delete(a.sessions, id)
	return ok
}

func (a *agent) Initialize(_ context.Context, params acp.InitializeRequest) (acp.InitializeResponse, error) {
	a.mu.Lock()
	a.client, _ = asJSON(params)["clientCapabilities"].(object)
	a.mu.Unlock()
	return payload.Decoded[acp.InitializeResponse](object{
		"protocolVersion": 1,
		"agentCapabilities": object{
			"loadSession":         true,
			"promptCapabilities":  object{"image": true, "audio": true, "embeddedContext": true},
			"mcpCapabilities":     object{"http": true, "sse": true},
			"sessionCapabilities": object{"list": object{}, "delete": object{}, "additionalDirectories": object{}, "resume": object{}, "close": object{}},
			"auth":                object{"logout": object{}},
		},
		"authMethods": []object{{"id": "none", "name": "No credentials", "description": "Always succeeds."}},
		"agentInfo":   object{"name": "acp-codegen full-surface agent (Go)", "version": "0.1.0"},
	})
}

func (a *agent) Authenticate(_ context.Context, params acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	if params.MethodId != "none" {
		return acp.AuthenticateResponse{}, invalid("unknown authentication method")
	}
	return payload.Decoded[acp.AuthenticateResponse](object{})
}

func (a *agent) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return payload.Decoded[acp.LogoutResponse](object{})
}

func (a *agent) SessionNew(_ context.Context, params acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	request := asJSON(params)
	directories, _ := request["additionalDirectories"].([]any)
	a.mu.Lock()
	a.created++
	id := fmt.Sprintf("session-%d", a.created)
	s := &session{cwd: params.Cwd, directories: directories, mode: "ask", model: "small", updated: now()}
	a.sessions[id] = s
	response := a.state(s)
	a.mu.Unlock()
	response["sessionId"] = id
	return payload.Decoded[acp.NewSessionResponse](response)
}

func (a *agent) SessionLoad(_ context.Context, params acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	request := asJSON(params)
	state, err := a.reopen(request)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	id := text(request["sessionId"])
	a.mu.Lock()
	var history []object
	if s, ok := a.sessions[id]; ok {
		history = slices.Clone(s.history)
	}
	a.mu.Unlock()
	for _, update := range history {
		if err := a.update(id, update, false); err != nil {
			return acp.LoadSessionResponse{}, err
		}
	}
	return payload.Decoded[acp.LoadSessionResponse](state)
}

func (a *agent) SessionResume(_ context.Context, params acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	state, err := a.reopen(asJSON(params))
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	return payload.Decoded[acp.ResumeSessionResponse](state)
}

func (a *agent) SessionList(_ context.Context, params acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	wanted, filtered := asJSON(params)["cwd"].(string)
	a.mu.Lock()
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
	a.mu.Unlock()
	return payload.Decoded[acp.ListSessionsResponse](object{"sessions": listed})
}

func (a *agent) SessionClose(_ context.Context, params acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	if !a.remove(string(params.SessionId)) {
		return acp.CloseSessionResponse{}, acp.SessionNotFound(string(params.SessionId))
	}
	return payload.Decoded[acp.CloseSessionResponse](object{})
}

func (a *agent) SessionDelete(_ context.Context, params acp.DeleteSessionRequest) (acp.DeleteSessionResponse, error) {
	a.remove(string(params.SessionId))
	return payload.Decoded[acp.DeleteSessionResponse](object{})
}

func (a *agent) SessionSetMode(_ context.Context, params acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	id, mode := string(params.SessionId), string(params.ModeId)
	if !slices.ContainsFunc(modes, func(known object) bool { return known["id"] == mode }) {
		return acp.SetSessionModeResponse{}, invalid("no mode " + mode)
	}
	a.mu.Lock()
	s, err := a.find(id)
	if err == nil {
		s.mode = mode
	}
	a.mu.Unlock()
	if err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if err := a.update(id, object{"sessionUpdate": "current_mode_update", "currentModeId": mode}, false); err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	return payload.Decoded[acp.SetSessionModeResponse](object{})
}

func (a *agent) SessionSetConfigOption(_ context.Context, params acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	request := asJSON(params)
	option, value := text(request["configId"]), request["value"]
	a.mu.Lock()
	defer a.mu.Unlock()
	s, err := a.find(text(request["sessionId"]))
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	model, isText := value.(string)
	brief, isBool := value.(bool)
	switch {
	case option == "model" && isText && slices.ContainsFunc(models, func(known object) bool { return known["value"] == model }):
		s.model = model
	case option == "brief" && isBool:
		s.brief = brief
	default:
		written, _ := json.Marshal(value)
		return acp.SetSessionConfigOptionResponse{}, invalid(fmt.Sprintf("no value %s for %s", written, option))
	}
	return payload.Decoded[acp.SetSessionConfigOptionResponse](object{"configOptions": a.configOptions(s)})
}

func (a *agent) SessionPrompt(ctx context.Context, params acp.PromptRequest) (acp.PromptResponse, error) {
	id := string(params.SessionId)
	cancelled := a.end.Cancellation(id)
	blocks, _ := asJSON(params)["prompt"].([]any)
	a.mu.Lock()
	s, err := a.find(id)
	if err != nil {
		a.mu.Unlock()
		return acp.PromptResponse{}, err
	}
	stop := make(chan struct{})
	s.stop = stop
	for _, block := range blocks {
		s.history = append(s.history, object{"sessionUpdate": "user_message_chunk", "content": block})
	}
	call := fmt.Sprintf("call-%d", len(s.history))
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if s.stop == stop {
			s.stop = nil
		}
		a.mu.Unlock()
	}()

	said := words(blocks)
	steps := []object{
		{"sessionUpdate": "agent_thought_chunk", "content": object{"type": "text", "text": "Reading the prompt."}},
		{"sessionUpdate": "tool_call", "toolCallId": call, "title": "Count the words", "kind": "think"},
		{
			"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
			"content": []object{{"type": "content", "content": object{"type": "text", "text": fmt.Sprintf("%d words", len(said))}}},
		},
	}
	for _, word := range said {
		steps = append(steps, object{"sessionUpdate": "agent_message_chunk", "content": object{"type": "text", "text": word + " "}})
	}
	for _, step := range steps {
		if err := a.update(id, step, true); err != nil {
			return acp.PromptResponse{}, err
		}
		select {
		case <-time.After(pause):
		case <-cancelled:
			// The connection answers `cancelled` in place of this error.
			return acp.PromptResponse{}, &acp.TurnCancelled{SessionID: id}
		case <-stop:
			return payload.Decoded[acp.PromptResponse](object{"stopReason": "cancelled"})
		case <-ctx.Done():
			return acp.PromptResponse{}, ctx.Err()
		}
	}
	return payload.Decoded[acp.PromptResponse](object{"stopReason": "end_turn"})
}

func main() {
	// Recorded to ACP_INTEROP_TRACE when a client of the interop matrix keeps no record.
	stdio.ServeAgent(func(end *acp.AgentConnection) acp.Agent {
		return &agent{end: end, client: object{}, sessions: map[string]*session{}}
	})
}
