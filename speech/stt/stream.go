package stt

import (
	"context"
	"fmt"
	"sync"
)

// Stream collects one utterance fed incrementally, e.g. 20 ms frames as they arrive, and
// decodes it at Finish. Decoding the whole utterance at once gives batch cepstral mean
// normalisation: live mode heard 0 of 30 phrases that went through 8 kHz mu-law on a fresh
// decoder, batch heard 30 of 30 (flite rms). It also means an idle Stream holds no decoder, goroutine or C memory:
// only its samples (32 KB per second). Finish costs ~0.02 s of CPU per second of audio.
// The ctx given to NewStream bounds the stream: once done, Feed and Finish return ctx.Err().
type Stream struct {
	m   *Model
	ctx context.Context

	mu     sync.Mutex
	pcm    []int16
	err    error // sticky: ErrTooLong
	closed bool
}

// NewStream starts an utterance. It fails only if ctx is done or the Model is closed.
func (m *Model) NewStream(ctx context.Context) (*Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	return &Stream{m: m, ctx: ctx}, nil
}

// Feed appends 16 kHz samples; any length is fine. The frame is copied.
func (s *Stream) Feed(frame []int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrStreamClosed
	case s.err != nil:
		return s.err
	}
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if len(s.pcm)+len(frame) > s.m.maxSamples {
		s.err = fmt.Errorf("%w: stream exceeded %d samples", ErrTooLong, s.m.maxSamples)
		s.pcm = nil
		return s.err
	}
	s.pcm = append(s.pcm, frame...)
	return nil
}

// Finish decodes the utterance and returns its digits ("" if none heard). It waits for a
// pooled decoder, honouring the stream's ctx. The Stream is closed afterwards.
func (s *Stream) Finish() (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", ErrStreamClosed
	}
	pcm, err := s.pcm, s.err
	s.closed, s.pcm = true, nil
	s.mu.Unlock() // decoding runs unlocked so a concurrent Close never waits on it
	if err != nil {
		return "", err
	}
	return s.m.Transcribe(s.ctx, pcm)
}

// Close abandons an unfinished utterance and frees its samples. Idempotent.
func (s *Stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.pcm = true, nil
	return nil
}
