package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers/listen"
)

// fixedEars reports the stats it is given; nothing is heard through it.
type fixedEars struct {
	listen.Ears
	s *listen.EarsStats
}

func (f fixedEars) Stats() listen.EarsStats { return *f.s }

func TestJudgingForecast(t *testing.T) {
	s := &listen.EarsStats{Slots: 2}
	j := newJudging(fixedEars{s: s})
	t0 := time.Unix(0, 0)
	if w := j.start(1000, t0); w != "" {
		t.Errorf("a forecast with nothing measured: %q", w)
	}
	// 10 callers for 10 s took 5 decode-seconds: 5 % of a decoder each, so 2 decoders at 70 %
	// headroom judge 28 callers.
	s.Started, s.DecodeTime = 50, 5*time.Second
	j.end(10, t0.Add(10*time.Second))
	if got := j.capacity(); got != 28 {
		t.Fatalf("capacity %d, want 28", got)
	}
	if w := j.start(20, t0.Add(10*time.Second)); w != "" {
		t.Errorf("20 callers within the ears' reach, forecast %q", w)
	}
	w := j.start(40, t0.Add(20*time.Second))
	for _, want := range []string{"about 28 callers", "2 decoders", "100 ms", "N=40", "--stt-url"} {
		if !strings.Contains(w, want) {
			t.Errorf("forecast %q lacks %q", w, want)
		}
	}
	if newJudging(nil).start(5, t0) != "" {
		t.Error("no ears, a forecast")
	}
}
