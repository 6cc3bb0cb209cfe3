package frameclock

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestTicksInOrder(t *testing.T) {
	c := New(5 * time.Millisecond)
	s := c.Subscribe()
	defer s.Close()
	ctx := context.Background()
	var total int
	start := time.Now()
	for range 20 {
		n, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n < 1 {
			t.Fatalf("Next returned %d ticks", n)
		}
		total += n
	}
	// Drift-free: 20+ ticks of 5 ms cannot have taken less than 100 ms of clock time.
	if el := time.Since(start); el < time.Duration(total)*5*time.Millisecond-time.Millisecond {
		t.Errorf("%d ticks in %v: faster than the period", total, el)
	}
}

func TestSlowSubscriberCatchesUp(t *testing.T) {
	c := New(2 * time.Millisecond)
	s := c.Subscribe()
	defer s.Close()
	if _, err := s.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	n, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("after 30 ms asleep on a 2 ms clock Next reported %d ticks, want the missed ones counted", n)
	}
}

func TestManySubscribersSeeEachTick(t *testing.T) {
	c := New(3 * time.Millisecond)
	var wg sync.WaitGroup
	counts := make([]int, 8)
	for i := range counts {
		s := c.Subscribe()
		wg.Go(func() {
			defer s.Close()
			for counts[i] < 10 {
				n, err := s.Next(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				counts[i] += n
			}
		})
	}
	wg.Wait()
	for i, n := range counts {
		if n < 10 {
			t.Errorf("subscriber %d counted %d ticks", i, n)
		}
	}
}

func TestNextHonoursContext(t *testing.T) {
	c := New(time.Hour)
	s := c.Subscribe()
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on a cancelled context = %v, want DeadlineExceeded", err)
	}
}

// The clock's goroutine lives only while someone is subscribed, and restarts cleanly.
func TestGoroutineEndsWithLastSubscriber(t *testing.T) {
	base := settledGoroutines()
	c := New(time.Millisecond)
	for round := range 3 {
		a, b := c.Subscribe(), c.Subscribe()
		if _, err := a.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
		a.Close()
		a.Close() // idempotent
		if _, err := b.Next(context.Background()); err != nil {
			t.Fatalf("round %d: the clock stopped with a subscriber left: %v", round, err)
		}
		b.Close()
		// Close returns once the goroutine has closed done; it may take a moment more to exit.
		deadline := time.Now().Add(time.Second)
		for runtime.NumGoroutine() != base && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if g := runtime.NumGoroutine(); g != base {
			t.Fatalf("round %d: %d goroutines a second after the last Close, want %d", round, g, base)
		}
	}
}

// settledGoroutines waits for the goroutines of earlier tests to finish exiting, then counts.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(5 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			return n
		}
		n = m
	}
	return n
}
