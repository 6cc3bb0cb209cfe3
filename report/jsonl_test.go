package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"go.uber.org/goleak"
)

// countingWriter counts Write calls, to check one write per record.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

func TestJSONLConcurrent(t *testing.T) {
	defer goleak.VerifyNone(t)
	path := filepath.Join(t.TempDir(), TurnsFileName)
	j, err := CreateJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	steps := synthSteps()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for _, d := range steps {
			for _, tr := range d.Turns {
				wg.Go(func() {
					if err := j.WriteTurn(tr); err != nil {
						t.Error(err)
					}
				})
			}
			for _, c := range d.Calls {
				wg.Go(func() {
					if err := j.WriteCall(c); err != nil {
						t.Error(err)
					}
				})
			}
		}
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writers did not finish")
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	turns, calls, err := ReadJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	wantTurns, wantCalls := 0, 0
	for _, d := range steps {
		wantTurns += len(d.Turns)
		wantCalls += len(d.Calls)
	}
	if len(turns) != wantTurns || len(calls) != wantCalls {
		t.Errorf("read %d turns and %d calls, want %d and %d", len(turns), len(calls), wantTurns, wantCalls)
	}
}

func TestJSONLRoundTrip(t *testing.T) {
	d := synthSteps()[3]
	var w countingWriter
	j := NewJSONL(&w)
	for _, tr := range d.Turns {
		if err := j.WriteTurn(tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.WriteCall(d.Calls[6]); err != nil {
		t.Fatal(err)
	}
	if w.writes != len(d.Turns)+1 {
		t.Errorf("%d writes for %d records", w.writes, len(d.Turns)+1)
	}
	first, _, _ := strings.Cut(w.buf.String(), "\n")
	if !strings.HasPrefix(first, `{"kind":"turn","schema":1,`) {
		t.Errorf("first line %s", first)
	}
	turns, calls, err := DecodeJSONL(&w.buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].EndedBy != "agent" || len(turns) != len(d.Turns) {
		t.Fatalf("read %d turns, calls %+v", len(turns), calls)
	}
	late := turns[1]
	if late.LateTranscripts[0] != d.Turns[1].LateTranscripts[0] || late.Marks.ReplyStart != nil ||
		*turns[0].Marks.SpeechEnd != *d.Turns[0].Marks.SpeechEnd || !turns[0].Wall.Equal(d.Turns[0].Wall) {
		t.Errorf("records changed on the way: %+v", late)
	}
}

func TestDecodeJSONL(t *testing.T) {
	turn := `{"kind":"turn","schema":1,"call":1,"phrase":"7134","transcript_channel":true,"marks":{}}`
	call := `{"kind":"call","schema":1,"call":1,"connected":true,"ended_by":"caller"}`
	run := `{"kind":"run","schema":1,"config":{"target":"x","steps":[1]},"started":"2026-10-08T15:55:00Z"}`
	step := `{"kind":"step","schema":1,"step":0,"n":1}`
	tests := []struct {
		name         string
		in           string
		turns, calls int
		skipped      []int   // line numbers
		errs         []error // what each skipped line wraps
	}{
		{"empty", "", 0, 0, nil, nil},
		{"records", turn + "\n" + call + "\n", 1, 1, nil, nil},
		{"blank lines", "\n" + turn + "\n\n" + call + "\n\n", 1, 1, nil, nil},
		{"complete last line without newline", turn + "\n" + call, 1, 1, nil, nil},
		{"truncated last line", turn + "\n" + call[:30], 1, 0, []int{2}, []error{ErrCorrupt}},
		{"truncated mid-string", turn + "\n" + turn[:20], 1, 0, []int{2}, []error{ErrCorrupt}},
		{"corrupt middle line", turn + "\n" + call[:30] + "\n" + call + "\n", 1, 1, []int{2}, []error{ErrCorrupt}},
		{"half line glued to the next", turn + "\n" + call[:30] + call + "\n" + turn + "\n", 2, 0, []int{2}, []error{ErrCorrupt}},
		{"garbage first line", "\x00\x00\xff\n" + turn + "\n", 1, 0, []int{1}, []error{ErrCorrupt}},
		{"unknown kind", turn + "\n" + `{"kind":"state"}` + "\n" + call + "\n", 1, 1, []int{2}, []error{ErrKind}},
		{"no kind", `{"schema":1}` + "\n", 0, 0, []int{1}, []error{ErrKind}},
		{"newer schema", `{"kind":"turn","schema":99}` + "\n" + turn, 1, 0, []int{1}, []error{ErrSchema}},
		{"wrong type", `{"kind":"turn","schema":1,"call":"x"}` + "\n", 0, 0, []int{1}, []error{ErrCorrupt}},
		{"several bad", "x\n" + turn + "\ny\n" + call + "\nz", 1, 1, []int{1, 3, 5}, []error{ErrCorrupt, ErrCorrupt, ErrCorrupt}},
		{"run and step lines", run + "\n" + step + "\n" + turn + "\n", 1, 0, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := DecodeRecords(strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("err %v: a bad line is skipped, not an error", err)
			}
			if len(recs.Turns) != tc.turns || len(recs.Calls) != tc.calls {
				t.Errorf("got %d turns %d calls, want %d %d", len(recs.Turns), len(recs.Calls), tc.turns, tc.calls)
			}
			if len(recs.Skipped) != len(tc.skipped) {
				t.Fatalf("skipped %+v, want lines %v", recs.Skipped, tc.skipped)
			}
			for i, s := range recs.Skipped {
				if s.Line != tc.skipped[i] || !errors.Is(s.Err, tc.errs[i]) {
					t.Errorf("skipped line %d (%v), want line %d (%v)", s.Line, s.Err, tc.skipped[i], tc.errs[i])
				}
			}
			if note := recs.SkippedNote(); (note == "") != (len(tc.skipped) == 0) {
				t.Errorf("note %q for %d skipped", note, len(tc.skipped))
			}
			turns, calls, err := DecodeJSONL(strings.NewReader(tc.in))
			if err != nil || len(turns) != tc.turns || len(calls) != tc.calls {
				t.Errorf("DecodeJSONL: %d turns %d calls, %v", len(turns), len(calls), err)
			}
		})
	}
}

func TestDecodeRunLines(t *testing.T) {
	var buf bytes.Buffer
	j := NewJSONL(&buf)
	at := time.Date(2026, 10, 8, 15, 55, 0, 0, time.UTC)
	cpu := 12.5
	lines := []error{
		j.WriteRun(RunLine{Config: RunConfig{Target: "t", Steps: []int{1, 2}}, Machine: Machine{Hostname: "h"}, Started: at}),
		j.WriteStep(StepLine{Step: 1, N: 2, Start: at, Window: [2]time.Time{at, at.Add(time.Minute)}}),
		j.WriteTurn(callers.Turn{Step: 1, Phrase: "1234"}),
		j.WriteStepEnd(StepEndLine{Step: 1, GeneratorCPU: 0.25, MachineSteal: -1, Stopped: true}),
		j.WriteAgent(AgentLine{Step: 1, AgentCPUMilli: cpu, AgentRSSMiBPerCall: 3}),
		j.WriteRunEnd(RunEndLine{Ended: at.Add(time.Hour), Stopped: &Stop{Reason: StopInterrupted}}),
	}
	if err := errors.Join(lines...); err != nil {
		t.Fatal(err)
	}
	recs, err := DecodeRecords(&buf)
	if err != nil || len(recs.Skipped) > 0 {
		t.Fatalf("%v, skipped %v", err, recs.Skipped)
	}
	switch {
	case recs.Run == nil || recs.Run.Config.Target != "t" || recs.Run.Machine.Hostname != "h" || !recs.Run.Started.Equal(at) || recs.Run.Schema != callers.Schema:
		t.Errorf("run line %+v", recs.Run)
	case len(recs.Steps) != 1 || recs.Steps[0].N != 2 || !recs.Steps[0].Window[1].Equal(at.Add(time.Minute)):
		t.Errorf("step lines %+v", recs.Steps)
	case len(recs.StepEnds) != 1 || !recs.StepEnds[0].Stopped || recs.StepEnds[0].MachineSteal != -1:
		t.Errorf("step end lines %+v", recs.StepEnds)
	case len(recs.Agent) != 1 || recs.Agent[0].AgentCPUMilli != cpu || recs.Agent[0].AgentRSSMiBPerCall != 3:
		t.Errorf("agent lines %+v", recs.Agent)
	case recs.RunEnd == nil || recs.RunEnd.Stopped.Reason != StopInterrupted || len(recs.Turns) != 1:
		t.Errorf("run end %+v, %d turns", recs.RunEnd, len(recs.Turns))
	}
}

// failingReader returns its data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestDecodeReadError(t *testing.T) {
	eio := errors.New("input/output error")
	recs, err := DecodeRecords(&failingReader{data: []byte(`{"kind":"turn","schema":1}` + "\n" + `{"kind":"tu`), err: eio})
	if !errors.Is(err, eio) || len(recs.Turns) != 1 {
		t.Errorf("read error: %v with %d turns; want the error and the turn before it", err, len(recs.Turns))
	}
}

// failAfter accepts n bytes, then fails every write with err (a short write at the edge).
type failAfter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(p) > f.n {
		k := f.n
		f.buf.Write(p[:k])
		f.n = 0
		return k, f.err
	}
	f.n -= len(p)
	return f.buf.Write(p)
}

func TestJSONLWriteFailure(t *testing.T) {
	tests := []struct {
		name  string
		after float64 // records' worth of bytes accepted before the failure
		err   error   // the writer's error
		ok    int     // records written before it
	}{
		{"disk full at once", 0, syscall.ENOSPC, 0},
		{"disk full mid-record", 1.5, syscall.ENOSPC, 1},
		{"short write without an error", 1.5, nil, 1},
		{"I/O error at a record's end", 8, syscall.EIO, 8},
	}
	var one bytes.Buffer // every record below is this long
	NewJSONL(&one).WriteTurn(callers.Turn{Call: 10, Phrase: "71345"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &failAfter{n: int(tc.after * float64(one.Len())), err: tc.err}
			j := NewJSONL(w)
			var first error
			written := 0
			for i := range 20 {
				err := j.WriteTurn(callers.Turn{Call: 10 + i, Phrase: "71345"})
				if err == nil {
					written++
				} else if first == nil {
					first = err
				}
			}
			if written != tc.ok || !errors.Is(first, ErrWrite) || (tc.err != nil && !errors.Is(first, tc.err)) {
				t.Fatalf("%d written, first error %v; want %d and ErrWrite wrapping %v", written, first, tc.ok, tc.err)
			}
			if !errors.Is(j.Err(), ErrWrite) || j.WriteCall(callers.CallResult{}) == nil {
				t.Errorf("Err() = %v after a failed write, and later writes must fail", j.Err())
			}
			// What reached the disk reads back: the records written, the half line skipped.
			recs, err := DecodeRecords(&w.buf)
			if err != nil || len(recs.Turns) != tc.ok || len(recs.Skipped) > 1 {
				t.Errorf("read back %d turns, skipped %v, %v", len(recs.Turns), recs.Skipped, err)
			}
		})
	}
}

// TestJSONLDevFull writes to /dev/full, which fails every write with ENOSPC.
func TestJSONLDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer f.Close()
	j := NewJSONL(f)
	if err := j.WriteTurn(callers.Turn{Phrase: "1234"}); !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrWrite) {
		t.Errorf("write to /dev/full: %v, want ErrWrite wrapping ENOSPC", err)
	}
}

func TestDecodeLongLine(t *testing.T) {
	long := fmt.Sprintf(`{"kind":"turn","schema":1,"heard":%q}`, strings.Repeat("seven ", 50000))
	turns, _, err := DecodeJSONL(strings.NewReader(long + "\n"))
	if err != nil || len(turns) != 1 {
		t.Errorf("a 300 kB line: %d turns, %v", len(turns), err)
	}
}

func TestJSONLFileRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), TurnsFileName)
	j, err := CreateJSONL(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateJSONL(path); !errors.Is(err, os.ErrExist) {
		t.Errorf("second create: %v, want os.ErrExist", err)
	}
	if err := j.WriteTurn(callers.Turn{Phrase: "1234"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := j.WriteCall(callers.CallResult{}); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
	turns, _, err := ReadJSONL(path)
	if err != nil || len(turns) != 1 || turns[0].Schema != callers.Schema {
		t.Errorf("read back %+v, %v", turns, err)
	}
	if _, _, err := ReadJSONL(path + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
