package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Shard is one of Count generators that run one plan together, each on its own machine. Index is
// 0-based, as Kubernetes' JOB_COMPLETION_INDEX. The shard places call k of every step when k mod
// Count == Index, so call numbers, and with them each call's phrases (speech.ForCall), are those of
// a single run; and every shard starts step s at StartAt + s×StepLen, so their load adds up.
type Shard struct {
	Index, Count int
	StartAt      time.Time
}

// ParseShard reads "INDEX/COUNT", e.g. "0/4"; Validate checks the range.
func ParseShard(s string) (index, count int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		index, err = strconv.Atoi(strings.TrimSpace(a))
		if err == nil {
			count, err = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("shard %q: want INDEX/COUNT with whole numbers, e.g. 0/4", s)
	}
	return index, count, nil
}

// String is the INDEX/COUNT form ParseShard reads.
func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// Validate reports every problem with running sh of plan p at now: an index outside [0, Count),
// several shards without a common start, or a start more than a step ago (the shard would miss a
// step the others ran).
func (sh Shard) Validate(p Plan, now time.Time) []error {
	var errs []error
	switch {
	case sh.Count < 1:
		errs = append(errs, fmt.Errorf("shard %s: the count must be at least 1", sh))
	case sh.Index < 0 || sh.Index >= sh.Count:
		errs = append(errs, fmt.Errorf("shard %s: the index must be in [0, %d)", sh, sh.Count))
	}
	if sh.StartAt.IsZero() {
		if sh.Count > 1 {
			errs = append(errs, errors.New("a sharded run needs a start time common to every shard"))
		}
		return errs
	}
	if late := now.Sub(sh.StartAt); late > p.StepLen() {
		errs = append(errs, fmt.Errorf("start %s is %v ago, more than a step (%v): this shard would miss steps the others ran",
			sh.StartAt.Format(time.RFC3339), late.Round(time.Second), p.StepLen()))
	}
	return errs
}

// Schedule is the shard's share of the plan's steps (pure): call k of each step when k mod Count
// == Index, at the offset it has in the whole plan, so the shards together ramp as one run does.
// A step may hold no call of this shard (a step smaller than Count); it still runs, empty.
func (sh Shard) Schedule(p Plan) []StepSchedule {
	all := Schedule(p)
	if sh.Count <= 1 {
		return all
	}
	out := make([]StepSchedule, 0, len(all))
	for _, s := range all {
		mine := s
		mine.Calls, mine.Starts = nil, nil
		for k := sh.Index; k < len(s.Calls); k += sh.Count {
			mine.Calls = append(mine.Calls, s.Calls[k])
			mine.Starts = append(mine.Starts, s.Starts[k])
		}
		mine.N = len(mine.Calls)
		out = append(out, mine)
	}
	return out
}
