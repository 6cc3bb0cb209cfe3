package stt

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func (m *Model) counts() (live, idle int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live, len(m.idle)
}

func TestConcurrentTranscribe(t *testing.T) {
	const bound = 3
	m := loadDefault(t, func(c *Config) { c.MaxDecoders = bound })
	phrases := accuracyPhrases[:8]
	pcms := make([][]int16, len(phrases))
	want := make([]string, len(phrases))
	for i, p := range phrases {
		pcms[i] = synth(t, "rms", p.text, wideband)
		want[i], _ = m.Transcribe(context.Background(), pcms[i]) // serial reference
	}
	var peak atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if l, _ := m.counts(); int64(l) > peak.Load() {
				peak.Store(int64(l))
			}
			time.Sleep(100 * time.Microsecond)
		}
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 3 {
				i := (g + k) % len(pcms)
				var got string
				var err error
				if k%2 == 0 {
					got, err = m.Transcribe(context.Background(), pcms[i])
				} else {
					got = transcribeStream(t, m, pcms[i])
				}
				if err != nil {
					t.Error(err)
				} else if got != want[i] {
					t.Errorf("goroutine %d: %q, serial gave %q", g, got, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	if p := peak.Load(); p > bound {
		t.Errorf("peak decoders %d > bound %d", p, bound)
	}
	if live, idle := m.counts(); live > bound || idle != live {
		t.Errorf("after run: live %d idle %d, bound %d", live, idle, bound)
	}
}

func TestWaitForDecoderHonoursCtx(t *testing.T) {
	m := loadDefault(t, func(c *Config) { c.MaxDecoders = 1 })
	held, err := m.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := m.Transcribe(ctx, make([]int16, 1600)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Transcribe while pool busy: err = %v, want deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("waited %v", d)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	s, err := m.NewStream(ctx2) // an idle stream holds no decoder; Finish waits for one
	if err != nil {
		t.Fatal(err)
	}
	s.Feed(make([]int16, 1600))
	go func() { time.Sleep(20 * time.Millisecond); cancel2() }()
	if _, err := s.Finish(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream.Finish while pool busy: err = %v, want canceled", err)
	}
	m.release(held, false)
	if _, err := m.Transcribe(context.Background(), make([]int16, 1600)); err != nil {
		t.Fatalf("after release: %v", err)
	}
	if live, _ := m.counts(); live != 1 {
		t.Errorf("live decoders %d, want 1", live)
	}
}

func TestCancelledCtx(t *testing.T) {
	m := loadDefault(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pcm := make([]int16, 3*SampleRate)
	if _, err := m.Transcribe(ctx, pcm); !errors.Is(err, context.Canceled) {
		t.Errorf("Transcribe: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	s, err := m.NewStream(ctx2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Feed(pcm[:320]); err != nil {
		t.Fatal(err)
	}
	cancel2()
	if err := s.Feed(pcm[:320]); !errors.Is(err, context.Canceled) {
		t.Errorf("Feed after cancel: %v", err)
	}
	if _, err := s.Finish(); !errors.Is(err, context.Canceled) {
		t.Errorf("Finish after cancel: %v", err)
	}
	if _, idle := m.counts(); idle != 1 {
		t.Errorf("decoder not returned: idle %d", idle)
	}
}

func TestStreamLifecycle(t *testing.T) {
	m := loadDefault(t, func(c *Config) { c.MaxDecoders = 1 })
	pcm := synth(t, "rms", "seven one three four", wideband)
	s, err := m.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Feed(pcm); err != nil {
		t.Fatal(err)
	}
	got, err := s.Finish()
	if err != nil || got != "7134" {
		t.Fatalf("Finish = %q, %v", got, err)
	}
	if _, err := s.Finish(); !errors.Is(err, ErrStreamClosed) {
		t.Errorf("second Finish: %v", err)
	}
	if err := s.Feed(pcm); !errors.Is(err, ErrStreamClosed) {
		t.Errorf("Feed after Finish: %v", err)
	}
	s.Close()
	s.Close()
	// Abandoned stream: Close returns the decoder and the next utterance starts clean.
	s2, err := m.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s2.Feed(synth(t, "rms", "nine nine nine", wideband))
	s2.Close()
	s2.Close()
	if got, err := m.Transcribe(context.Background(), pcm); err != nil || got != "7134" {
		t.Errorf("after abandoned stream: %q, %v", got, err)
	}
}

func TestModelClose(t *testing.T) {
	m, err := Load(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	held, err := m.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.NewStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	m.Close()
	if _, err := m.Transcribe(context.Background(), make([]int16, 160)); !errors.Is(err, ErrClosed) {
		t.Errorf("Transcribe after Close: %v", err)
	}
	if _, err := m.NewStream(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("NewStream after Close: %v", err)
	}
	s.Feed(make([]int16, 320))
	if _, err := s.Finish(); !errors.Is(err, ErrClosed) {
		t.Errorf("Finish after Close: %v", err)
	}
	if _, err := held.decode(make([]int16, 1600)); err != nil {
		t.Errorf("busy decoder outliving Close: %v", err)
	}
	m.release(held, false)
	if live, _ := m.counts(); live != 0 {
		t.Errorf("live decoders after Close: %d", live)
	}
}

func TestStreamTooLong(t *testing.T) {
	m := loadDefault(t, func(c *Config) { c.MaxUtterance = time.Second })
	s, _ := m.NewStream(context.Background())
	defer s.Close()
	if err := s.Feed(make([]int16, SampleRate)); err != nil {
		t.Fatal(err)
	}
	if err := s.Feed(make([]int16, 1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("Feed past limit: %v", err)
	}
	if _, err := s.Finish(); !errors.Is(err, ErrTooLong) {
		t.Errorf("Finish after overflow: %v", err)
	}
	if _, err := m.Transcribe(context.Background(), make([]int16, SampleRate+1)); !errors.Is(err, ErrTooLong) {
		t.Errorf("Transcribe past limit: %v", err)
	}
}

// TestCloseWhileBusy: Close racing with callers frees everything exactly once and only
// ever surfaces ErrClosed.
func TestCloseWhileBusy(t *testing.T) {
	m, err := Load(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pcm := synth(t, "rms", "four five zero one eight", wideband)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			for {
				if _, err := m.Transcribe(context.Background(), pcm); err != nil {
					if !errors.Is(err, ErrClosed) {
						t.Errorf("unexpected error: %v", err)
					}
					return
				}
			}
		})
	}
	time.Sleep(150 * time.Millisecond)
	m.Close()
	wg.Wait()
	if live, idle := m.counts(); live != 0 || idle != 0 {
		t.Errorf("after Close: live %d idle %d", live, idle)
	}
}

// TestNoTempFilesLeft: a Model that is never closed (the normal process-lifetime case) must
// not leave its dictionary on disk.
func TestNoTempFilesLeft(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	m := loadDefault(t, func(c *Config) { c.MaxDecoders = 3 })
	var held []*decoder
	for range 3 {
		d, err := m.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, d)
	}
	for _, d := range held {
		m.release(d, false)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in TMPDIR: %v", ents)
	}
}
