// Round-trips a batch of values through the Go bindings, the Go step of
// `cargo xtask test`'s chain:
//
//	roundtrip-batch <in.jsonl> <out.jsonl>
//
// Each input line is {"type": T, "value": V}; each output line is
// {"type": T, "value": Roundtrip(T, V)} or {"type": T, "error": message,
// "pointer": P}, P being the JSON pointer of the error.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	acp "github.com/acp-codegen/acp-bindings-go"
)

type input struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

type output struct {
	Type    string          `json:"type"`
	Value   json.RawMessage `json:"value,omitempty"`
	Error   string          `json:"error,omitempty"`
	Pointer *string         `json:"pointer,omitempty"`
}

func result(line []byte) output {
	var entry input
	if err := json.Unmarshal(line, &entry); err != nil {
		return output{Error: err.Error()}
	}
	value, err := acp.Roundtrip(entry.Type, entry.Value)
	if err != nil {
		out := output{Type: entry.Type, Error: err.Error()}
		var decodeError *acp.DecodeError
		if errors.As(err, &decodeError) {
			out.Pointer = &decodeError.Pointer
		}
		return out
	}
	return output{Type: entry.Type, Value: value}
}

func run(in io.Reader, out io.Writer) error {
	reader := bufio.NewReader(in)
	writer := bufio.NewWriter(out)
	encoder := json.NewEncoder(writer)
	encoder.SetEscapeHTML(false)
	for {
		line, err := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := encoder.Encode(result(line)); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return writer.Flush()
		}
		if err != nil {
			return err
		}
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: roundtrip-batch <in.jsonl> <out.jsonl>")
		os.Exit(2)
	}
	in, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer in.Close()
	out, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := run(in, out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := out.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
