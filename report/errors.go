package report

import "errors"

// Named errors; functions wrap them with context, so test with errors.Is.
var (
	// ErrSchema means a record or report of a schema this build does not read.
	ErrSchema = errors.New("report: unsupported schema")
	// ErrKind means a turns.jsonl line whose "kind" is not "turn" or "call".
	ErrKind = errors.New("report: unknown record kind")
	// ErrCorrupt means a turns.jsonl line that is not a JSON record, before the last line.
	ErrCorrupt = errors.New("report: corrupt record")
	// ErrClosed means a write to a closed JSONL.
	ErrClosed = errors.New("report: JSONL closed")
)
