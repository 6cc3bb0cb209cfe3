package stt

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchAudio(b *testing.B) [][]int16 {
	var pcms [][]int16
	for _, p := range accuracyPhrases[:10] {
		pcms = append(pcms, synth(b, "rms", p.text, wideband))
	}
	return pcms
}

// benchCPU reports process CPU seconds spent per second of audio decoded.
func benchCPU(b *testing.B, decode func(m *Model, pcm []int16)) {
	m := loadDefault(b, nil)
	pcms := benchAudio(b)
	decode(m, pcms[0]) // warm the pool outside the measurement
	var samples int
	b.ResetTimer()
	start := cpuTime(b)
	for i := 0; b.Loop(); i++ {
		pcm := pcms[i%len(pcms)]
		decode(m, pcm)
		samples += len(pcm)
	}
	cpu := cpuTime(b) - start
	b.ReportMetric(cpu.Seconds()/(float64(samples)/SampleRate), "cpu-s/audio-s")
}

func BenchmarkTranscribe(b *testing.B) {
	benchCPU(b, func(m *Model, pcm []int16) {
		if _, err := m.Transcribe(context.Background(), pcm); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkStream(b *testing.B) {
	benchCPU(b, func(m *Model, pcm []int16) { transcribeStream(b, m, pcm) })
}

// rssBytes reads resident memory from /proc (Linux only).
func rssBytes(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		b.Skip("no /proc/self/statm")
	}
	pages, _ := strconv.ParseInt(strings.Fields(string(data))[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// BenchmarkDecoderMemory reports the resident memory each pooled decoder adds, and its start-up time.
func BenchmarkDecoderMemory(b *testing.B) {
	const n = 8
	for b.Loop() {
		m := loadDefault(b, func(c *Config) { c.MaxDecoders = n + 1 })
		first, err := m.acquire(context.Background()) // the one Load built
		if err != nil {
			b.Fatal(err)
		}
		before := rssBytes(b)
		t0 := time.Now()
		ds := make([]*decoder, n)
		for i := range ds {
			d, err := m.acquire(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			ds[i] = d
		}
		elapsed := time.Since(t0)
		// Run each once so lazily touched pages count too.
		pcm := synth(b, "rms", "seven one three four", wideband)
		for _, d := range ds {
			if _, err := d.decode(pcm); err != nil {
				b.Fatal(err)
			}
		}
		after := rssBytes(b)
		for _, d := range append(ds, first) {
			m.release(d, false)
		}
		m.Close()
		b.ReportMetric(float64(after-before)/n/(1<<20), "MB/decoder")
		b.ReportMetric(float64(elapsed.Milliseconds())/n, "ms/decoder")
	}
}
