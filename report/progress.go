package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/checks"
)

// Figure is one named value of a progress line, such as a running p95.
type Figure struct {
	Name  string
	Value callers.Ms
}

// ProgressLine is one line of plain progress (no terminal control), for logs and dumb terminals:
// "step 2 N=4 01:42 calls 4/4 turns ok 31 failed 1 | p95 speech_end_to_reply 1.93 s".
func ProgressLine(step, n int, elapsed time.Duration, callsUp, ok, failed int, p95s ...Figure) string {
	var b strings.Builder
	secs := max(0, int(elapsed.Round(time.Second)/time.Second))
	fmt.Fprintf(&b, "step %d N=%d %02d:%02d calls %d/%d turns ok %d failed %d", step, n, secs/60, secs%60, callsUp, n, ok, failed)
	for i, f := range p95s {
		sep := ", "
		if i == 0 {
			sep = " | p95 "
		}
		fmt.Fprintf(&b, "%s%s %s", sep, f.Name, checks.FormatMs(f.Value))
	}
	return b.String()
}
