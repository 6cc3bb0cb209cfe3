package stt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Transcriber hears one utterance of 16 kHz mono audio and returns its digits ("" if none).
type Transcriber interface {
	Transcribe(ctx context.Context, pcm16k []int16) (string, error)
}

var (
	_ Transcriber = (*Model)(nil)
	_ Transcriber = (*OpenAI)(nil)
)

// Model is a loaded PocketSphinx digit recogniser with a bounded pool of decoders
// (each ~5 MB resident, ~10–25 ms to create). Load it once per process; it is safe for
// concurrent use. A process may exit without Close: nothing is left on disk.
type Model struct {
	cfg        Config
	grammar    string
	maxSamples int

	sem      chan struct{} // one token per decoder in use; bounds the pool
	createMu sync.Mutex    // ps_init touches sphinxbase globals (log file)

	mu     sync.Mutex
	idle   []*decoder
	live   int // decoders created or being created, not yet freed
	closed bool
}

// Load validates the model files and prepares the pool; decoders are created lazily.
func Load(cfg Config) (*Model, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m := &Model{
		cfg: cfg, grammar: cfg.grammar(), maxSamples: cfg.maxSamples(),
		sem: make(chan struct{}, cfg.maxDecoders()),
	}
	if cfg.LogFile == "" {
		quietOnce.Do(quiet)
	}
	// Build one decoder now so a bad grammar or model fails Load, not the first call.
	d, err := m.create()
	if err != nil {
		return nil, err
	}
	m.live = 1
	m.idle = append(m.idle, d)
	return m, nil
}

// create builds a decoder. ps_init reads the dictionary and model files only from paths, so the
// embedded ones are written to a temp dir that lives just for the call.
func (m *Model) create() (*decoder, error) {
	m.createMu.Lock()
	defer m.createMu.Unlock()
	var tmp string
	if m.cfg.Dict == "" || m.cfg.Adapted {
		var err error
		if tmp, err = os.MkdirTemp("", "callfleet-stt-"); err != nil {
			return nil, fmt.Errorf("stt: temp model dir: %w", err)
		}
		defer os.RemoveAll(tmp)
	}
	dict := m.cfg.Dict
	if dict == "" {
		dict = filepath.Join(tmp, "digits.dict")
		if err := os.WriteFile(dict, []byte(digitsDict), 0o600); err != nil {
			return nil, fmt.Errorf("stt: write temp dictionary: %w", err)
		}
	}
	var model []string
	if m.cfg.Adapted {
		var err error
		if model, err = writeAdapted(tmp); err != nil {
			return nil, err
		}
	}
	d, err := newDecoder(m.cfg.argv(dict, model...), m.grammar)
	if err != nil {
		return nil, fmt.Errorf("stt: new decoder (hmm %s): %w", m.cfg.HMM, err)
	}
	d.nice = m.cfg.Nice
	return d, nil
}

// acquire waits for a pool slot (honouring ctx), then reuses an idle decoder or creates one.
func (m *Model) acquire(ctx context.Context) (*decoder, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case m.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		<-m.sem
		return nil, ErrClosed
	}
	if n := len(m.idle); n > 0 {
		d := m.idle[n-1]
		m.idle = m.idle[:n-1]
		m.mu.Unlock()
		return d, nil
	}
	m.live++
	m.mu.Unlock()
	d, err := m.create()
	if err != nil {
		m.mu.Lock()
		m.live--
		m.mu.Unlock()
		<-m.sem
		return nil, err
	}
	return d, nil
}

// release returns a decoder to the pool; a broken one, or any after Close, is freed.
func (m *Model) release(d *decoder, broken bool) {
	m.mu.Lock()
	if broken || m.closed {
		d.free()
		m.live--
	} else {
		m.idle = append(m.idle, d)
	}
	m.mu.Unlock()
	<-m.sem
}

// Close frees idle decoders now and busy ones as they are returned. It is idempotent.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for _, d := range m.idle {
		d.free()
		m.live--
	}
	m.idle = nil
	return nil
}

// Transcribe decodes one whole utterance of 16 kHz audio and returns its digits.
// Silence, noise or empty input give "" and no error; errors mean ctx ended while waiting
// for a decoder, the input exceeded MaxUtterance, or the decoder failed. ctx is checked
// before decoding; the decode itself (~0.02 s CPU per audio second) is not interrupted.
func (m *Model) Transcribe(ctx context.Context, pcm16k []int16) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if len(pcm16k) == 0 {
		return "", nil
	}
	if len(pcm16k) > m.maxSamples {
		return "", fmt.Errorf("%w: %d samples > %d", ErrTooLong, len(pcm16k), m.maxSamples)
	}
	d, err := m.acquire(ctx)
	if err != nil {
		return "", err
	}
	digits, err := d.decode(pcm16k)
	m.release(d, err != nil)
	return digits, err
}
