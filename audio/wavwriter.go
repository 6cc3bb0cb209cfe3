package audio

import (
	"errors"
	"fmt"
	"os"
)

// WAVWriter streams 16-bit PCM to a WAV file. After every Write the header
// sizes are rewritten in place, so if the process dies without Close the
// file is still a valid WAV holding every complete Write. It is not safe
// for concurrent use.
type WAVWriter struct {
	f              *os.File
	path           string
	rate, channels int
	data           int64  // sample bytes written and counted in the header
	buf            []byte // reused encoding buffer
	err            error  // sticky: a failed write leaves the data length unknown
}

// CreateWAV creates (or truncates) the file at path and writes a header for
// an empty recording at the given rate and channel count.
func CreateWAV(path string, rate, channels int) (*WAVWriter, error) {
	if err := checkFormat(rate, channels); err != nil {
		return nil, fmt.Errorf("create wav %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create wav: %w", err)
	}
	w := &WAVWriter{f: f, path: path, rate: rate, channels: channels}
	h := wavHeader(rate, channels, 0)
	if _, err := f.Write(h[:]); err != nil {
		f.Close()
		return nil, fmt.Errorf("create wav %s: write header: %w", path, err)
	}
	return w, nil
}

// Write appends interleaved samples, a whole number of frames, and then
// updates the header so the file on disk covers them.
func (w *WAVWriter) Write(samples []int16) error {
	switch {
	case w.f == nil:
		return fmt.Errorf("write wav %s: %w", w.path, ErrClosed)
	case w.err != nil:
		return w.err
	case len(samples)%w.channels != 0:
		return fmt.Errorf("write wav %s: %d samples for %d channels: %w", w.path, len(samples), w.channels, ErrPartialFrame)
	case w.data+2*int64(len(samples)) > wavMaxData:
		return fmt.Errorf("write wav %s: %w", w.path, ErrTooLarge)
	}
	w.buf = appendBytesLE16(w.buf[:0], samples)
	if _, err := w.f.Write(w.buf); err != nil {
		w.err = fmt.Errorf("write wav %s: %w", w.path, err)
		return w.err
	}
	w.data += int64(len(w.buf))
	if err := w.writeHeader(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// writeHeader rewrites the whole header with one pwrite, leaving the file
// offset at the end of the data.
func (w *WAVWriter) writeHeader() error {
	h := wavHeader(w.rate, w.channels, uint32(w.data))
	if _, err := w.f.WriteAt(h[:], 0); err != nil {
		return fmt.Errorf("update wav header %s: %w", w.path, err)
	}
	return nil
}

// Close finalises the header and closes the file. It also reports an
// earlier failed Write, since the file then lacks audio. Later calls return
// ErrClosed.
func (w *WAVWriter) Close() error {
	if w.f == nil {
		return fmt.Errorf("close wav %s: %w", w.path, ErrClosed)
	}
	herr := w.writeHeader()
	cerr := w.f.Close()
	w.f = nil
	if cerr != nil {
		cerr = fmt.Errorf("close wav: %w", cerr)
	}
	return errors.Join(w.err, herr, cerr)
}
