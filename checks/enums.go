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

// Reason says why a turn or call was not understood or clean. The constants after ReasonNone are
// in priority order: when several apply, the earliest (the cause rather than its consequence) is
// the one reported. Not every reason is a failure: see Outcome.
type Reason int

const (
	ReasonUnknown Reason = iota
	ReasonNone           // understood, or clean
	ReasonConnectFailed
	ReasonHangup
	ReasonCancelled // the run was stopped (user, deadline, generator) during the turn: not the agent's failure
	ReasonError
	ReasonConnectionLost // the transport failed during the turn
	ReasonOverrun        // agent audio came so far ahead of real time that the caller dropped some
	ReasonLateTranscript
	ReasonSplit
	ReasonNoAnswer
	ReasonTimeout
	ReasonNotHeard
	ReasonWrongTranscript
	ReasonUnderrun
	ReasonWrongReply
	ReasonMisheard // the agent's text is the phrase, the caller's transcription is not
	ReasonSlip     // one STT step one digit off while every other witness agrees on the phrase
	ReasonUnjudged // the generator could not complete the caller-side check: not the agent's failure
	reasonEnd
)

var reasonNames = []string{
	"unknown", "none", "connect_failed", "hangup", "cancelled", "error", "connection_lost", "overrun",
	"late_transcript", "split", "no_answer", "timeout", "not_heard", "wrong_transcript", "underrun",
	"wrong_reply", "misheard", "slip", "unjudged",
}

func (r Reason) String() string { return name(reasonNames, int(r)) }

// Outcome classes r: understood (none), slip, unjudged, cancelled, or failed (every other reason).
func (r Reason) Outcome() Outcome {
	switch r {
	case ReasonNone:
		return OutcomeUnderstood
	case ReasonSlip:
		return OutcomeSlip
	case ReasonUnjudged:
		return OutcomeUnjudged
	case ReasonCancelled:
		return OutcomeCancelled
	}
	if r > ReasonNone && r < reasonEnd {
		return OutcomeFailed
	}
	return OutcomeUnknown
}

// Failed reports whether r is the agent's (or its network's) failure: not a slip, not unjudged,
// not cancelled.
func (r Reason) Failed() bool { return r.Outcome() == OutcomeFailed }

// FailureReasons lists every failure reason (those Failed) in priority order.
func FailureReasons() []Reason {
	var out []Reason
	for _, r := range Reasons() {
		if r.Failed() {
			out = append(out, r)
		}
	}
	return out
}

// Reasons lists every reason after ReasonNone in priority order, failures or not, for tallies
// that print each turn that was not understood.
func Reasons() []Reason {
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

// first returns the highest-priority reason among rs (failure or not), or ReasonNone.
func first(rs ...Reason) Reason {
	best := ReasonNone
	for _, r := range rs {
		if r > ReasonNone && r < reasonEnd && (best == ReasonNone || r < best) {
			best = r
		}
	}
	return best
}

// worst returns the highest-priority failure among rs, else the highest-priority other reason:
// a call that failed on one turn and was cancelled on another failed.
func worst(rs ...Reason) Reason {
	var failed []Reason
	for _, r := range rs {
		if r.Failed() {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		return first(failed...)
	}
	return first(rs...)
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

// Outcome classes a turn: understood, failed (the agent's, or its network's), a tolerable STT
// slip, unjudged (the generator's shortfall) or cancelled (the run stopped during it).
type Outcome int

const (
	OutcomeUnknown Outcome = iota
	OutcomeUnderstood
	OutcomeFailed
	OutcomeSlip
	OutcomeUnjudged
	OutcomeCancelled
)

var outcomeNames = []string{"unknown", "understood", "failed", "slip", "unjudged", "cancelled"}

func (o Outcome) String() string { return name(outcomeNames, int(o)) }

// ParseOutcome parses the String form of an Outcome.
func ParseOutcome(s string) (Outcome, error) {
	i, err := parse(outcomeNames, "outcome", s)
	return Outcome(i), err
}

// MarshalText writes the name.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads the name.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	*o = v
	return err
}

// Judged reports whether the turn counts in the step's understood fraction (not unjudged, not
// cancelled).
func (o Outcome) Judged() bool {
	return o == OutcomeUnderstood || o == OutcomeFailed || o == OutcomeSlip
}

// Basis names the witness the caller's ears were calibrated against.
type Basis int

const (
	BasisUnknown          Basis = iota
	BasisAgentText              // the agent's own reply text (RTVI bot-output, LiveKit transcription)
	BasisServerTranscript       // the agent's final transcript of the phrase (an echo's reply)
	BasisNone                   // the target exposes neither: the ears cannot be calibrated
)

var basisNames = []string{"unknown", "agent_text", "server_transcript", "none"}

func (b Basis) String() string { return name(basisNames, int(b)) }

// ParseBasis parses the String form of a Basis.
func ParseBasis(s string) (Basis, error) {
	i, err := parse(basisNames, "basis", s)
	return Basis(i), err
}

// MarshalText writes the name.
func (b Basis) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads the name.
func (b *Basis) UnmarshalText(t []byte) error {
	v, err := ParseBasis(string(t))
	*b = v
	return err
}
