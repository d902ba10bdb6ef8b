// Every shared vector through the generated Go bindings: valid values
// round-trip unchanged, invalid ones fail with a DecodeError whose Pointer
// is exactly the vector's `pointer`, lenient ones re-encode to their
// `expected`. Copied next to the bindings by `cargo xtask test`; the
// vectors are read from $ACP_VECTORS, else from ../vectors.

package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

type vectorFile struct {
	Type    string `json:"type"`
	Valid   []vectorCase
	Invalid []vectorCase
	Lenient []vectorCase
}

type vectorCase struct {
	Name     string          `json:"name"`
	Value    json.RawMessage `json:"value"`
	Pointer  string          `json:"pointer"`
	Expected json.RawMessage `json:"expected"`
}

// vectorGroup is the vectors of one kind of a file.
type vectorGroup struct {
	kind    string
	vectors []vectorCase
}

func vectorFolder() string {
	if folder := os.Getenv("ACP_VECTORS"); folder != "" {
		return folder
	}
	return filepath.Join("..", "vectors")
}

// sameJSON is whether two JSON texts are the same value, object member
// order aside and numbers as written (`1` is not `1.0`).
// sameJSON is JSON equality, member order aside, judged by encoding/json
// (numbers by their text) rather than by the module's own parser.
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	return reflect.DeepEqual(standardJSON(t, got, "the result"), standardJSON(t, want, "the vector"))
}

// standardJSON is the one JSON value `text` holds, read by encoding/json.
func standardJSON(t *testing.T, text []byte, what string) any {
	t.Helper()
	decoder := json.NewDecoder(bytes.NewReader(text))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		t.Fatalf("%s is not JSON: %v (%s)", what, err, text)
	}
	if _, err := decoder.Token(); err != io.EOF {
		t.Fatalf("%s holds more than one JSON value: %s", what, text)
	}
	return value
}

func checkVector(t *testing.T, typeName, kind string, vector vectorCase) {
	out, err := Roundtrip(typeName, vector.Value)
	switch kind {
	case "valid", "lenient":
		if err != nil {
			t.Fatalf("decoding failed: %v", err)
		}
		want := vector.Value
		if kind == "lenient" {
			want = vector.Expected
		}
		if !sameJSON(t, out, want) {
			t.Fatalf("re-encoded as %s, expected %s", out, want)
		}
	default:
		var decodeError *DecodeError
		if !errors.As(err, &decodeError) {
			t.Fatalf("expected a DecodeError at %q, got %v (%s)", vector.Pointer, err, out)
		}
		if decodeError.Pointer != vector.Pointer {
			t.Fatalf("the error is at %q, expected %q: %v", decodeError.Pointer, vector.Pointer, err)
		}
	}
}

func TestVectors(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(vectorFolder(), "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors in %s (%v)", vectorFolder(), err)
	}
	sort.Strings(paths)
	passed, total := 0, 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var file vectorFile
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		groups := []vectorGroup{}
		groups = append(groups, vectorGroup{"valid", file.Valid}, vectorGroup{"invalid", file.Invalid})
		groups = append(groups, vectorGroup{"lenient", file.Lenient})
		for _, group := range groups {
			for _, vector := range group.vectors {
				total++
				if t.Run(file.Type+"/"+group.kind+"/"+vector.Name, func(t *testing.T) {
					checkVector(t, file.Type, group.kind, vector)
				}) {
					passed++
				}
			}
		}
	}
	fmt.Printf("vectors passed: %d of %d\n", passed, total)
}

func TestUnknownTypeIsAnError(t *testing.T) {
	var decodeError *DecodeError
	if _, err := Roundtrip("NoSuchType", []byte("{}")); !errors.As(err, &decodeError) {
		t.Fatalf("expected a DecodeError, got %v", err)
	}
}

func TestTooDeepIsAnErrorAtItsPointer(t *testing.T) {
	deep := make([]byte, 0, 2*(MaxDepth+1))
	for range MaxDepth + 1 {
		deep = append(deep, '[')
	}
	for range MaxDepth + 1 {
		deep = append(deep, ']')
	}
	_, err := Parse(deep)
	var decodeError *DecodeError
	if !errors.As(err, &decodeError) || len(decodeError.Pointer) != 2*MaxDepth {
		t.Fatalf("expected an error %d levels down, got %v", MaxDepth, err)
	}
}

func TestLoneSurrogatesAreErrorsAtTheirPointer(t *testing.T) {
	for text, pointer := range map[string]string{
		`{"a": "\ud800"}`:         "/a",
		`{"a": ["x", "\udc00y"]}`: "/a/1",
		`{"\ud800": 1}`:           `/\ud800`,
	} {
		_, err := Parse([]byte(text))
		var decodeError *DecodeError
		if !errors.As(err, &decodeError) || decodeError.Pointer != pointer {
			t.Errorf("%s: expected an error at %q, got %v", text, pointer, err)
		}
	}
	if _, err := Parse([]byte(`{"a": "\ud83d\ude00 \u00e9"}`)); err != nil {
		t.Errorf("a surrogate pair is refused: %v", err)
	}
}

// The runtime's helpers that only some schemas' types use (shapes.go),
// checked whether or not this schema's types use them.
func TestHelpersOfOtherSchemas(t *testing.T) {
	value, err := Parse([]byte(`{"a": 1, "b/c": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := objectOf(value, "/x")
	if err != nil {
		t.Fatal(err)
	}
	var decodeError *DecodeError
	if err := deny(o, []string{"a"}); !errors.As(err, &decodeError) || decodeError.Pointer != "/x/b~1c" {
		t.Errorf("deny: expected an error at /x/b~1c, got %v", err)
	}
	members := fromObject(func(o *object) (int, error) { return len(o.members), nil })
	if count, err := members(value, ""); err != nil || count != 2 {
		t.Errorf("fromObject: got %d, %v", count, err)
	}
	if _, err := members(StringValue("no object"), "/y"); !errors.As(err, &decodeError) || decodeError.Pointer != "/y" {
		t.Errorf("fromObject: expected an error at /y, got %v", err)
	}
	tagged, err := withTag("type", "text", value).MarshalJSON()
	if err != nil || string(tagged) != `{"type":"text","a":1,"b/c":2}` {
		t.Errorf("withTag: got %s, %v", tagged, err)
	}
	boxed := pointerCodec(boolCodec())
	if x, err := boxed.decode(BoolValue(true), ""); err != nil || x == nil || !*x || !equal(boxed.encode(x), BoolValue(true)) {
		t.Errorf("pointerCodec: got %v, %v", x, err)
	}
	if got := defaultOf(integerCodec[int32](nil, nil), "7"); got != 7 {
		t.Errorf("defaultOf: got %d", got)
	}
}
