package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/callfleet/callfleet/callers"
)

// Records is everything a turns file holds, in file order, and the lines it could not read.
type Records struct {
	Run      *RunLine // nil in a file written before run lines, or by merge or a scenario
	Steps    []StepLine
	StepEnds []StepEndLine
	Agent    []AgentLine
	RunEnd   *RunEndLine // nil when the run never finished: killed, crashed
	Turns    []callers.Turn
	Calls    []callers.CallResult
	Skipped  []SkippedLine
}

// SkippedLine is a line left out: not JSON (a write cut short, a disk error), an unknown kind, or
// a newer schema. Its error wraps ErrCorrupt, ErrKind or ErrSchema.
type SkippedLine struct {
	Line int
	Err  error
}

// Record is one parsed line: exactly one field is set.
type Record struct {
	Turn    *callers.Turn
	Call    *callers.CallResult
	Run     *RunLine
	Step    *StepLine
	StepEnd *StepEndLine
	Agent   *AgentLine
	RunEnd  *RunEndLine
}

// ReadRecords reads a turns file; see DecodeRecords. The error is one of opening or reading it.
func ReadRecords(path string) (*Records, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: read turns: %w", err)
	}
	defer f.Close()
	recs, err := DecodeRecords(f)
	if err != nil {
		return recs, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// DecodeRecords reads every line it can: a line that does not parse, anywhere in the file (half
// a last line cut by a crash, a corrupt one in the middle), is skipped and listed in Skipped, and
// the lines after it are still read. The error is the reader's own, returned with what was read.
func DecodeRecords(r io.Reader) (*Records, error) {
	recs := &Records{}
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return recs, fmt.Errorf("report: read line %d: %w", n, rerr)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if rec, err := ParseRecord(line); err != nil {
				recs.Skipped = append(recs.Skipped, SkippedLine{Line: n, Err: err})
			} else {
				recs.add(rec)
			}
		}
		if rerr != nil { // io.EOF: the last line, with or without its newline
			return recs, nil
		}
	}
}

func (recs *Records) add(rec Record) {
	switch {
	case rec.Turn != nil:
		recs.Turns = append(recs.Turns, *rec.Turn)
	case rec.Call != nil:
		recs.Calls = append(recs.Calls, *rec.Call)
	case rec.Run != nil:
		if recs.Run == nil { // a second run line would be two runs in one file: the first wins
			recs.Run = rec.Run
		}
	case rec.Step != nil:
		recs.Steps = append(recs.Steps, *rec.Step)
	case rec.StepEnd != nil:
		recs.StepEnds = append(recs.StepEnds, *rec.StepEnd)
	case rec.Agent != nil:
		recs.Agent = append(recs.Agent, *rec.Agent)
	case rec.RunEnd != nil:
		recs.RunEnd = rec.RunEnd
	}
}

// SkippedNote is SkippedNote of the lines recs skipped.
func (recs *Records) SkippedNote() string {
	if recs == nil {
		return ""
	}
	return SkippedNote(recs.Skipped)
}

// SkippedNote sums up skipped lines in one sentence for a warning: how many, and the first few
// with their line numbers; "" when there are none.
func SkippedNote(skipped []SkippedLine) string {
	if len(skipped) == 0 {
		return ""
	}
	var first []string
	for _, s := range skipped[:min(3, len(skipped))] {
		first = append(first, fmt.Sprintf("line %d: %v", s.Line, s.Err))
	}
	more := ""
	if len(skipped) > 3 {
		more = "; ..."
	}
	return fmt.Sprintf("%d unreadable line(s) skipped (%s%s)", len(skipped), strings.Join(first, "; "), more)
}

// ParseRecord decodes one turns.jsonl line.
func ParseRecord(line []byte) (Record, error) {
	var head struct {
		Kind   string `json:"kind"`
		Schema int    `json:"schema"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return Record{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if head.Schema > callers.Schema {
		return Record{}, fmt.Errorf("%w: record schema %d, this build reads up to %d", ErrSchema, head.Schema, callers.Schema)
	}
	var rec Record
	var v any
	switch head.Kind {
	case KindTurn:
		rec.Turn = &callers.Turn{}
		v = rec.Turn
	case KindCall:
		rec.Call = &callers.CallResult{}
		v = rec.Call
	case KindRun:
		rec.Run = &RunLine{}
		v = rec.Run
	case KindStep:
		rec.Step = &StepLine{}
		v = rec.Step
	case KindStepEnd:
		rec.StepEnd = &StepEndLine{}
		v = rec.StepEnd
	case KindAgent:
		rec.Agent = &AgentLine{}
		v = rec.Agent
	case KindRunEnd:
		rec.RunEnd = &RunEndLine{}
		v = rec.RunEnd
	default:
		return Record{}, fmt.Errorf("%w: %q", ErrKind, head.Kind)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return Record{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, head.Kind, err)
	}
	return rec, nil
}
