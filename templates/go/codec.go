// The decoding runtime of acp-codegen's Go runtime, copied as it is into
// every generated Go module (`codec.go`; the source is
// `templates/go/codec.go`). The generated `types.go` builds one decoder and
// one encoder per schema type from these combinators; they apply every
// constraint and `x-deserialize-*` rule of the schema and keep unknown
// values of open enums and extensible unions (`codegen/DECODING.md`).

package acp

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// DecodeError is a value that does not decode as its type: the JSON pointer
// of the failing location and what failed there.
type DecodeError struct {
	Pointer string
	Message string
}

func (e *DecodeError) Error() string {
	pointer := e.Pointer
	if pointer == "" {
		pointer = "/"
	}
	return pointer + ": " + e.Message
}

func failure(pointer, format string, args ...any) error {
	return &DecodeError{Pointer: pointer, Message: fmt.Sprintf(format, args...)}
}

func describe(v Value) string {
	switch v.kind {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean " + strconv.FormatBool(v.boolean)
	case KindNumber:
		return "number " + v.text
	case KindString:
		return strconv.Quote(v.text)
	case KindArray:
		return "an array"
	default:
		return "an object"
	}
}

// codec decodes a value of one type at a JSON pointer and encodes it back.
type codec[T any] struct {
	decode func(v Value, pointer string) (T, error)
	encode func(x T) Value
}

func anyCodec() codec[Value] {
	return codec[Value]{
		decode: func(v Value, _ string) (Value, error) { return v, nil },
		encode: func(x Value) Value { return x },
	}
}

func nullCodec() codec[Null] {
	return codec[Null]{
		decode: func(v Value, pointer string) (Null, error) {
			if v.kind != KindNull {
				return Null{}, failure(pointer, "expected null, got %s", describe(v))
			}
			return Null{}, nil
		},
		encode: func(Null) Value { return Value{} },
	}
}

func boolCodec() codec[bool] {
	return codec[bool]{
		decode: func(v Value, pointer string) (bool, error) {
			if v.kind != KindBool {
				return false, failure(pointer, "expected a boolean, got %s", describe(v))
			}
			return v.boolean, nil
		},
		encode: BoolValue,
	}
}

var patterns sync.Map

// matches is whether `text` matches `pattern`, compiled once.
func matches(pattern, text string) (bool, error) {
	compiled, ok := patterns.Load(pattern)
	if !ok {
		parsed, err := regexp.Compile(pattern)
		if err != nil {
			return false, err
		}
		compiled, _ = patterns.LoadOrStore(pattern, parsed)
	}
	return compiled.(*regexp.Regexp).MatchString(text), nil
}

// stringCodec checks lengths in code points (a negative bound is none) and
// the pattern (none when empty).
func stringCodec(minLength, maxLength int, pattern string) codec[string] {
	return codec[string]{
		decode: func(v Value, pointer string) (string, error) {
			if v.kind != KindString {
				return "", failure(pointer, "expected a string, got %s", describe(v))
			}
			length := utf8.RuneCountInString(v.text)
			if minLength >= 0 && length < minLength {
				return "", failure(pointer, "expected at least %d characters, got %d", minLength, length)
			}
			if maxLength >= 0 && length > maxLength {
				return "", failure(pointer, "expected at most %d characters, got %d", maxLength, length)
			}
			if pattern != "" {
				ok, err := matches(pattern, v.text)
				if err != nil {
					return "", failure(pointer, "the pattern %q is not a valid regular expression", pattern)
				}
				if !ok {
					return "", failure(pointer, "does not match the pattern %q", pattern)
				}
			}
			return v.text, nil
		},
		encode: StringValue,
	}
}

// bounded checks `literal` against every minimum and maximum (JSON numbers).
func bounded(literal, pointer string, minimums, maximums []string) error {
	value, ok := new(big.Rat).SetString(literal)
	if !ok {
		return failure(pointer, "expected a number, got %s", literal)
	}
	for _, minimum := range minimums {
		if bound, ok := new(big.Rat).SetString(minimum); ok && value.Cmp(bound) < 0 {
			return failure(pointer, "%s is below the minimum %s", literal, minimum)
		}
	}
	for _, maximum := range maximums {
		if bound, ok := new(big.Rat).SetString(maximum); ok && value.Cmp(bound) > 0 {
			return failure(pointer, "%s is above the maximum %s", literal, maximum)
		}
	}
	return nil
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// integerCodec reads integers of T's range within every minimum and maximum.
func integerCodec[T integer](minimums, maximums []string) codec[T] {
	return codec[T]{
		decode: func(v Value, pointer string) (T, error) {
			if v.kind != KindNumber || strings.ContainsAny(v.text, ".eE") {
				return 0, failure(pointer, "expected an integer, got %s", describe(v))
			}
			var x T
			var written string
			var err error
			if v.text[0] == '-' {
				var parsed int64
				parsed, err = strconv.ParseInt(v.text, 10, 64)
				x, written = T(parsed), strconv.FormatInt(parsed, 10)
			} else {
				var parsed uint64
				parsed, err = strconv.ParseUint(v.text, 10, 64)
				x, written = T(parsed), strconv.FormatUint(parsed, 10)
			}
			if err != nil || fmt.Sprintf("%d", x) != written {
				return 0, failure(pointer, "%s is out of range", v.text)
			}
			return x, bounded(v.text, pointer, minimums, maximums)
		},
		encode: func(x T) Value { return Value{kind: KindNumber, text: fmt.Sprintf("%d", x)} },
	}
}

// numberCodec reads any number within every minimum and maximum, kept as written.
func numberCodec(minimums, maximums []string) codec[Number] {
	return codec[Number]{
		decode: func(v Value, pointer string) (Number, error) {
			if v.kind != KindNumber {
				return "", failure(pointer, "expected a number, got %s", describe(v))
			}
			return Number(v.text), bounded(v.text, pointer, minimums, maximums)
		},
		encode: NumberValue,
	}
}

// arrayCodec reads arrays of `item` (a negative bound is none); with
// `skipInvalid`, items that fail are dropped.
func arrayCodec[T any](item codec[T], minItems, maxItems int, skipInvalid bool) codec[[]T] {
	return codec[[]T]{
		decode: func(v Value, pointer string) ([]T, error) {
			if v.kind != KindArray {
				return nil, failure(pointer, "expected an array, got %s", describe(v))
			}
			items := make([]T, 0, len(v.items))
			for index, wire := range v.items {
				decoded, err := item.decode(wire, pointer+"/"+strconv.Itoa(index))
				if err != nil {
					if skipInvalid {
						continue
					}
					return nil, err
				}
				items = append(items, decoded)
			}
			if minItems >= 0 && len(items) < minItems {
				return nil, failure(pointer, "expected at least %d items, got %d", minItems, len(items))
			}
			if maxItems >= 0 && len(items) > maxItems {
				return nil, failure(pointer, "expected at most %d items, got %d", maxItems, len(items))
			}
			return items, nil
		},
		encode: func(x []T) Value {
			items := make([]Value, 0, len(x))
			for _, decoded := range x {
				items = append(items, item.encode(decoded))
			}
			return ArrayValue(items)
		},
	}
}

// mapCodec reads objects whose every member is a `values`, in their order.
func mapCodec[T any](values codec[T]) codec[[]Entry[T]] {
	return codec[[]Entry[T]]{
		decode: func(v Value, pointer string) ([]Entry[T], error) {
			if v.kind != KindObject {
				return nil, failure(pointer, "expected an object, got %s", describe(v))
			}
			entries := make([]Entry[T], 0, len(v.members))
			for _, member := range v.members {
				decoded, err := values.decode(member.Value, pointer+"/"+escapeToken(member.Name))
				if err != nil {
					return nil, err
				}
				entries = append(entries, Entry[T]{Name: member.Name, Value: decoded})
			}
			return entries, nil
		},
		encode: func(x []Entry[T]) Value {
			var e encoder
			putEntries(&e, values, x)
			return e.value()
		},
	}
}

// nullableCodec reads `null` or an `inner`.
func nullableCodec[T any](inner codec[T]) codec[Nullable[T]] {
	return codec[Nullable[T]]{
		decode: func(v Value, pointer string) (Nullable[T], error) {
			if v.kind == KindNull {
				return Nullable[T]{}, nil
			}
			decoded, err := inner.decode(v, pointer)
			return Nullable[T]{Valid: err == nil, Value: decoded}, err
		},
		encode: func(x Nullable[T]) Value {
			if !x.Valid {
				return Value{}
			}
			return inner.encode(x.Value)
		},
	}
}

// stringEnum reads the strings `known`, and with `open` any other string.
func stringEnum[T ~string](known []T, open bool) codec[T] {
	return codec[T]{
		decode: func(v Value, pointer string) (T, error) {
			if v.kind != KindString {
				return "", failure(pointer, "expected a string, got %s", describe(v))
			}
			if !open && !slices.Contains(known, T(v.text)) {
				return "", failure(pointer, "unknown value %q, expected one of %q", v.text, known)
			}
			return T(v.text), nil
		},
		encode: func(x T) Value { return StringValue(string(x)) },
	}
}

// integerEnum reads the integers `known` of `inner`, and with `open` any other.
func integerEnum[T integer](known []T, open bool, inner codec[T]) codec[T] {
	return codec[T]{
		decode: func(v Value, pointer string) (T, error) {
			decoded, err := inner.decode(v, pointer)
			if err == nil && !open && !slices.Contains(known, decoded) {
				return 0, failure(pointer, "unknown value %s, expected one of %v", v.text, known)
			}
			return decoded, err
		},
		encode: inner.encode,
	}
}

// pick is the untagged union's choice: among the `variants` that decode
// `v`, the first whose encoding equals it, else the first that decodes.
func pick[U any](v Value, pointer string, encode func(U) Value, variants ...func(Value, string) (U, error)) (U, error) {
	var first U
	found := false
	for _, variant := range variants {
		decoded, err := variant(v, pointer)
		if err != nil {
			continue
		}
		if equal(encode(decoded), v) {
			return decoded, nil
		}
		if !found {
			first, found = decoded, true
		}
	}
	if found {
		return first, nil
	}
	return first, failure(pointer, "matches no variant of the union")
}
