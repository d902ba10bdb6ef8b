// Package payload is what the full-surface agents share to write payloads
// as JSON and read them back: the generated types are decoded from JSON
// values, as the other languages' full agents do. It names only what both
// the v1 and the v2 bindings have.
package payload

import (
	"bytes"
	"encoding/json"
	"time"

	acp "github.com/acp-codegen/acp-bindings-go"
)

// Object is a JSON object written or read as Go values.
type Object = map[string]any

// Now is the time as the schema's timestamps write it.
func Now() string { return time.Now().UTC().Format(time.RFC3339) }

// Decoded is `value` written as JSON and decoded into a payload of the
// generated types.
func Decoded[T any](value any) (T, error) {
	var payload T
	text, err := json.Marshal(value)
	if err == nil {
		err = json.Unmarshal(text, &payload)
	}
	if err != nil {
		return payload, &acp.RequestError{Code: -32603, Message: err.Error()}
	}
	return payload, nil
}

// AsJSON is a payload of the generated types read back as JSON, its
// numbers as written.
func AsJSON(payload any) Object {
	text, err := json.Marshal(payload)
	if err != nil {
		return Object{}
	}
	reader := json.NewDecoder(bytes.NewReader(text))
	reader.UseNumber()
	var value Object
	if reader.Decode(&value) != nil || value == nil {
		return Object{}
	}
	return value
}

// Member is the member `name` of the JSON object `value`, nil when absent.
func Member(value any, name string) any {
	if value, ok := value.(Object); ok {
		return value[name]
	}
	return nil
}

// Text is `value` when it is a string, else empty.
func Text(value any) string {
	text, _ := value.(string)
	return text
}

// Invalid is the "invalid params" error with `message`.
func Invalid(message string) error {
	return &acp.RequestError{Code: -32602, Message: message}
}
