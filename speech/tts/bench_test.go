package tts

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user+system CPU time of this process and its finished children (espeak-ng):
// unlike ns/op it does not grow when other processes compete for the cores, and it shows whether
// a second goroutine adds work or just waits.
func cpuTime(tb testing.TB) time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			tb.Fatalf("getrusage: %v", err)
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}

// reportCPU adds cpu-ms/op and, given the audio produced, cpu-ms/audio-s and wall ms/audio-s.
func reportCPU(b *testing.B, start time.Duration, audioSeconds float64) {
	cpu := cpuTime(b) - start
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	if audioSeconds > 0 {
		b.ReportMetric(b.Elapsed().Seconds()*1e3/audioSeconds, "ms/audio-s")
		b.ReportMetric(float64(cpu.Microseconds())/1e3/audioSeconds, "cpu-ms/audio-s")
	}
}
