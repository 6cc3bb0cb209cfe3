package report

import (
	"encoding/json"
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
// Writes block for the write call: callers should reach it through a buffering sink. The first
// failed write (a full disk) fails every later one too: a write cut short leaves half a line, and
// a record appended to it would be lost with it.
type JSONL struct {
	mu     sync.Mutex
	w      io.Writer
	f      *os.File // the file when it is ours: synced and closed by Close
	closed bool
	failed error // the first write error, kept
}

// CreateJSONL creates path for appending. It refuses an existing file (os.ErrExist), so two runs
// never mix their records and a rerun never erases one.
func CreateJSONL(path string) (*JSONL, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("report: create %s: %w", path, err)
	}
	return &JSONL{w: f, f: f}, nil
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

// write appends one line; an error wraps ErrWrite and the writer's own (syscall.ENOSPC, ...).
func (j *JSONL) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("report: encode record: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.closed:
		return ErrClosed
	case j.failed != nil:
		return j.failed
	}
	if n, err := j.w.Write(b); err != nil || n < len(b) {
		if err == nil {
			err = io.ErrShortWrite
		}
		j.failed = fmt.Errorf("%w: %w", ErrWrite, err)
		return j.failed
	}
	return nil
}

// Err is the first write error, nil while every write has succeeded.
func (j *JSONL) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.failed
}

// Close syncs and closes the file (so report.json never names records a power cut could lose);
// later writes fail with ErrClosed.
func (j *JSONL) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	if j.f == nil {
		return nil
	}
	err := j.f.Sync()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report: close turns: %w", err)
	}
	return nil
}

// ReadJSONL reads a turns.jsonl file's turn and call records back, skipping lines that do not
// parse (ReadRecords counts them); an error is one of opening or reading the file.
func ReadJSONL(path string) (turns []callers.Turn, calls []callers.CallResult, err error) {
	recs, err := ReadRecords(path)
	if recs == nil {
		return nil, nil, err
	}
	return recs.Turns, recs.Calls, err
}

// DecodeJSONL is ReadJSONL of a stream.
func DecodeJSONL(r io.Reader) (turns []callers.Turn, calls []callers.CallResult, err error) {
	recs, err := DecodeRecords(r)
	return recs.Turns, recs.Calls, err
}

// ParseLine decodes one turns.jsonl line into a turn or a call (the other is nil); a run or step
// line gives neither and no error (ParseRecord returns those).
func ParseLine(line []byte) (*callers.Turn, *callers.CallResult, error) {
	rec, err := ParseRecord(line)
	if err != nil {
		return nil, nil, err
	}
	return rec.Turn, rec.Call, nil
}
