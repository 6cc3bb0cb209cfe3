package scenarios

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	agent "github.com/callfleet/callfleet/agent-under-test"
	"github.com/callfleet/callfleet/agent-under-test/llm"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/callfleet/callfleet/callers/twilio"
	"github.com/callfleet/callfleet/callers/webrtc"
	"github.com/callfleet/callfleet/checks"
	"github.com/callfleet/callfleet/report"
	"github.com/callfleet/callfleet/speech"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/speech/stt"
	"github.com/callfleet/callfleet/speech/tts"
)

func TestSplitVerdict(t *testing.T) {
	tests := []struct {
		k, K int
		want string
	}{{0, 4, "one turn"}, {2, 4, "2 of 4 split"}, {4, 4, "split"}, {0, 0, "-"}, {1, 1, "split"}}
	for _, tt := range tests {
		if got := SplitVerdict(tt.k, tt.K); got != tt.want {
			t.Errorf("SplitVerdict(%d, %d) = %q, want %q", tt.k, tt.K, got, tt.want)
		}
	}
}

func TestTurnsHeard(t *testing.T) {
	tests := []struct {
		name string
		turn callers.Turn
		n    int
		by   string
	}{
		{"one final", callers.Turn{TranscriptChannel: true, ServerTranscripts: []string{"seven one three four"}}, 1, DecidedByTranscripts},
		{"an empty final ends a turn too", callers.Turn{TranscriptChannel: true, ServerTranscripts: []string{"", "three four"}}, 2, DecidedByTranscripts},
		{"late finals count", callers.Turn{TranscriptChannel: true, ServerTranscripts: []string{"71"}, LateTranscripts: []string{"345"}}, 2, DecidedByTranscripts},
		{"no channel: replies", callers.Turn{Replies: 2}, 2, DecidedByReplies},
	}
	for _, tt := range tests {
		if n, by := TurnsHeard(tt.turn); n != tt.n || by != tt.by {
			t.Errorf("%s: %d by %s, want %d by %s", tt.name, n, by, tt.n, tt.by)
		}
	}
}

func TestSummarizeProbe(t *testing.T) {
	ms := func(v float64) *callers.Ms { m := callers.Ms(v); return &m }
	turn := func(pause float64, finals int, wait float64) callers.Turn {
		tr := callers.Turn{TranscriptChannel: true, Pause: ms(pause),
			Marks: callers.Marks{SpeechEnd: ms(1000), Transcript: ms(1000 + wait)}}
		for range finals {
			tr.ServerTranscripts = append(tr.ServerTranscripts, "x")
		}
		return tr
	}
	turns := []callers.Turn{turn(300, 1, 800), turn(300, 1, 820), turn(500, 2, 900), turn(500, 1, 700),
		turn(700, 2, 750), turn(700, 2, 760), turn(700, 0, 0)}
	s := SummarizeProbe([]time.Duration{700 * time.Millisecond, 300 * time.Millisecond, 500 * time.Millisecond}, turns)
	var got []string
	for _, p := range s.Pauses {
		got = append(got, p.Verdict)
	}
	if strings.Join(got, "|") != "one turn|1 of 2 split|split" || s.Pauses[2].Undecided != 1 {
		t.Errorf("verdicts %q, pauses %+v", got, s.Pauses)
	}
	if s.ShortestSplit == nil || *s.ShortestSplit != 500 || s.Wait.N != 6 {
		t.Errorf("shortest split %v, wait %+v", s.ShortestSplit, s.Wait)
	}
	if one, split := report.OneTurnPauses(s.Pauses), report.SplitPauses(s.Pauses); one != "300, 500 in 1 of 2" || split != "500 in 1 of 2, and 700" {
		t.Errorf("one turn %q, split %q", one, split)
	}
}

func TestParseSweep(t *testing.T) {
	base := AgentSetting{MinSilence: 1100 * time.Millisecond, GateHold: 400 * time.Millisecond}
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"min-silence=1300ms,1100ms;gate-hold=1000ms,400ms", "1300/1000 1300/400 1100/1000 1100/400", false},
		{"min-silence=800ms", "800/400", false},
		{"1300/1000, 1.1s/400", "1300/1000 1100/400", false},
		{"min-silence=abc", "", true},
		{"volume=3", "", true},
		{"1300", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		got, err := ParseSweep(tt.in, base)
		if (err != nil) != tt.err || (err != nil && !errors.Is(err, ErrSweep)) {
			t.Errorf("%q: error %v", tt.in, err)
			continue
		}
		var names []string
		for _, s := range got {
			names = append(names, s.Name())
		}
		if strings.Join(names, " ") != tt.want {
			t.Errorf("%q: %v, want %s", tt.in, names, tt.want)
		}
	}
}

func TestProbePlan(t *testing.T) {
	p := DefaultProbePlan()
	p.Pauses, p.Step = []time.Duration{900 * time.Millisecond, 300 * time.Millisecond}, 2
	calls := ProbeCalls(p)
	if len(calls) != 8 || calls[0].Call != 0 || calls[0].Split != 300*time.Millisecond || calls[7].Split != 900*time.Millisecond ||
		calls[7].Call != 7 || calls[7].Step != 2 {
		t.Errorf("calls %+v", calls)
	}
	bad := ProbePlan{Pauses: []time.Duration{0, time.Second, time.Second}}
	errs := bad.Validate()
	if len(errs) != 6 {
		t.Errorf("%d errors: %v", len(errs), errs)
	}
	for _, err := range errs {
		if !errors.Is(err, ErrScenario) {
			t.Errorf("%v is not ErrScenario", err)
		}
	}
}

// The reference agent's end of turn: a pause splits iff the silence it sees is at least
// MinSilence+GateHold. Against it, the probe must find a short pause one turn and a long one two,
// and a longer setting must tolerate longer pauses and wait longer.
func TestProbeAgainstReferenceAgent(t *testing.T) {
	fx := loadFixtures(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// Split points (MinSilence+GateHold) at 500, 1000 and 1500 ms; every pause is 250 ms or more
	// away from each, so the answer is known by construction.
	settings := []AgentSetting{{300 * time.Millisecond, 200 * time.Millisecond},
		{800 * time.Millisecond, 200 * time.Millisecond}, {1300 * time.Millisecond, 200 * time.Millisecond}}
	plan := DefaultProbePlan()
	plan.Pauses = []time.Duration{200 * time.Millisecond, 750 * time.Millisecond, 1250 * time.Millisecond, 2000 * time.Millisecond}
	plan.Conversations, plan.Parallel, plan.Seed = 2, 8, 3
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	var got []report.ProbeSetting
	for i, set := range settings {
		cfg := agent.DefaultConfig()
		cfg.Pipeline.Turn.MinSilence, cfg.Pipeline.Turn.GateHold = set.MinSilence, set.GateHold
		a := startAgent(t, fx, cfg)
		plan.Step = i
		var steps stepLog
		s, turns := RunProbe(ctx, ProbeSpec{Setting: &set, Dialer: a.twilio(), Pool: fx.pool(t, pool.CodecMulaw), STT: listen.ModelEars(fx.model), Plan: plan,
			Hooks: steps.hooks()})
		a.stop()
		steps.check(t, plan)
		for _, p := range s.Pauses {
			t.Logf("%s: %v pause %s (%d undecided), wait %v/%v", s.Name, p.Pause, p.Verdict, p.Undecided, p.Wait.P50, p.Wait.P95)
		}
		checkProbeTurns(t, s, turns)
		got = append(got, s)
	}
	want := [][]string{{"one turn", "split", "split", "split"}, {"one turn", "one turn", "split", "split"},
		{"one turn", "one turn", "one turn", "split"}}
	for i, s := range got {
		for j, p := range s.Pauses {
			if p.Verdict != want[i][j] || p.Turns != plan.Conversations {
				t.Errorf("%s, %v pause: %s (%d of %d decided), want %s", s.Name, p.Pause, p.Verdict, p.Turns, plan.Conversations, want[i][j])
			}
		}
	}
	// The seed's shape: a longer min silence tolerates longer pauses, and the wait grows with it.
	for i := 1; i < len(got); i++ {
		if got[i].Wait.P50 <= got[i-1].Wait.P50 {
			t.Errorf("wait p50 %v at %s, not above %v at %s", got[i].Wait.P50, got[i].Name, got[i-1].Wait.P50, got[i-1].Name)
		}
		if a, b := shortest(got[i]), shortest(got[i-1]); a <= b {
			t.Errorf("shortest split %v at %s, not above %v at %s", a, got[i].Name, b, got[i-1].Name)
		}
	}
}

// checkProbeTurns judges each probe turn as a ramp's: carrying the caller's transcription of the
// reply, a turn the agent kept whole is understood, and one it cut in two is not (split, or what
// the agent's 4-5 digit grammar made of the halves: nothing, or other digits).
func checkProbeTurns(t *testing.T, s report.ProbeSetting, turns []callers.Turn) {
	t.Helper()
	verdict := map[callers.Ms]string{}
	for _, p := range s.Pauses {
		verdict[p.Pause] = p.Verdict
	}
	understood := 0
	defer func() {
		if understood == 0 {
			t.Errorf("%s: no probe turn understood", s.Name)
		}
	}()
	for _, tr := range turns {
		if tr.Pause == nil {
			t.Errorf("%s: call %d turn %d has no pause", s.Name, tr.Call, tr.Turn)
			continue
		}
		v := checks.Turn(tr)
		if tr.Marks.ReplyEnd != nil && tr.Heard == "" {
			t.Errorf("%s, %v pause, call %d: the reply was not transcribed", s.Name, *tr.Pause, tr.Call)
		}
		switch verdict[*tr.Pause] {
		case "one turn":
			// An underrun is the caller's playout stalling on a busy machine (8 calls under -race on
			// two cores); the turn names it, and any other failure is the probe's.
			if !v.Understood && v.Reason != checks.ReasonUnderrun {
				t.Errorf("%s, %v pause, call %d: %s (said %s, heard %q, server %q), want understood",
					s.Name, *tr.Pause, tr.Call, v.Reason, tr.Phrase, tr.Heard, tr.ServerTranscripts)
			}
			if v.Understood {
				understood++
			}
		case "split":
			if v.Understood {
				t.Errorf("%s, %v pause, call %d: understood (server %q), want a failure", s.Name, *tr.Pause, tr.Call, tr.ServerTranscripts)
			}
		}
	}
}

// stepLog keeps a probe's step events.
type stepLog struct {
	mu           sync.Mutex
	starts, ends []StepSchedule
	turns        map[int]int // by step index: turns in its StepResult
}

func (l *stepLog) hooks() Hooks {
	return Hooks{
		StepStart: func(s StepSchedule, _ time.Time) { l.mu.Lock(); l.starts = append(l.starts, s); l.mu.Unlock() },
		StepEnd: func(r StepResult) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.ends = append(l.ends, r.Schedule)
			if l.turns == nil {
				l.turns = map[int]int{}
			}
			l.turns[r.Schedule.Index] = len(r.Turns)
		},
	}
}

// check holds each pause to be one step, started once and ended once with its calls' turns.
func (l *stepLog) check(t *testing.T, p ProbePlan) {
	t.Helper()
	if len(l.starts) != len(p.Pauses) || len(l.ends) != len(p.Pauses) {
		t.Fatalf("%d step starts and %d ends for %d pauses", len(l.starts), len(l.ends), len(p.Pauses))
	}
	for k := range p.Pauses {
		want := ProbeStep(p, k)
		if !slices.ContainsFunc(l.starts, func(s StepSchedule) bool {
			return s.Index == want.Index && s.FirstCall == want.FirstCall && s.N == want.N
		}) ||
			l.turns[want.Index] != p.Conversations*p.Turns {
			t.Errorf("pause %d: step %+v not started, or ended with %d turns", k, want, l.turns[want.Index])
		}
	}
}

func shortest(s report.ProbeSetting) callers.Ms {
	if s.ShortestSplit == nil {
		return 1e9 // nothing split: it tolerates every pause probed
	}
	return *s.ShortestSplit
}

// fixtures are the STT model and caller pools every test against the reference agent shares.
type fixtures struct {
	model *stt.Model
	voice tts.Voice
	mu    sync.Mutex
	pools map[pool.Codec]*pool.Pool
}

var (
	fxOnce sync.Once
	fx     *fixtures
	fxErr  error
)

func loadFixtures(t *testing.T) *fixtures {
	t.Helper()
	fxOnce.Do(func() {
		f := &fixtures{pools: map[pool.Codec]*pool.Pool{}}
		if f.model, fxErr = stt.Load(stt.DefaultConfig()); fxErr != nil {
			return
		}
		f.voice, fxErr = tts.ByName(speech.DefaultCallerVoice)
		fx = f
	})
	if fxErr != nil {
		t.Fatal(fxErr)
	}
	return fx
}

func (f *fixtures) pool(t *testing.T, codec pool.Codec) *pool.Pool {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.pools[codec]; ok {
		return p
	}
	p, err := pool.Build(context.Background(), pool.VoiceSource{Voice: f.voice},
		pool.Options{Size: 8, Seed: 7, Codecs: []pool.Codec{codec}, LeadIn: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.pools[codec] = p
	return p
}

// refAgent is the reference agent on loopback.
type refAgent struct {
	t    *testing.T
	srv  *agent.Server
	hs   *httptest.Server
	once sync.Once
	rtc  *webrtc.Dialer
}

func startAgent(t *testing.T, f *fixtures, cfg agent.Config) *refAgent {
	t.Helper()
	voice, err := tts.ByName(speech.DefaultAgentVoice)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := agent.New(cfg, f.model, llm.Repeat{}, voice, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &refAgent{t: t, srv: srv, hs: httptest.NewServer(srv)}
	t.Cleanup(a.stop)
	return a
}

func (a *refAgent) twilio() callers.Dialer {
	return &twilio.Dialer{URL: "ws" + strings.TrimPrefix(a.hs.URL, "http") + "/twilio/ws", EventsURL: a.hs.URL + "/calls/{callSid}/events"}
}

func (a *refAgent) webrtc() callers.Dialer {
	d, err := webrtc.NewDialer(webrtc.Config{URL: a.hs.URL + "/api/offer"})
	if err != nil {
		a.t.Fatal(err)
	}
	a.rtc = d
	return d
}

func (a *refAgent) stop() {
	a.once.Do(func() {
		if a.rtc != nil {
			a.rtc.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a.srv.Shutdown(ctx)
		a.hs.Close()
	})
}
