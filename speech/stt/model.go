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

// Model is a loaded PocketSphinx digit recogniser with a bounded pool of decoders.
// Load it once per process; it is safe for concurrent use.
type Model struct {
	cfg        Config
	args       *cArgv
	grammar    string
	maxSamples int
	tmpDir     string // holds the embedded dictionary, which ps_init only reads from a path

	sem      chan struct{} // one token per decoder in use; bounds the pool
	createMu sync.Mutex    // decoder creation touches sphinxbase globals (log file)

	mu      sync.Mutex
	idle    []*decoder
	live    int // decoders created and not yet freed
	closed  bool
	cleaned bool
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
	dict := cfg.Dict
	if dict == "" {
		dir, err := os.MkdirTemp("", "callfleet-stt-")
		if err != nil {
			return nil, fmt.Errorf("stt: temp dir for dictionary: %w", err)
		}
		dict = filepath.Join(dir, "digits.dict")
		if err := os.WriteFile(dict, []byte(digitsDict), 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("stt: write dictionary: %w", err)
		}
		m.tmpDir = dir
	}
	if cfg.LogFile == "" {
		quietOnce.Do(quiet)
	}
	m.args = newCArgv(cfg.argv(dict))
	// Build one decoder now so a bad grammar or model fails Load, not the first call.
	d, err := m.create()
	if err != nil {
		m.cleanup()
		return nil, err
	}
	m.idle = append(m.idle, d)
	return m, nil
}

func (m *Model) create() (*decoder, error) {
	m.createMu.Lock()
	defer m.createMu.Unlock()
	d, err := newDecoder(m.args, m.grammar)
	if err != nil {
		return nil, fmt.Errorf("stt: new decoder (hmm %s): %w", m.cfg.HMM, err)
	}
	m.mu.Lock()
	m.live++
	m.mu.Unlock()
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
	m.mu.Unlock()
	d, err := m.create()
	if err != nil {
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
	m.maybeCleanupLocked()
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
	m.maybeCleanupLocked()
	return nil
}

// maybeCleanupLocked frees the C argv and temp dictionary once no decoder can need them.
func (m *Model) maybeCleanupLocked() {
	if m.closed && m.live == 0 && !m.cleaned {
		m.cleaned = true
		m.cleanupFiles()
	}
}

func (m *Model) cleanup() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed, m.cleaned = true, true
	m.cleanupFiles()
}

func (m *Model) cleanupFiles() {
	if m.args != nil {
		m.args.free()
		m.args = nil
	}
	if m.tmpDir != "" {
		os.RemoveAll(m.tmpDir)
		m.tmpDir = ""
	}
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
