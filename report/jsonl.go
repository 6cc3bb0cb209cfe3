package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/callfleet/callfleet/callers"
)

// TurnsFileName is the per-turn record stream written beside report.json.
const TurnsFileName = "turns.jsonl"

// The discriminator of a turns.jsonl line.
const (
	KindTurn = "turn"
	KindCall = "call"
)

// turnLine and callLine put "kind" first and flatten the record beside it.
type turnLine struct {
	Kind string `json:"kind"`
	callers.Turn
}

type callLine struct {
	Kind string `json:"kind"`
	callers.CallResult
}

// JSONL appends records to turns.jsonl, one JSON object a line, each line in a single Write (one
// write(2) on a file) as it finishes, so a crash loses nothing finished. Safe for concurrent use.
// Writes block for the write call: callers should reach it through a buffering sink.
type JSONL struct {
	mu     sync.Mutex
	w      io.Writer
	c      io.Closer // nil when the writer is not ours to close
	closed bool
}

// CreateJSONL creates path for appending. It refuses an existing file (os.ErrExist), so two runs
// never mix their records and a rerun never erases one.
func CreateJSONL(path string) (*JSONL, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("report: create %s: %w", path, err)
	}
	return &JSONL{w: f, c: f}, nil
}

// NewJSONL writes records to w, one Write per record; Close does not close w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

// WriteTurn appends a turn record (stamped with callers.Schema when it has none).
func (j *JSONL) WriteTurn(t callers.Turn) error {
	if t.Schema == 0 {
		t.Schema = callers.Schema
	}
	return j.write(turnLine{Kind: KindTurn, Turn: t})
}

// WriteCall appends a call record (stamped with callers.Schema when it has none).
func (j *JSONL) WriteCall(c callers.CallResult) error {
	if c.Schema == 0 {
		c.Schema = callers.Schema
	}
	return j.write(callLine{Kind: KindCall, CallResult: c})
}

func (j *JSONL) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("report: encode record: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	if _, err := j.w.Write(b); err != nil {
		return fmt.Errorf("report: write record: %w", err)
	}
	return nil
}

// Close closes the file; later writes fail with ErrClosed.
func (j *JSONL) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	if j.c == nil {
		return nil
	}
	if err := j.c.Close(); err != nil {
		return fmt.Errorf("report: close turns: %w", err)
	}
	return nil
}

// ReadJSONL reads a turns.jsonl file back; see DecodeJSONL.
func ReadJSONL(path string) (turns []callers.Turn, calls []callers.CallResult, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("report: read turns: %w", err)
	}
	defer f.Close()
	turns, calls, err = DecodeJSONL(f)
	if err != nil {
		return turns, calls, fmt.Errorf("%s: %w", path, err)
	}
	return turns, calls, nil
}

// DecodeJSONL reads records in file order. A last line without its newline that does not parse is
// a write cut short by a crash and is dropped; any other bad line is an error (ErrCorrupt, ErrKind,
// ErrSchema) naming its line, returned with the records read before it.
func DecodeJSONL(r io.Reader) (turns []callers.Turn, calls []callers.CallResult, err error) {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return turns, calls, fmt.Errorf("report: read line %d: %w", n, rerr)
		}
		last := rerr != nil // io.EOF: no newline ends this line
		if len(bytes.TrimSpace(line)) > 0 {
			t, c, perr := ParseLine(line)
			switch {
			case perr != nil && last && errors.Is(perr, ErrCorrupt):
				return turns, calls, nil // truncated by a crash mid-write
			case perr != nil:
				return turns, calls, fmt.Errorf("line %d: %w", n, perr)
			case t != nil:
				turns = append(turns, *t)
			default:
				calls = append(calls, *c)
			}
		}
		if last {
			return turns, calls, nil
		}
	}
}

// ParseLine decodes one turns.jsonl line into a turn or a call (the other is nil).
func ParseLine(line []byte) (*callers.Turn, *callers.CallResult, error) {
	var head struct {
		Kind   string `json:"kind"`
		Schema int    `json:"schema"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if head.Schema > callers.Schema {
		return nil, nil, fmt.Errorf("%w: record schema %d, this build reads up to %d", ErrSchema, head.Schema, callers.Schema)
	}
	switch head.Kind {
	case KindTurn:
		var t callers.Turn
		if err := json.Unmarshal(line, &t); err != nil {
			return nil, nil, fmt.Errorf("%w: turn: %w", ErrCorrupt, err)
		}
		return &t, nil, nil
	case KindCall:
		var c callers.CallResult
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, nil, fmt.Errorf("%w: call: %w", ErrCorrupt, err)
		}
		return nil, &c, nil
	}
	return nil, nil, fmt.Errorf("%w: %q", ErrKind, head.Kind)
}
