// The helpers of acp-codegen's Go runtime that only some schemas' types
// use, copied as they are into every generated Go module (`shapes.go`; the
// source is `templates/go/shapes.go`): objects that refuse members they do
// not name, untagged unions with object variants, tagged variants that
// hold a value of a named type, types that contain themselves, and the
// schema defaults of optional members.

//lint:file-ignore U1000 the generated types of some schemas leave some of these unused

package acp

import "slices"

// deny refuses the members not `known`.
func deny(o *object, known []string) error {
	for _, member := range o.members {
		if !slices.Contains(known, member.Name) {
			return failure(o.at(member.Name), "unknown member %q", member.Name)
		}
	}
	return nil
}

// fromObject decodes a variant of an untagged union whose payload is an object.
func fromObject[U any](read variant[U]) func(Value, string) (U, error) {
	return func(v Value, pointer string) (U, error) {
		o, err := objectOf(v, pointer)
		if err != nil {
			var zero U
			return zero, err
		}
		return read(o)
	}
}

// withTag is a variant's encoding with its tag.
func withTag(property, tag string, payload Value) Value {
	e := encoder{members: make([]Member, 1, 1+len(payload.members))}
	e.members[0] = Member{Name: property, Value: StringValue(tag)}
	e.merge(payload)
	return e.value()
}

// pointerCodec holds a value through a pointer (a type that contains itself).
func pointerCodec[T any](inner codec[T]) codec[*T] {
	return codec[*T]{
		decode: func(v Value, pointer string) (*T, error) {
			decoded, err := inner.decode(v, pointer)
			if err != nil {
				return nil, err
			}
			return &decoded, nil
		},
		encode: func(x *T) Value {
			if x == nil {
				return Value{}
			}
			return inner.encode(*x)
		},
	}
}

// defaultOf is a schema default (`literal`, its JSON) decoded with `c`, or
// the zero value when the schema's default does not decode.
func defaultOf[T any](c codec[T], literal string) T {
	var decoded T
	if value, err := Parse([]byte(literal)); err == nil {
		decoded, _ = c.decode(value, "")
	}
	return decoded
}
