package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	tests := []struct {
		name         string
		in           string
		turns, calls int
		err          error
	}{
		{"empty", "", 0, 0, nil},
		{"records", turn + "\n" + call + "\n", 1, 1, nil},
		{"blank lines", "\n" + turn + "\n\n" + call + "\n\n", 1, 1, nil},
		{"complete last line without newline", turn + "\n" + call, 1, 1, nil},
		{"truncated last line", turn + "\n" + call[:30], 1, 0, nil},
		{"truncated mid-string", turn + "\n" + turn[:20], 1, 0, nil},
		{"corrupt middle line", turn + "\n" + call[:30] + "\n" + call + "\n", 1, 0, ErrCorrupt},
		{"unknown kind", turn + "\n" + `{"kind":"state"}` + "\n", 1, 0, ErrKind},
		{"no kind", `{"schema":1}` + "\n", 0, 0, ErrKind},
		{"newer schema", `{"kind":"turn","schema":99}` + "\n", 0, 0, ErrSchema},
		{"wrong type", `{"kind":"turn","schema":1,"call":"x"}` + "\n", 0, 0, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turns, calls, err := DecodeJSONL(strings.NewReader(tc.in))
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Errorf("err %v, want %v", err, tc.err)
			}
			if len(turns) != tc.turns || len(calls) != tc.calls {
				t.Errorf("got %d turns %d calls, want %d %d", len(turns), len(calls), tc.turns, tc.calls)
			}
		})
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
