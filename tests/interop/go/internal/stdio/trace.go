package stdio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// The directions of a recorded message, as `check-trace` reads them.
const (
	ClientToAgent = "client-to-agent"
	AgentToClient = "agent-to-client"
)

// Trace records every message with its direction, one JSON object a line
// (`{"direction", "message"}`), as `check-trace` reads them. A nil Trace
// records nothing.
type Trace struct {
	mu   sync.Mutex
	file *os.File
}

// NewTrace opens (and empties) the trace file `path`; nil when `path` is
// empty.
func NewTrace(path string) (*Trace, error) {
	if path == "" {
		return nil, nil
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("opening the trace %s: %w", path, err)
	}
	return &Trace{file: file}, nil
}

// record writes one message: JSON as it is, anything else as a string.
func (t *Trace) record(direction string, line []byte) {
	line = bytes.TrimSpace(line)
	if t == nil || len(line) == 0 {
		return
	}
	var message any = string(line)
	if json.Valid(line) {
		message = json.RawMessage(line)
	}
	var text bytes.Buffer
	encoder := json.NewEncoder(&text)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(recorded{direction, message}); err != nil {
		fmt.Fprintf(os.Stderr, "recording a message: %v\n", err)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, err := t.file.Write(text.Bytes()); err != nil {
		fmt.Fprintf(os.Stderr, "writing the trace %s: %v\n", t.file.Name(), err)
	}
}

// recorded is one line of a trace.
type recorded struct {
	Direction string `json:"direction"`
	Message   any    `json:"message"`
}

// lines cuts a stream into lines and records each complete one.
type lines struct {
	trace     *Trace
	direction string
	partial   []byte
}

func (l *lines) feed(data []byte) {
	l.partial = append(l.partial, data...)
	for {
		end := bytes.IndexByte(l.partial, '\n')
		if end < 0 {
			return
		}
		l.trace.record(l.direction, l.partial[:end])
		l.partial = l.partial[end+1:]
	}
}

type recordedReader struct {
	reader io.Reader
	lines  lines
}

func (r *recordedReader) Read(p []byte) (int, error) {
	n, err := r.reader.Read(p)
	r.lines.feed(p[:n])
	if err != nil && len(r.lines.partial) > 0 {
		r.lines.trace.record(r.lines.direction, r.lines.partial)
		r.lines.partial = nil
	}
	return n, err
}

type recordedWriter struct {
	writer io.Writer
	lines  lines
}

// Write records before it writes, so that a message is in the trace before
// anything the peer answers to it.
func (w *recordedWriter) Write(p []byte) (int, error) {
	w.lines.feed(p)
	return w.writer.Write(p)
}

// Reader is `reader` with every line it gives recorded as `direction`.
func (t *Trace) Reader(reader io.Reader, direction string) io.Reader {
	return &recordedReader{reader: reader, lines: lines{trace: t, direction: direction}}
}

// Writer is `writer` with every line written to it recorded as `direction`.
func (t *Trace) Writer(writer io.Writer, direction string) io.Writer {
	return &recordedWriter{writer: writer, lines: lines{trace: t, direction: direction}}
}
