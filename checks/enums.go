package checks

import "fmt"

// Tri is the outcome of one check: yes, no, or n/a when the target cannot support it.
type Tri int

const (
	TriUnknown Tri = iota
	TriYes
	TriNo
	TriNA
)

var triNames = []string{"unknown", "yes", "no", "n/a"}

func (t Tri) String() string { return name(triNames, int(t)) }

// ParseTri parses the String form of a Tri.
func ParseTri(s string) (Tri, error) {
	i, err := parse(triNames, "tri", s)
	return Tri(i), err
}

// MarshalText writes the name, so JSON carries "yes"/"no"/"n/a".
func (t Tri) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads the name.
func (t *Tri) UnmarshalText(b []byte) error {
	v, err := ParseTri(string(b))
	*t = v
	return err
}

// Reason says why a turn or call failed. The constants after ReasonNone are in priority order: when
// several apply, the earliest (the cause rather than its consequence) is the one reported.
type Reason int

const (
	ReasonUnknown Reason = iota
	ReasonNone           // understood, or clean
	ReasonConnectFailed
	ReasonHangup
	ReasonCancelled
	ReasonError
	ReasonOverrun // agent audio came so far ahead of real time that the caller dropped some
	ReasonLateTranscript
	ReasonSplit
	ReasonNoAnswer
	ReasonTimeout
	ReasonNotHeard
	ReasonWrongTranscript
	ReasonUnderrun
	ReasonWrongReply
	reasonEnd
)

var reasonNames = []string{
	"unknown", "none", "connect_failed", "hangup", "cancelled", "error", "overrun", "late_transcript", "split",
	"no_answer", "timeout", "not_heard", "wrong_transcript", "underrun", "wrong_reply",
}

func (r Reason) String() string { return name(reasonNames, int(r)) }

// Failed reports whether r is one of the failure reasons.
func (r Reason) Failed() bool { return r > ReasonNone && r < reasonEnd }

// FailureReasons lists every failure reason in priority order.
func FailureReasons() []Reason {
	out := make([]Reason, 0, reasonEnd-ReasonConnectFailed)
	for r := ReasonConnectFailed; r < reasonEnd; r++ {
		out = append(out, r)
	}
	return out
}

// ParseReason parses the String form of a Reason.
func ParseReason(s string) (Reason, error) {
	i, err := parse(reasonNames, "reason", s)
	return Reason(i), err
}

// MarshalText writes the name, so JSON carries "wrong_reply".
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads the name.
func (r *Reason) UnmarshalText(b []byte) error {
	v, err := ParseReason(string(b))
	*r = v
	return err
}

// first returns the highest-priority failure among rs, or ReasonNone.
func first(rs ...Reason) Reason {
	best := ReasonNone
	for _, r := range rs {
		if r.Failed() && (best == ReasonNone || r < best) {
			best = r
		}
	}
	return best
}

func name(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return names[0]
	}
	return names[i]
}

// parse finds s among names; index 0 (unknown) is never a valid parse.
func parse(names []string, kind, s string) (int, error) {
	for i, n := range names {
		if i > 0 && n == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: %s %q", ErrUnknownName, kind, s)
}
