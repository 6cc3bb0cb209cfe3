package report

import "errors"

// Named errors; functions wrap them with context, so test with errors.Is.
var (
	// ErrSchema means a record or report of a schema this build does not read.
	ErrSchema = errors.New("report: unsupported schema")
	// ErrKind means a turns.jsonl line whose "kind" is not "turn" or "call".
	ErrKind = errors.New("report: unknown record kind")
	// ErrCorrupt means a turns.jsonl line that is not a JSON record (readers skip and count it).
	ErrCorrupt = errors.New("report: corrupt record")
	// ErrWrite means a record that could not be written to the turns file (a full disk, ...).
	ErrWrite = errors.New("report: turns file write failed")
	// ErrNoRunLine means a turns file without the run line a rebuild starts from: written before
	// run lines existed, by merge or by a scenario run.
	ErrNoRunLine = errors.New("report: turns file has no run line")
	// ErrClosed means a write to a closed JSONL.
	ErrClosed = errors.New("report: JSONL closed")
)
