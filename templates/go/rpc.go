// The JSON-RPC plumbing of acp-codegen's Go runtime, copied as it is into
// every generated Go module (`rpc.go`; the source is `templates/go/rpc.go`).
// The generated `methods.go` describes every method (`Methods`) and gives
// each side a dispatcher built from the functions below: decode the params
// by method name (an unknown method and invalid params kept apart, as
// -32601 and -32602), call the handler, encode its result. The codes and
// messages are those of the TypeScript and Python bindings.

package acp

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
)

// The JSON-RPC error codes the dispatchers answer with.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// The prefix ACP reserves for extension method names (`_zed/cursor`).
const extensionPrefix = "_"

// RequestError is a JSON-RPC error object. A handler returns one to answer
// with an error of its own; any other error it returns answers -32603
// with the error's text.
type RequestError struct {
	Code    int64
	Message string
	// Data is absent when the error carries none.
	Data Optional[Value]
}

func (e *RequestError) Error() string { return e.Message }

// JSON is the error object as written on the wire.
func (e *RequestError) JSON() Value {
	members := []Member{
		{Name: "code", Value: NumberValue(Number(strconv.FormatInt(e.Code, 10)))},
		{Name: "message", Value: StringValue(e.Message)},
	}
	if data, ok := e.Data.Get(); ok {
		members = append(members, Member{Name: "data", Value: data})
	}
	return ObjectValue(members)
}

// MarshalJSON writes the error object.
func (e *RequestError) MarshalJSON() ([]byte, error) { return e.JSON().MarshalJSON() }

// MethodInfo is one JSON-RPC method of the schema, as the IR decides it:
// its wire name, its request and its notification (a name may be both,
// each handled by its own side), the capability that gates it, and why a
// side may leave it out.
type MethodInfo struct {
	Name         string
	Request      Optional[RequestInfo]
	Notification Optional[NotificationInfo]
	// Gate is set when a side must advertise a capability before the
	// method may be used.
	Gate Optional[GateInfo]
	// NotNegotiated says why the method's use is decided after
	// initialize (empty when it is not).
	NotNegotiated string
	// Unstable is true when the schema marks the method unstable.
	Unstable bool
	// ActedOn is true when the connection of the side that handles the
	// notification acts on it itself (`session/cancel`), so that its
	// handler is optional.
	ActedOn bool
}

// RequestInfo is a request: the side that handles it (`agent`, `client`,
// `proxy`, `protocol` for every side, `both` for either side) and the
// canonical names of its params and result types, for `Roundtrip`.
type RequestInfo struct {
	Side   string
	Params string
	Result string
}

// NotificationInfo is a notification: the side that handles it and the
// canonical name of its params type.
type NotificationInfo struct {
	Side   string
	Params string
}

// GateInfo is a capability gate: the side whose initialize message
// carries it, the type its path starts at, the path inside it, and the
// full JSON pointer inside that side's initialize message.
type GateInfo struct {
	AdvertisedBy      string
	Root              string
	Path              string
	InitializePointer string
	// Offered is true when a non-empty list offers the method rather than
	// a capability (`authMethods`).
	Offered bool
}

// LookupMethod is the method called `name`, if the schema has it.
func LookupMethod(name string) (MethodInfo, bool) {
	for _, method := range Methods {
		if method.Name == name {
			return method, true
		}
	}
	return MethodInfo{}, false
}

// ExtensionRequestHandler is what an implementation of a side satisfies to
// answer requests of `_`-prefixed extension methods; without it, they are
// answered with method-not-found. `params` is unset when the request has
// none.
type ExtensionRequestHandler interface {
	ExtensionRequest(ctx context.Context, method string, params Optional[Value]) (Value, error)
}

// ExtensionNotificationHandler is what an implementation of a side
// satisfies to handle notifications of `_`-prefixed extension methods;
// without it, they are dropped.
type ExtensionNotificationHandler interface {
	ExtensionNotification(ctx context.Context, method string, params Optional[Value]) error
}

func isExtension(method string) bool { return strings.HasPrefix(method, extensionPrefix) }

func quote(text string) string {
	var out bytes.Buffer
	writeString(&out, text)
	return out.String()
}

func methodNotFound(method string) error {
	return &RequestError{
		Code:    codeMethodNotFound,
		Message: "method not found: " + quote(method),
		Data:    Some(ObjectValue([]Member{{Name: "method", Value: StringValue(method)}})),
	}
}

// invalidParams is the -32602 error of params of `method` that do not
// decode as `typeName`: the JSON pointer of the failure in `data`.
func invalidParams(method, typeName string, err error) error {
	pointer, message := "", err.Error()
	var decodeError *DecodeError
	if errors.As(err, &decodeError) {
		pointer, message = decodeError.Pointer, decodeError.Message
	}
	issue := ObjectValue([]Member{
		{Name: "path", Value: StringValue(pointer)},
		{Name: "message", Value: StringValue(message)},
	})
	return &RequestError{
		Code:    codeInvalidParams,
		Message: "invalid params for " + quote(method) + ": cannot decode " + typeName + ": at " + quote(pointer) + ": " + message,
		Data: Some(ObjectValue([]Member{
			{Name: "method", Value: StringValue(method)},
			{Name: "pointer", Value: StringValue(pointer)},
			{Name: "issues", Value: ArrayValue([]Value{issue})},
		})),
	}
}

// handlerError is what a handler's error answers: itself when it is a
// RequestError, else -32603 with its text.
func handlerError(err error) error {
	var requestError *RequestError
	if errors.As(err, &requestError) {
		return requestError
	}
	return &RequestError{Code: codeInternalError, Message: err.Error()}
}

// payload is a message's params as the dispatchers take them: the value a
// connection parsed with its message (which is then not printed and parsed
// again), or JSON text (nil when the message has none).
type payload struct {
	text   []byte
	value  Optional[Value]
	parsed bool
}

// textPayload is params given as JSON text, nil when the message has none.
func textPayload(text []byte) payload { return payload{text: text} }

// parsedPayload is params a connection parsed, unset when the message has none.
func parsedPayload(value Optional[Value]) payload { return payload{value: value, parsed: true} }

// read is the params' value, unset when the message has none; text that
// does not parse fails as params of `method` that are not a `typeName`.
func (p payload) read(method, typeName string) (Optional[Value], error) {
	if p.parsed || p.text == nil {
		return p.value, nil
	}
	value, err := Parse(p.text)
	if err != nil {
		return Optional[Value]{}, invalidParams(method, typeName, err)
	}
	return Some(value), nil
}

// decodeParams decodes the params of `method` as `typeName` with `decode`.
func decodeParams[P any](method, typeName string, params payload, decode func(Value, string) (P, error)) (P, error) {
	var zero P
	value, err := params.read(method, typeName)
	if err != nil {
		return zero, err
	}
	if !value.Set {
		return zero, invalidParams(method, typeName, &DecodeError{Message: "the params are absent"})
	}
	decoded, err := decode(value.Value, "")
	if err != nil {
		return zero, invalidParams(method, typeName, err)
	}
	return decoded, nil
}

// answerRequest decodes a request's params, calls `handle` and encodes its
// result.
func answerRequest[P, R any](ctx context.Context, method, typeName string, params payload, decode func(Value, string) (P, error), encode func(R) Value, handle func(context.Context, P) (R, error)) (Value, error) {
	decoded, err := decodeParams(method, typeName, params, decode)
	if err != nil {
		return Value{}, err
	}
	result, err := handle(ctx, decoded)
	if err != nil {
		return Value{}, handlerError(err)
	}
	return encode(result), nil
}

// printedResult is a dispatcher's result as JSON text; one that cannot be
// printed answers -32603.
func printedResult(result Value, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	text, err := result.MarshalJSON()
	if err != nil {
		return nil, handlerError(err)
	}
	return text, nil
}

// deliverNotification decodes a notification's params and calls `handle`.
func deliverNotification[P any](ctx context.Context, method, typeName string, params payload, decode func(Value, string) (P, error), handle func(context.Context, P) error) error {
	decoded, err := decodeParams(method, typeName, params, decode)
	if err != nil {
		return err
	}
	if err := handle(ctx, decoded); err != nil {
		return handlerError(err)
	}
	return nil
}

// unhandledNotification: a notification the implementation has no handler
// for is still decoded, so that a malformed one is reported as invalid
// params rather than as a missing handler, which an end that acts on the
// notification itself keeps quiet.
func unhandledNotification[P any](method, typeName string, params payload, decode func(Value, string) (P, error)) error {
	if _, err := decodeParams(method, typeName, params, decode); err != nil {
		return err
	}
	return methodNotFound(method)
}

// answerExtension answers a request of an extension method with
// `implementation`, when it handles them.
func answerExtension(ctx context.Context, implementation any, method string, params payload) (Value, error) {
	handler, ok := implementation.(ExtensionRequestHandler)
	if !ok || !isExtension(method) {
		return Value{}, methodNotFound(method)
	}
	parsed, err := params.read(method, "JSON")
	if err != nil {
		return Value{}, err
	}
	result, err := handler.ExtensionRequest(ctx, method, parsed)
	if err != nil {
		return Value{}, handlerError(err)
	}
	return result, nil
}

// deliverExtension hands a notification of an extension method to
// `implementation`, when it handles them.
func deliverExtension(ctx context.Context, implementation any, method string, params payload) error {
	handler, ok := implementation.(ExtensionNotificationHandler)
	if !ok || !isExtension(method) {
		return methodNotFound(method)
	}
	parsed, err := params.read(method, "JSON")
	if err != nil {
		return err
	}
	if err := handler.ExtensionNotification(ctx, method, parsed); err != nil {
		return handlerError(err)
	}
	return nil
}
