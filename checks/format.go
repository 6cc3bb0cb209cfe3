package checks

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/callfleet/callfleet/callers"
)

// FormatMs writes a latency as people read it: "231 ms" under a second, "2.41 s" above.
func FormatMs(v callers.Ms) string {
	if r := math.Round(float64(v)); math.Abs(r) < 1000 {
		return strconv.FormatFloat(r+0, 'f', -1, 64) + " ms" // +0 turns -0 into 0
	}
	return fmt.Sprintf("%.2f s", float64(v)/1000)
}

// FormatPct writes a fraction as a percentage, truncated (never rounded up to 100 %) to two decimals.
func FormatPct(f float64) string {
	p := math.Floor(f*10000+1e-6) / 100 // the epsilon keeps 0.29 from printing 28.99
	s := strconv.FormatFloat(p, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + " %"
}

// formatRate writes a threshold rate as given: 1, 0.5.
func formatRate(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
