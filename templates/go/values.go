// The value types of acp-codegen's Go runtime, copied as they are into every
// generated Go module (`values.go`; the source is `templates/go/values.go`):
// the tri-state of an optional member (absent is not `null`), a nullable
// value, exactly `null`, a number kept as it was written, and one member of
// an object whose members the schema does not name.

package acp

import (
	"math/big"
	"strconv"
)

// Optional is a member that may be absent: Set is false when it is.
type Optional[T any] struct {
	Set   bool
	Value T
}

// Some is a present optional member.
func Some[T any](value T) Optional[T] { return Optional[T]{Set: true, Value: value} }

// Get is the value and whether it is present.
func (o Optional[T]) Get() (T, bool) { return o.Value, o.Set }

// Nullable is a value that may be `null`: Valid is false when it is.
type Nullable[T any] struct {
	Valid bool
	Value T
}

// NonNull is a nullable value that is not `null`.
func NonNull[T any](value T) Nullable[T] { return Nullable[T]{Valid: true, Value: value} }

// Get is the value and whether it is not `null`.
func (n Nullable[T]) Get() (T, bool) { return n.Value, n.Valid }

// Null is the type whose only value is `null`.
type Null struct{}

// Number is a JSON number kept as its literal text, so that it re-encodes as
// it came (`1` stays `1`, `1.0` stays `1.0`).
type Number string

// Float64 is the number as the nearest double.
func (n Number) Float64() (float64, error) { return strconv.ParseFloat(string(n), 64) }

// Rat is the number exactly.
func (n Number) Rat() (*big.Rat, bool) { return new(big.Rat).SetString(string(n)) }

// Entry is one member of an object the schema types by its values only (a
// map, or the members an object does not name), kept in decode order.
type Entry[T any] struct {
	Name  string
	Value T
}
