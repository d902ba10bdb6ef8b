// The objects of acp-codegen's Go runtime, copied as they are into every
// generated Go module (`object.go`; the source is `templates/go/object.go`):
// reading an object's members by wire name with their decode rules, the
// members it does not name, tagged unions, and writing objects back. The
// helpers only some schemas' types need are in `shapes.go`.

package acp

import (
	"fmt"
	"slices"
)

// object is an object being decoded: its members, and the view the types
// flattened into it read (the members with what decode rules made of them).
type object struct {
	members []Member
	view    []Member
	pointer string
}

// objectOf is small enough to inline, so that an object whose reader
// keeps no reference to it stays on the stack.
func objectOf(v Value, pointer string) (*object, error) {
	if v.kind != KindObject {
		return nil, notAnObject(v, pointer)
	}
	return &object{members: v.members, view: v.members, pointer: pointer}, nil
}

func notAnObject(v Value, pointer string) error {
	return failure(pointer, "expected an object, got %s", describe(v))
}

func (o *object) at(name string) string { return o.pointer + "/" + escapeToken(name) }

func (o *object) member(name string) (Value, bool) { return ObjectValue(o.members).Member(name) }

// whole is the object the flattened types read.
func (o *object) whole() Value { return ObjectValue(o.view) }

// replace sets (or, when `dropped`, removes) a member of the view.
func (o *object) replace(name string, value Value, dropped bool) {
	view := make([]Member, 0, len(o.view))
	for _, member := range o.view {
		if member.Name != name {
			view = append(view, member)
		}
	}
	if !dropped {
		view = append(view, Member{Name: name, Value: value})
	}
	o.view = view
}

type fallbackKind uint8

const (
	// rejectFallback: the rule cannot apply; the member fails the object.
	rejectFallback fallbackKind = iota
	// absentFallback: the member is treated as absent.
	absentFallback
	// valueFallback: the member takes the value `rules.value`.
	valueFallback
)

// rules are a member's `nullable` and `x-deserialize-*` rules.
type rules struct {
	nullable bool
	onError  bool
	onNull   bool
	fallback fallbackKind
	// value is the JSON text of a valueFallback.
	value string
}

// member decodes the member `name` with `c`: whether it is there (a rule
// may drop it), and its value.
func member[T any](o *object, name string, required bool, c codec[T], r rules) (T, bool, error) {
	var zero T
	wire, present := o.member(name)
	if !present {
		if required {
			return zero, false, failure(o.at(name), "missing required member %q", name)
		}
		return zero, false, nil
	}
	pointer := o.at(name)
	if wire.kind == KindNull && !r.nullable && r.onNull {
		return fallBack(o, name, c, r, failure(pointer, "null is not a valid %q", name))
	}
	decoded, err := c.decode(wire, pointer)
	if err != nil && r.onError {
		return fallBack(o, name, c, r, err)
	}
	return decoded, err == nil, err
}

// fallBack is what a member whose wire value a rule discarded becomes.
func fallBack[T any](o *object, name string, c codec[T], r rules, rejected error) (T, bool, error) {
	var zero T
	if r.fallback == rejectFallback {
		return zero, false, rejected
	}
	switch r.fallback {
	case absentFallback:
		o.replace(name, Value{}, true)
		return zero, false, nil
	case valueFallback:
		value, err := Parse([]byte(r.value))
		if err != nil {
			return zero, false, err
		}
		decoded, err := c.decode(value, o.at(name))
		if err != nil {
			return zero, false, err
		}
		o.replace(name, value, false)
		return decoded, true, nil
	}
	return zero, false, rejected
}

// required decodes a required member into `into`.
func required[T any](o *object, name string, c codec[T], r rules, into *T) error {
	decoded, _, err := member(o, name, true, c, r)
	*into = decoded
	return err
}

// optional decodes an optional member into `into`, unset when absent.
func optional[T any](o *object, name string, c codec[T], r rules, into *Optional[T]) error {
	decoded, present, err := member(o, name, false, c, r)
	*into = Optional[T]{Set: present, Value: decoded}
	return err
}

// flattened decodes a type whose members sit in the object.
func flattened[T any](o *object, c codec[T], into *T) error {
	decoded, err := c.decode(o.whole(), o.pointer)
	*into = decoded
	return err
}

// rest keeps, in their order, the members not `known`, each decoded with `c`.
func rest[T any](o *object, known []string, c codec[T]) ([]Entry[T], error) {
	var entries []Entry[T]
	for _, member := range o.members {
		if slices.Contains(known, member.Name) {
			continue
		}
		decoded, err := c.decode(member.Value, o.at(member.Name))
		if err != nil {
			return nil, err
		}
		entries = append(entries, Entry[T]{Name: member.Name, Value: decoded})
	}
	return entries, nil
}

// encoder writes an object; a member written twice keeps its first place
// and its last value.
type encoder struct {
	members []Member
}

func (e *encoder) value() Value {
	if e.members == nil {
		return ObjectValue([]Member{})
	}
	return ObjectValue(e.members)
}

func (e *encoder) put(name string, value Value) {
	if e.members == nil {
		// Most objects of the protocol have a few members: one allocation
		// rather than one per doubling.
		e.members = make([]Member, 0, 4)
	}
	e.members = setMember(e.members, name, value)
}

// merge writes the members of a flattened type's encoding.
func (e *encoder) merge(value Value) {
	for _, member := range value.members {
		e.put(member.Name, member.Value)
	}
}

func putRequired[T any](e *encoder, name string, c codec[T], x T) { e.put(name, c.encode(x)) }

func putOptional[T any](e *encoder, name string, c codec[T], x Optional[T]) {
	if x.Set {
		e.put(name, c.encode(x.Value))
	}
}

func putEntries[T any](e *encoder, c codec[T], entries []Entry[T]) {
	for _, entry := range entries {
		e.put(entry.Name, c.encode(entry.Value))
	}
}

// variant decodes one variant of a tagged union from the object.
type variant[U any] func(o *object) (U, error)

// tagged is a union told apart by the string at `property`.
type tagged[U any] struct {
	property string
	tags     []string
	variants []variant[U]
	// untagged is the variant without a tag, if any: used when the tag is
	// absent or `null`, and with `defaultOpen` for what no tagged variant takes.
	untagged    variant[U]
	defaultOpen bool
	// other keeps an unknown tag's whole object, when the union is open.
	other func(Value, string) (U, error)
}

func (t tagged[U]) decode(v Value, pointer string) (U, error) {
	var zero U
	o, err := objectOf(v, pointer)
	if err != nil {
		return zero, err
	}
	tag, present := o.member(t.property)
	fallback := t.untagged
	if !t.defaultOpen {
		fallback = nil
	}
	if !present || tag.kind == KindNull {
		if t.untagged != nil {
			return t.untagged(o)
		}
		return zero, failure(o.at(t.property), "missing tag %q", t.property)
	}
	if tag.kind != KindString {
		if fallback != nil {
			return fallback(o)
		}
		return zero, failure(o.at(t.property), "expected a string tag, got %s", describe(tag))
	}
	index := slices.Index(t.tags, tag.text)
	if index < 0 {
		if t.other != nil {
			return t.other(v, pointer)
		}
		if fallback != nil {
			return fallback(o)
		}
		return zero, failure(o.at(t.property), "unknown tag %q, expected one of %q", tag.text, t.tags)
	}
	decoded, err := t.variants[index](o)
	if err != nil && fallback != nil {
		if taken, fallbackErr := fallback(o); fallbackErr == nil {
			return taken, nil
		}
	}
	return decoded, err
}

// unmarshal reads JSON text with `decode` into `into`, left as it was on error.
func unmarshal[T any](data []byte, decode func(Value, string) (T, error), into *T) error {
	value, err := Parse(data)
	if err != nil {
		return err
	}
	decoded, err := decode(value, "")
	if err != nil {
		return err
	}
	*into = decoded
	return nil
}

// unknownType is the error for a type name that has no codec.
func unknownType(name string) error {
	return &DecodeError{Message: fmt.Sprintf("unknown type %q", name)}
}

// roundtripWith decodes `data` with `c` and encodes it back.
func roundtripWith[T any](c codec[T], data []byte) ([]byte, error) {
	value, err := Parse(data)
	if err != nil {
		return nil, err
	}
	decoded, err := c.decode(value, "")
	if err != nil {
		return nil, err
	}
	return c.encode(decoded).MarshalJSON()
}
