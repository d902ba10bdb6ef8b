// Decode + encode throughput of one implementation on the benchmark corpus:
//
//	decode-encode <ours|official|floor> <corpus.tsv> <runs>
//
// Each corpus line is `TypeName<TAB>json`; every message is read from text
// into the typed value and written back to text, as an SDK does: ours
// through the generated module's UnmarshalJSON and MarshalJSON, the official
// one (github.com/coder/acp-go-sdk) through json.Unmarshal and json.Marshal
// on its generated types, the floor through json.Unmarshal into `any` and
// json.Marshal. A first pass checks that every output equals its input
// (object member order aside, numbers as doubles) and warms up; then each
// run times the whole corpus. Prints one JSON object: messages, bytes,
// seconds per run, decode failures, outputs that differ, the first
// difference, and the process's peak resident memory (VmHWM, KiB).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"time"

	"acp-bench/internal/process"

	ours "github.com/acp-codegen/acp-bindings-go"
	official "github.com/coder/acp-go-sdk"
)

type codec func(data []byte) ([]byte, error)

// generated is one of our types: it reads and writes itself.
type generated[T any] interface {
	*T
	UnmarshalJSON(data []byte) error
	MarshalJSON() ([]byte, error)
}

func oursRoundtrip[T any, P generated[T]](data []byte) ([]byte, error) {
	var x T
	if err := P(&x).UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return P(&x).MarshalJSON()
}

// standard reads and writes a type through encoding/json.
func standard[T any](data []byte) ([]byte, error) {
	var x T
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	return json.Marshal(&x)
}

var codecs = map[string]map[string]codec{
	"ours": {
		"SessionNotification":       oursRoundtrip[ours.SessionNotification],
		"PromptRequest":             oursRoundtrip[ours.PromptRequest],
		"PromptResponse":            oursRoundtrip[ours.PromptResponse],
		"RequestPermissionRequest":  oursRoundtrip[ours.RequestPermissionRequest],
		"RequestPermissionResponse": oursRoundtrip[ours.RequestPermissionResponse],
	},
	"official": {
		"SessionNotification":       standard[official.SessionNotification],
		"PromptRequest":             standard[official.PromptRequest],
		"PromptResponse":            standard[official.PromptResponse],
		"RequestPermissionRequest":  standard[official.RequestPermissionRequest],
		"RequestPermissionResponse": standard[official.RequestPermissionResponse],
	},
}

type message struct {
	codec    codec
	typeName string
	text     []byte
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "decode-encode: "+format+"\n", args...)
	os.Exit(2)
}

// same is JSON equality, object member order aside, numbers as doubles.
func same(left, right []byte) bool {
	var a, b any
	return json.Unmarshal(left, &a) == nil && json.Unmarshal(right, &b) == nil && reflect.DeepEqual(a, b)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: decode-encode <ours|official|floor> <corpus.tsv> <runs>")
	}
	implementation, corpus := os.Args[1], os.Args[2]
	runs, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail("runs: %q is not a count", os.Args[3])
	}
	pick, known := codecs[implementation]
	if !known && implementation != "floor" {
		fail("unknown implementation %q", implementation)
	}
	file, err := os.Open(corpus)
	if err != nil {
		fail("%v", err)
	}
	var messages []message
	bytesTotal := 0
	lines := bufio.NewScanner(file)
	lines.Buffer(nil, 1<<26)
	for lines.Scan() {
		typeName, text, ok := bytes.Cut(lines.Bytes(), []byte("\t"))
		if !ok {
			fail("a corpus line without a type: %.60s", lines.Text())
		}
		c := codec(standard[any])
		if known {
			if c, ok = pick[string(typeName)]; !ok {
				fail("no codec for %s", typeName)
			}
		}
		messages = append(messages, message{c, string(typeName), bytes.Clone(text)})
		bytesTotal += len(text)
	}
	if err := lines.Err(); err != nil {
		fail("%s: %v", corpus, err)
	}

	failures, differ := 0, 0
	var firstDifference *string
	for index, m := range messages {
		var problem string
		output, err := m.codec(m.text)
		switch {
		case err != nil:
			failures++
			problem = fmt.Sprintf("line %d (%s) does not decode: %v", index+1, m.typeName, err)
		case !same(output, m.text):
			differ++
			problem = fmt.Sprintf("line %d (%s): %s became %s", index+1, m.typeName, m.text, output)
		}
		if firstDifference == nil && problem != "" {
			firstDifference = &problem
		}
	}

	seconds := make([]float64, 0, runs)
	printed := 0
	for range runs {
		start := time.Now()
		for _, m := range messages {
			output, _ := m.codec(m.text)
			printed += len(output)
		}
		seconds = append(seconds, time.Since(start).Seconds())
	}
	report, err := json.Marshal(map[string]any{
		"messages":         len(messages),
		"bytes":            bytesTotal,
		"seconds":          seconds,
		"failures":         failures,
		"differ":           differ,
		"first_difference": firstDifference,
		"peak_kib":         process.PeakKiB(),
		"printed":          printed,
	})
	if err != nil {
		fail("%v", err)
	}
	fmt.Println(string(report))
}
