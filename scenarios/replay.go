package scenarios

// Replay: one call of an earlier run, again. Its turn records say what it said and when, so the
// call comes back as a script — the same phrases in the same order, each started the same time
// after the reply before it (or over it) — and the new turns are set beside the old.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/report"
)

// ErrReplay means the call asked for cannot be replayed from the records.
var ErrReplay = errors.New("scenarios: cannot replay")

// FindCall picks a call by its id at the agent ("CA…", a pc_id) or its index in the run ("7"),
// within step when step >= 0 (a sweep numbers each setting's calls alike, a step each).
func FindCall(calls []callers.CallResult, id string, step int) (callers.CallResult, error) {
	n, err := strconv.Atoi(id)
	for _, c := range calls {
		if (c.CallID != "" && c.CallID == id) || (err == nil && c.Call == n && (step < 0 || c.Step == step)) {
			return c, nil
		}
	}
	return callers.CallResult{}, fmt.Errorf("%w: no call %q in the records", ErrReplay, id)
}

// CallTurns is one call's turns, in order.
func CallTurns(turns []callers.Turn, call callers.CallResult) []callers.Turn {
	var out []callers.Turn
	for _, t := range turns {
		if t.Call == call.Call && t.Step == call.Step {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b callers.Turn) int { return cmp.Compare(a.Turn, b.Turn) })
	return out
}

// ReplayScript turns a call's records back into a script: each phrase (split as it was) starts
// as long after the reply before it ended as it did — or that long into that reply, when it was
// said over it — and the first as long after the agent was ready.
func ReplayScript(call callers.CallResult, turns []callers.Turn, timeouts callers.Timeouts) (callers.Script, error) {
	s := callers.Script{Call: call.Call, Step: call.Step, Seed: call.Seed, Timeouts: timeouts}
	if len(turns) == 0 {
		return s, fmt.Errorf("%w: call %d has no turns", ErrReplay, call.Call)
	}
	for i, t := range turns {
		if t.Marks.SpeechStart == nil || t.Marks.SpeechEnd == nil {
			return s, fmt.Errorf("%w: call %d turn %d was never spoken", ErrReplay, call.Call, t.Turn)
		}
		cue := callers.Cue{Digits: t.Phrase, Transcribe: true}
		if t.Pause != nil {
			cue.Split = t.Pause.Duration()
		}
		start := *t.Marks.SpeechStart
		if i == 0 {
			if call.SessionStart != nil {
				cue.Pause = max(0, start-*call.SessionStart).Duration()
			}
			s.Cues = append(s.Cues, cue)
			continue
		}
		prev := turns[i-1].Marks
		switch {
		case prev.ReplyStart != nil && start >= *prev.ReplyStart && (prev.ReplyEnd == nil || start < *prev.ReplyEnd):
			cue.BargeIn = max(1, start-*prev.ReplyStart).Duration()
		case prev.ReplyEnd != nil:
			cue.Pause = max(0, start-*prev.ReplyEnd).Duration()
		default:
			cue.Pause = max(0, start-*prev.SpeechEnd).Duration()
		}
		s.Cues = append(s.Cues, cue)
	}
	return s, nil
}

// ReplayRows sets the replayed turns beside the original ones, turn by turn.
func ReplayRows(before, again []callers.Turn) []report.ReplayRow {
	n := max(len(before), len(again))
	rows := make([]report.ReplayRow, n)
	for i := range rows {
		rows[i].Turn = i + 1
		if i < len(before) {
			rows[i].Before, rows[i].Phrase = &before[i], before[i].Phrase
		}
		if i < len(again) {
			rows[i].Again, rows[i].Phrase = &again[i], again[i].Phrase
		}
	}
	return rows
}
