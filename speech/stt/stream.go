package stt

import (
	"context"
	"sync"
)

// Stream decodes one utterance fed incrementally, e.g. 20 ms frames as they arrive.
// It holds one pooled decoder and no goroutine or audio buffer, so idling costs nothing
// but the pool slot. The ctx given to NewStream bounds its life: once ctx is done,
// Feed and Finish return ctx.Err(). Always Close it (after Finish is fine).
type Stream struct {
	m   *Model
	ctx context.Context

	mu  sync.Mutex
	d   *decoder // nil after Finish or Close
	err error    // first decoder error; the utterance is then abandoned
}

// NewStream takes a decoder from the pool, waiting (honouring ctx) if all are busy.
func (m *Model) NewStream(ctx context.Context) (*Stream, error) {
	d, err := m.acquire(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.start(); err != nil {
		m.release(d, true)
		return nil, err
	}
	return &Stream{m: m, ctx: ctx, d: d}, nil
}

// Feed decodes more 16 kHz samples; any length is fine.
func (s *Stream) Feed(frame []int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d == nil {
		return ErrStreamClosed
	}
	if s.err != nil {
		return s.err
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if err := s.d.process(frame); err != nil {
		s.err = err
		return err
	}
	return nil
}

// Finish ends the utterance, returns its digits ("" if none heard) and gives the decoder back.
func (s *Stream) Finish() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d == nil {
		return "", ErrStreamClosed
	}
	digits, err := s.d.end()
	s.m.release(s.d, err != nil)
	s.d = nil
	if err != nil {
		return "", err
	}
	if s.err != nil {
		return "", s.err
	}
	if err := s.ctx.Err(); err != nil {
		return "", err
	}
	return digits, nil
}

// Close abandons an unfinished utterance and returns the decoder to the pool. Idempotent.
func (s *Stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d == nil {
		return nil
	}
	_, err := s.d.end()
	s.m.release(s.d, err != nil)
	s.d = nil
	return nil
}
