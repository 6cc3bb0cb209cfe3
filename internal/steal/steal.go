// Package steal reads how much of the machine's CPU time the hypervisor took away (the "steal"
// column of vmstat). On a cloud VM, steal pauses every thread of the guest at once, so a load
// generator's send lateness can be the host's doing rather than its own; the report shows it
// beside the generator's health so the two can be told apart.
package steal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
)

// Sample is the machine's CPU time counters at one moment, in clock ticks.
type Sample struct {
	Total, Steal uint64
	OK           bool // false where /proc/stat is missing (not Linux) or unreadable
}

// Read samples /proc/stat; a machine without it gives a Sample with OK false.
func Read() Sample {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Sample{}
	}
	s, err := Parse(b)
	if err != nil {
		return Sample{}
	}
	return s
}

// Parse reads the aggregate "cpu" line of a /proc/stat text: user nice system idle iowait irq
// softirq steal [guest guest_nice]. Guest time is already inside user and nice, so it is not added.
func Parse(b []byte) (Sample, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || string(f[0]) != "cpu" {
			continue
		}
		if len(f) < 9 {
			return Sample{}, fmt.Errorf("/proc/stat cpu line has %d fields, want at least 9", len(f))
		}
		var s Sample
		for i := 1; i <= 8; i++ {
			v, err := strconv.ParseUint(string(f[i]), 10, 64)
			if err != nil {
				return Sample{}, fmt.Errorf("/proc/stat cpu field %d: %w", i, err)
			}
			if v > math.MaxUint64-s.Total {
				return Sample{}, errors.New("/proc/stat cpu counters overflow")
			}
			s.Total += v
			if i == 8 {
				s.Steal = v
			}
		}
		s.OK = true
		return s, nil
	}
	return Sample{}, errors.New("/proc/stat has no cpu line")
}

// Fraction is the share of the machine's CPU time stolen between two samples, and false when
// either sample is missing or no time passed.
func Fraction(from, to Sample) (float64, bool) {
	if !from.OK || !to.OK || to.Total <= from.Total || to.Steal < from.Steal {
		return 0, false
	}
	return float64(to.Steal-from.Steal) / float64(to.Total-from.Total), true
}
