// The method tables and the dispatchers of the generated Go bindings, on
// any schema: every method of `Methods` names types the by-name codec
// knows, each side answers exactly the methods the table gives it
// (-32601 for the others and for an optional handler an implementation
// leaves out, -32602 with the JSON pointer for params that do not decode),
// and a handler's result and errors are answered as the TypeScript and
// Python dispatchers answer them. Copied next to the bindings by
// `cargo xtask test`.

package acp

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// stubAgent and stubClient handle nothing: a call that reaches a handler
// panics on the nil interface they embed.
type stubAgent struct{ Agent }
type stubClient struct{ Client }

// greetingAgent answers `initialize` with `response`, or fails as told.
type greetingAgent struct {
	Agent
	response []byte
	fail     error
}

func (a greetingAgent) Initialize(_ context.Context, params InitializeRequest) (InitializeResponse, error) {
	if a.fail != nil {
		return InitializeResponse{}, a.fail
	}
	var response InitializeResponse
	err := response.UnmarshalJSON(a.response)
	return response, err
}

// initializePair is the schema's `initialize` params and result that
// advertise everything (the `all` pair of the negotiation cases).
func initializePair(t *testing.T) (request, response []byte) {
	t.Helper()
	pair := loadNegotiationCases(t).Pairs["all"]
	return pair.Request, pair.Response
}

// extensionAgent answers every extension request with its params.
type extensionAgent struct{ Agent }

func (extensionAgent) ExtensionRequest(_ context.Context, method string, params Optional[Value]) (Value, error) {
	return ObjectValue([]Member{{Name: "method", Value: StringValue(method)}, {Name: "params", Value: params.Value}}), nil
}

// requestError is the *RequestError `err` must be.
func requestError(t *testing.T, err error, code int64) *RequestError {
	t.Helper()
	var answer *RequestError
	if !errors.As(err, &answer) {
		t.Fatalf("expected a *RequestError %d, got %v", code, err)
	}
	if answer.Code != code {
		t.Fatalf("expected the code %d, got %d (%s)", code, answer.Code, answer.Message)
	}
	return answer
}

// dataMember is a member of a RequestError's data.
func dataMember(t *testing.T, answer *RequestError, name string) string {
	t.Helper()
	data, ok := answer.Data.Get()
	if !ok {
		t.Fatalf("%s: no data", answer.Message)
	}
	member, ok := data.Member(name)
	if !ok {
		t.Fatalf("%s: no data member %s", answer.Message, name)
	}
	return member.Text()
}

func handles(side, endpoint string) bool {
	return side == endpoint || side == "protocol" || side == "both"
}

// mayLeaveOut is whether a side may leave the method out, as the IR decides
// (`Method::optional`).
func mayLeaveOut(method MethodInfo, side string) bool {
	actedOn := method.ActedOn && method.Notification.Set && method.Notification.Value.Side == side
	return actedOn || method.Gate.Set || method.NotNegotiated != "" || method.Unstable || side == "protocol"
}

// outcome dispatches and tells what happened: "reached" when a handler of
// the stub was called (it panics), else the error's code.
func outcome(t *testing.T, dispatch func() error) (reached bool, err error) {
	t.Helper()
	defer func() {
		if recover() != nil {
			reached = true
		}
	}()
	return false, dispatch()
}

func TestEveryMethodNamesKnownTypes(t *testing.T) {
	if len(Methods) == 0 {
		t.Fatal("the table has no methods")
	}
	for index, method := range Methods {
		if index > 0 && Methods[index-1].Name >= method.Name {
			t.Fatalf("%q after %q: the table is not in wire-name order", method.Name, Methods[index-1].Name)
		}
		if found, ok := LookupMethod(method.Name); !ok || found.Name != method.Name {
			t.Fatalf("LookupMethod(%q) does not find it", method.Name)
		}
		var names []string
		if request, ok := method.Request.Get(); ok {
			names = append(names, request.Params, request.Result)
		}
		if notification, ok := method.Notification.Get(); ok {
			names = append(names, notification.Params)
		}
		if len(names) == 0 {
			t.Fatalf("%s is neither a request nor a notification", method.Name)
		}
		for _, name := range names {
			if _, err := Roundtrip(name, []byte("[]")); err != nil && strings.Contains(err.Error(), "unknown type") {
				t.Fatalf("%s: %v", method.Name, err)
			}
		}
	}
	if _, ok := LookupMethod("no/such_method"); ok {
		t.Fatal("LookupMethod finds a method the schema does not have")
	}
}

func TestEachSideAnswersTheMethodsTheTableGivesIt(t *testing.T) {
	ctx := context.Background()
	sides := map[string][2]func(string) error{
		"agent": {
			func(method string) error {
				_, err := DispatchAgentRequest(ctx, stubAgent{}, method, []byte("[]"))
				return err
			},
			func(method string) error { return DispatchAgentNotification(ctx, stubAgent{}, method, []byte("[]")) },
		},
		"client": {
			func(method string) error {
				_, err := DispatchClientRequest(ctx, stubClient{}, method, []byte("[]"))
				return err
			},
			func(method string) error { return DispatchClientNotification(ctx, stubClient{}, method, []byte("[]")) },
		},
	}
	for endpoint, dispatch := range sides {
		for _, method := range Methods {
			kinds := []struct {
				set  bool
				side string
				call func(string) error
			}{
				{method.Request.Set, method.Request.Value.Side, dispatch[0]},
				{method.Notification.Set, method.Notification.Value.Side, dispatch[1]},
			}
			for kind, use := range kinds {
				reached, err := outcome(t, func() error { return use.call(method.Name) })
				if reached {
					t.Fatalf("%s %s: the stub's handler was called with params that do not decode", endpoint, method.Name)
				}
				switch {
				// A request without a handler is not decoded; a notification
				// the side handles is, even without one, so that a malformed
				// one is reported as such.
				case !use.set || !handles(use.side, endpoint) || (kind == 0 && mayLeaveOut(method, use.side)):
					answer := requestError(t, err, -32601)
					if got := dataMember(t, answer, "method"); got != method.Name {
						t.Fatalf("%s %s (%d): data.method is %q", endpoint, method.Name, kind, got)
					}
					if answer.Message != "method not found: "+quote(method.Name) {
						t.Fatalf("%s: the message is %q", method.Name, answer.Message)
					}
				default:
					answer := requestError(t, err, -32602)
					if got := dataMember(t, answer, "pointer"); got != "" {
						t.Fatalf("%s %s: the pointer is %q", endpoint, method.Name, got)
					}
				}
			}
		}
	}
}

func TestUnknownAndExtensionMethods(t *testing.T) {
	ctx := context.Background()
	for _, method := range []string{"no/such_method", "constructor", "_zed/cursor"} {
		_, err := DispatchAgentRequest(ctx, stubAgent{}, method, []byte("{}"))
		requestError(t, err, -32601)
		requestError(t, DispatchClientNotification(ctx, stubClient{}, method, nil), -32601)
	}
	result, err := DispatchAgentRequest(ctx, extensionAgent{}, "_zed/cursor", []byte(`{"line":3}`))
	if err != nil || string(result) != `{"method":"_zed/cursor","params":{"line":3}}` {
		t.Fatalf("an extension request answered %s, %v", result, err)
	}
	_, err = DispatchAgentRequest(ctx, extensionAgent{}, "no/such_method", []byte(`{}`))
	requestError(t, err, -32601)
	_, err = DispatchAgentRequest(ctx, extensionAgent{}, "_zed/cursor", []byte(`{"line":`))
	requestError(t, err, -32602)
}

func TestAHandlerIsCalledAndAnswered(t *testing.T) {
	ctx := context.Background()
	request, response := initializePair(t)
	result, err := DispatchAgentRequest(ctx, greetingAgent{response: response}, MethodInitialize, request)
	if err != nil {
		t.Fatalf("initialize failed: %v", err)
	}
	if !sameJSON(t, result, response) {
		t.Fatalf("initialize answered %s, not %s", result, response)
	}
	own := &RequestError{Code: -32000, Message: "authentication required"}
	_, err = DispatchAgentRequest(ctx, greetingAgent{fail: own}, MethodInitialize, request)
	if answer := requestError(t, err, -32000); answer != own {
		t.Fatalf("the handler's own error was replaced by %v", answer)
	}
	_, err = DispatchAgentRequest(ctx, greetingAgent{fail: errors.New("boom")}, MethodInitialize, request)
	if answer := requestError(t, err, -32603); answer.Message != "boom" {
		t.Fatalf("an internal error says %q", answer.Message)
	}
}

func TestParamsThatDoNotDecodeNameTheirPointer(t *testing.T) {
	ctx := context.Background()
	request, response := initializePair(t)
	members := parsedParams(t, request).Members()
	for index := range members {
		if members[index].Name == "protocolVersion" {
			members[index].Value = StringValue("one")
		}
	}
	wrong, _ := ObjectValue(members).MarshalJSON()
	agent := greetingAgent{response: response}
	_, err := DispatchAgentRequest(ctx, agent, MethodInitialize, wrong)
	answer := requestError(t, err, -32602)
	if got := dataMember(t, answer, "pointer"); got != "/protocolVersion" {
		t.Fatalf("the pointer is %q", got)
	}
	if got := dataMember(t, answer, "method"); got != MethodInitialize {
		t.Fatalf("data.method is %q", got)
	}
	prefix := `invalid params for "initialize": cannot decode InitializeRequest: at "/protocolVersion": `
	if !strings.HasPrefix(answer.Message, prefix) {
		t.Fatalf("the message is %q", answer.Message)
	}
	text, err := answer.MarshalJSON()
	if err != nil || !strings.HasPrefix(string(text), `{"code":-32602,"message":`) {
		t.Fatalf("the error object is %s (%v)", text, err)
	}
	_, err = DispatchAgentRequest(ctx, agent, MethodInitialize, nil)
	if got := dataMember(t, requestError(t, err, -32602), "pointer"); got != "" {
		t.Fatalf("absent params fail at %q", got)
	}
}

func parsedParams(t *testing.T, text []byte) Value {
	t.Helper()
	value, err := Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return value
}
