// The JSON value of acp-codegen's Go runtime, copied as it is into every
// generated Go module (`json.go`; the source is `templates/go/json.go`).
//
// A Value is any JSON, kept as it came: object members in their order and
// numbers as their literal text, so that a value the schema leaves open
// re-encodes unchanged. Parse enforces the limits every binding shares
// (`codegen/DECODING.md`): at most 127 nested arrays and objects, finite
// numbers, valid UTF-8; its errors name the JSON pointer of the failure.

package acp

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is which JSON type a Value holds.
type Kind uint8

// The JSON types.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// Value is any JSON value. The zero Value is null.
type Value struct {
	kind    Kind
	boolean bool
	text    string
	items   []Value
	members []Member
}

// Member is one member of a JSON object.
type Member struct {
	Name  string
	Value Value
}

// MaxDepth is the most arrays and objects a decoded value may nest, itself
// included: the limit of Rust's `serde_json`, shared by every binding.
const MaxDepth = 127

// NullValue is JSON null.
func NullValue() Value { return Value{} }

// BoolValue is a JSON boolean.
func BoolValue(b bool) Value { return Value{kind: KindBool, boolean: b} }

// StringValue is a JSON string.
func StringValue(s string) Value { return Value{kind: KindString, text: s} }

// NumberValue is a JSON number written as `literal`; it must be a JSON number.
func NumberValue(literal Number) Value { return Value{kind: KindNumber, text: string(literal)} }

// ArrayValue is a JSON array of `items`.
func ArrayValue(items []Value) Value { return Value{kind: KindArray, items: items} }

// ObjectValue is a JSON object of `members`, in their order.
func ObjectValue(members []Member) Value { return Value{kind: KindObject, members: members} }

// Kind is the JSON type of the value.
func (v Value) Kind() Kind { return v.kind }

// Bool is the value of a boolean.
func (v Value) Bool() bool { return v.boolean }

// Text is a string's contents, or a number's literal.
func (v Value) Text() string { return v.text }

// Items is an array's items.
func (v Value) Items() []Value { return v.items }

// Members is an object's members, in their order.
func (v Value) Members() []Member { return v.members }

// Member is the object member called `name`, if the value has it.
func (v Value) Member(name string) (Value, bool) {
	for _, member := range v.members {
		if member.Name == name {
			return member.Value, true
		}
	}
	return Value{}, false
}

// MarshalJSON writes the value as JSON text.
func (v Value) MarshalJSON() ([]byte, error) {
	var out bytes.Buffer
	if err := v.write(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// UnmarshalJSON reads any JSON text within the shared limits.
func (v *Value) UnmarshalJSON(data []byte) error {
	parsed, err := Parse(data)
	if err != nil {
		return err
	}
	*v = parsed
	return nil
}

func (v Value) write(out *bytes.Buffer) error {
	switch v.kind {
	case KindNull:
		out.WriteString("null")
	case KindBool:
		out.WriteString(strconv.FormatBool(v.boolean))
	case KindNumber:
		if !validNumber(v.text) {
			return fmt.Errorf("%q is not a JSON number", v.text)
		}
		out.WriteString(v.text)
	case KindString:
		writeString(out, v.text)
	case KindArray:
		out.WriteByte('[')
		for index, item := range v.items {
			if index > 0 {
				out.WriteByte(',')
			}
			if err := item.write(out); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case KindObject:
		out.WriteByte('{')
		for index, member := range v.members {
			if index > 0 {
				out.WriteByte(',')
			}
			writeString(out, member.Name)
			out.WriteByte(':')
			if err := member.Value.write(out); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	}
	return nil
}

// printsAsItself is whether `v`, nested `depth` deep (1 at the top), is
// what printing and parsing it again gives: its numbers are JSON numbers,
// its text is UTF-8, it nests at most MaxDepth deep and no object names a
// member twice (objects of more than 16 members are not vouched for).
func printsAsItself(v Value, depth int) bool {
	switch v.kind {
	case KindNumber:
		return validNumber(v.text)
	case KindString:
		return utf8.ValidString(v.text)
	case KindArray:
		if depth > MaxDepth {
			return false
		}
		for _, item := range v.items {
			if !printsAsItself(item, depth+1) {
				return false
			}
		}
	case KindObject:
		if depth > MaxDepth || len(v.members) > 16 {
			return false
		}
		for index, member := range v.members {
			if !utf8.ValidString(member.Name) || !printsAsItself(member.Value, depth+1) {
				return false
			}
			for _, earlier := range v.members[:index] {
				if earlier.Name == member.Name {
					return false
				}
			}
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// writeString writes `text` as a JSON string, escaped as encoding/json
// escapes it without HTML escaping: `"`, `\\` and control characters,
// U+2028 and U+2029, and invalid UTF-8 as U+FFFD.
func writeString(out *bytes.Buffer, text string) {
	out.WriteByte('"')
	start := 0
	for at := 0; at < len(text); {
		c := text[at]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				at++
				continue
			}
			out.WriteString(text[start:at])
			switch c {
			case '"', '\\':
				out.WriteByte('\\')
				out.WriteByte(c)
			case '\b':
				out.WriteString(`\b`)
			case '\f':
				out.WriteString(`\f`)
			case '\n':
				out.WriteString(`\n`)
			case '\r':
				out.WriteString(`\r`)
			case '\t':
				out.WriteString(`\t`)
			default:
				out.WriteString(`\u00`)
				out.WriteByte(hexDigits[c>>4])
				out.WriteByte(hexDigits[c&0xF])
			}
			at++
			start = at
			continue
		}
		r, size := utf8.DecodeRuneInString(text[at:])
		switch {
		case r == utf8.RuneError && size == 1:
			out.WriteString(text[start:at])
			out.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			out.WriteString(text[start:at])
			out.WriteString(`\u202`)
			out.WriteByte(hexDigits[r&0xF])
		default:
			at += size
			continue
		}
		at += size
		start = at
	}
	out.WriteString(text[start:])
	out.WriteByte('"')
}

// equal is JSON equality, object member order aside; numbers compare by
// their literal text.
func equal(left, right Value) bool {
	if left.kind != right.kind {
		return false
	}
	switch left.kind {
	case KindNull:
		return true
	case KindBool:
		return left.boolean == right.boolean
	case KindNumber, KindString:
		return left.text == right.text
	case KindArray:
		if len(left.items) != len(right.items) {
			return false
		}
		for index := range left.items {
			if !equal(left.items[index], right.items[index]) {
				return false
			}
		}
		return true
	default:
		if len(left.members) != len(right.members) {
			return false
		}
		for _, member := range left.members {
			other, ok := right.Member(member.Name)
			if !ok || !equal(member.Value, other) {
				return false
			}
		}
		return true
	}
}

// Parse reads JSON text within the shared limits. A duplicate member name
// keeps its first place and its last value.
func Parse(data []byte) (Value, error) {
	if !utf8.Valid(data) {
		return Value{}, &DecodeError{Message: "the text is not valid UTF-8"}
	}
	p := scratchPool.Get().(*parser)
	defer p.release()
	p.data = data
	p.space()
	value, err := p.value(1)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.at < len(p.data) {
		return Value{}, p.syntax("text after the JSON value")
	}
	return value, nil
}

// scratchPool keeps parsers for reuse, so that their scratch stacks
// (members, items, path) are grown once rather than for every text.
var scratchPool = sync.Pool{New: func() any { return &parser{} }}

// release empties the parser and gives it back to the pool.
func (p *parser) release() {
	clear(p.members)
	clear(p.items)
	*p = parser{path: p.path[:0], members: p.members[:0], items: p.items[:0], names: p.names}
	scratchPool.Put(p)
}

// name is the member name `raw` (unescaped) as a string, the one read
// before when there is one.
func (p *parser) name(raw []byte) string {
	if known, ok := p.names[string(raw)]; ok {
		return known
	}
	text := string(raw)
	if p.names == nil {
		p.names = map[string]string{}
	}
	if len(p.names) < maxNames {
		p.names[text] = text
	}
	return text
}

// parser reads JSON text; `path` is where it is, written as a JSON pointer
// only when an error names it.
type parser struct {
	data []byte
	at   int
	path []step
	// The members and items of the objects and arrays being read, innermost
	// last: each is copied out once, at its exact length, when it closes.
	members []Member
	items   []Value
	// names holds member names read before, so that a name seen again is
	// not allocated again; it keeps at most maxNames of them.
	names map[string]string
}

// maxNames bounds a parser's names: a peer sending ever new member names
// makes it stop remembering, not grow.
const maxNames = 1024

// step is one step of the parser's path: a member's name, or an item's
// index when `index` is not negative.
type step struct {
	name  string
	index int
}

// pointer is the JSON pointer of the parser's path.
func (p *parser) pointer() string {
	var pointer strings.Builder
	for _, s := range p.path {
		pointer.WriteByte('/')
		if s.index >= 0 {
			pointer.WriteString(strconv.Itoa(s.index))
		} else {
			pointer.WriteString(escapeToken(s.name))
		}
	}
	return pointer.String()
}

func (p *parser) syntax(message string) error {
	return &DecodeError{Message: fmt.Sprintf("invalid JSON at byte %d: %s", p.at, message)}
}

func (p *parser) space() {
	for p.at < len(p.data) {
		switch p.data[p.at] {
		case ' ', '\t', '\r', '\n':
			p.at++
		default:
			return
		}
	}
}

func (p *parser) literal(word string, value Value) (Value, error) {
	if !bytes.HasPrefix(p.data[p.at:], []byte(word)) {
		return Value{}, p.syntax("unexpected character")
	}
	p.at += len(word)
	return value, nil
}

// value reads the value at the parser's path, `depth` arrays and objects down.
func (p *parser) value(depth int) (Value, error) {
	if p.at >= len(p.data) {
		return Value{}, p.syntax("unexpected end of text")
	}
	switch c := p.data[p.at]; {
	case c == 'n':
		return p.literal("null", Value{})
	case c == 't':
		return p.literal("true", BoolValue(true))
	case c == 'f':
		return p.literal("false", BoolValue(false))
	case c == '"':
		text, err := p.string(false)
		return StringValue(text), err
	case c == '[' || c == '{':
		if depth > MaxDepth {
			return Value{}, &DecodeError{Pointer: p.pointer(), Message: fmt.Sprintf("nested more than %d arrays and objects deep", MaxDepth)}
		}
		if c == '[' {
			return p.array(depth)
		}
		return p.object(depth)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return Value{}, p.syntax("unexpected character")
	}
}

func (p *parser) array(depth int) (Value, error) {
	p.at++
	p.space()
	if p.at < len(p.data) && p.data[p.at] == ']' {
		p.at++
		return ArrayValue([]Value{}), nil
	}
	p.path = append(p.path, step{})
	mark := len(p.items)
	for {
		p.space()
		p.path[len(p.path)-1].index = len(p.items) - mark
		item, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.items = append(p.items, item)
		p.space()
		if p.at >= len(p.data) {
			return Value{}, p.syntax("unexpected end of text")
		}
		if p.data[p.at] == ']' {
			p.at++
			p.path = p.path[:len(p.path)-1]
			items := make([]Value, len(p.items)-mark)
			copy(items, p.items[mark:])
			clear(p.items[mark:])
			p.items = p.items[:mark]
			return ArrayValue(items), nil
		}
		if p.data[p.at] != ',' {
			return Value{}, p.syntax("expected , or ]")
		}
		p.at++
	}
}

func (p *parser) object(depth int) (Value, error) {
	p.at++
	p.space()
	if p.at < len(p.data) && p.data[p.at] == '}' {
		p.at++
		return ObjectValue([]Member{}), nil
	}
	mark := len(p.members)
	for {
		p.space()
		if p.at >= len(p.data) || p.data[p.at] != '"' {
			return Value{}, p.syntax("expected a member name")
		}
		name, err := p.string(true)
		if err != nil {
			return Value{}, err
		}
		p.space()
		if p.at >= len(p.data) || p.data[p.at] != ':' {
			return Value{}, p.syntax("expected :")
		}
		p.at++
		p.space()
		p.path = append(p.path, step{name: name, index: -1})
		item, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.path = p.path[:len(p.path)-1]
		p.members = setMemberFrom(p.members, mark, name, item)
		p.space()
		if p.at >= len(p.data) {
			return Value{}, p.syntax("unexpected end of text")
		}
		if p.data[p.at] == '}' {
			p.at++
			members := make([]Member, len(p.members)-mark)
			copy(members, p.members[mark:])
			clear(p.members[mark:])
			p.members = p.members[:mark]
			return ObjectValue(members), nil
		}
		if p.data[p.at] != ',' {
			return Value{}, p.syntax("expected , or }")
		}
		p.at++
	}
}

// setMember sets the member `name`: in place when it is there, else last.
func setMember(members []Member, name string, value Value) []Member {
	return setMemberFrom(members, 0, name, value)
}

// setMemberFrom is setMember on the object `members[from:]`.
func setMemberFrom(members []Member, from int, name string, value Value) []Member {
	for index := from; index < len(members); index++ {
		if members[index].Name == name {
			members[index].Value = value
			return members
		}
	}
	return append(members, Member{Name: name, Value: value})
}

// string reads a string: a member's name when `name`, else a value at the
// parser's path. An escaped surrogate that is not half of a pair is
// refused, at the member's pointer for a name: UTF-8 cannot write it back.
func (p *parser) string(name bool) (string, error) {
	start := p.at
	p.at++
	escaped := false
	for p.at < len(p.data) {
		switch c := p.data[p.at]; {
		case c == '"':
			p.at++
			raw := p.data[start:p.at]
			if !escaped && name {
				return p.name(raw[1 : len(raw)-1]), nil
			}
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			if text, ok := unescape(raw[1 : len(raw)-1]); ok {
				return text, nil
			}
			if loneSurrogate(raw) {
				pointer := p.pointer()
				if name {
					pointer += "/" + escapeToken(string(raw[1:len(raw)-1]))
				}
				return "", &DecodeError{Pointer: pointer, Message: "a string holds an escaped surrogate that is not half of a pair"}
			}
			p.at = start
			return "", p.syntax("invalid string")
		case c == '\\':
			escaped = true
			p.at += 2
		case c < 0x20:
			return "", p.syntax("control character in a string")
		default:
			p.at++
		}
	}
	return "", p.syntax("unterminated string")
}

// unescape is the text of a string literal's contents `raw` (valid UTF-8
// without control characters); not ok for an unknown escape or an escaped
// surrogate that is not half of a pair.
func unescape(raw []byte) (string, bool) {
	text := make([]byte, 0, len(raw))
	for at := 0; at < len(raw); {
		c := raw[at]
		if c != '\\' {
			text = append(text, c)
			at++
			continue
		}
		if at+1 >= len(raw) {
			return "", false
		}
		switch raw[at+1] {
		case '"', '\\', '/':
			text = append(text, raw[at+1])
		case 'b':
			text = append(text, '\b')
		case 'f':
			text = append(text, '\f')
		case 'n':
			text = append(text, '\n')
		case 'r':
			text = append(text, '\r')
		case 't':
			text = append(text, '\t')
		case 'u':
			code, ok := hex4(raw, at+2)
			if !ok {
				return "", false
			}
			if code >= 0xD800 && code <= 0xDFFF {
				low, ok := hex4(raw, at+8)
				if code >= 0xDC00 || at+7 >= len(raw) || raw[at+6] != '\\' || raw[at+7] != 'u' || !ok || low < 0xDC00 || low > 0xDFFF {
					return "", false
				}
				code = utf16.DecodeRune(code, low)
				at += 6
			}
			text = utf8.AppendRune(text, code)
			at += 6
			continue
		default:
			return "", false
		}
		at += 2
	}
	return string(text), true
}

// hex4 is the code of the four hexadecimal digits at `at` of `raw`.
func hex4(raw []byte, at int) (rune, bool) {
	if at+4 > len(raw) {
		return 0, false
	}
	var code rune
	for _, c := range raw[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			code = code<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			code = code<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			code = code<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return code, true
}

func (p *parser) number() (Value, error) {
	start := p.at
	exponent := false
	for p.at < len(p.data) {
		c := p.data[p.at]
		if c == 'e' || c == 'E' {
			exponent = true
		} else if (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			break
		}
		p.at++
	}
	literal := string(p.data[start:p.at])
	if !validNumber(literal) {
		p.at = start
		return Value{}, p.syntax("invalid number")
	}
	// Without an exponent, a literal of at most 308 characters is below
	// 1e308, finite as a double.
	if exponent || len(literal) > 308 {
		if parsed, err := strconv.ParseFloat(literal, 64); err != nil && math.IsInf(parsed, 0) {
			return Value{}, &DecodeError{Pointer: p.pointer(), Message: fmt.Sprintf("the number %s is not finite as a double", literal)}
		}
	}
	return Value{kind: KindNumber, text: literal}, nil
}

// loneSurrogate is whether the JSON string literal `raw` escapes a
// surrogate that is not half of a pair.
func loneSurrogate(raw []byte) bool {
	surrogate := func(at int) (rune, bool) {
		if at+6 > len(raw) || raw[at] != '\\' || raw[at+1] != 'u' {
			return 0, false
		}
		code, err := strconv.ParseUint(string(raw[at+2:at+6]), 16, 32)
		return rune(code), err == nil && code >= 0xD800 && code <= 0xDFFF
	}
	for at := 0; at < len(raw); at++ {
		if raw[at] != '\\' {
			continue
		}
		code, ok := surrogate(at)
		if !ok {
			at++
			continue
		}
		if code >= 0xDC00 {
			return true
		}
		if next, ok := surrogate(at + 6); !ok || next < 0xDC00 {
			return true
		}
		at += 11
	}
	return false
}

// validNumber is whether `text` is a number as JSON writes it.
func validNumber(text string) bool {
	at := 0
	digits := func() int {
		start := at
		for at < len(text) && text[at] >= '0' && text[at] <= '9' {
			at++
		}
		return at - start
	}
	if at < len(text) && text[at] == '-' {
		at++
	}
	if at < len(text) && text[at] == '0' {
		at++
	} else if digits() == 0 {
		return false
	}
	if at < len(text) && text[at] == '.' {
		at++
		if digits() == 0 {
			return false
		}
	}
	if at < len(text) && (text[at] == 'e' || text[at] == 'E') {
		at++
		if at < len(text) && (text[at] == '+' || text[at] == '-') {
			at++
		}
		if digits() == 0 {
			return false
		}
	}
	return at == len(text)
}

// escapeToken is a member name as a JSON pointer segment (RFC 6901).
func escapeToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}
