package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"
)

// WAV handling follows the RIFF WAVE layout (Microsoft/IBM "Multimedia
// Programming Interface and Data Specifications 1.0", 1991, plus the
// WAVE_FORMAT_EXTENSIBLE addendum): a "RIFF" header, then chunks of
// id(4) size(4 LE) body, each body padded to an even length.
const (
	wavFormatPCM        = 0x0001
	wavFormatExtensible = 0xFFFE
	wavHeaderSize       = 44 // RIFF header + 16-byte fmt chunk + data chunk header
	wavMaxChannels      = 64
	wavMaxFmt           = 40 // extensible fmt body; longer bodies are skipped past
	wavMaxData          = 1<<32 - 1 - (wavHeaderSize - 8)
	wavReadChunk        = 32 << 10 // bytes decoded per read
)

// wavSubtypePCM is KSDATAFORMAT_SUBTYPE_PCM, 00000001-0000-0010-8000-00aa00389b71,
// in its on-disk byte order.
var wavSubtypePCM = []byte{1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71}

// Clip is a whole recording of 16-bit PCM.
type Clip struct {
	Rate, Channels int
	Samples        []int16 // interleaved, len is a multiple of Channels
}

// Mono returns the samples of a one-channel clip.
func (c *Clip) Mono() ([]int16, error) {
	if c.Channels != 1 {
		return nil, fmt.Errorf("clip has %d channels, want 1: %w", c.Channels, ErrChannels)
	}
	return c.Samples, nil
}

// Duration returns the length of the clip (0 for an invalid clip).
func (c *Clip) Duration() time.Duration {
	if c.Rate <= 0 || c.Channels <= 0 {
		return 0
	}
	frames := int64(len(c.Samples) / c.Channels)
	return time.Duration(frames) * time.Second / time.Duration(c.Rate)
}

// ReadWAV reads a 16-bit PCM WAV (plain or WAVE_FORMAT_EXTENSIBLE). Chunks
// other than "fmt " and "data" are skipped. A data chunk that claims more
// bytes than the input holds, as in a recording cut short, is read up to
// its last complete frame. Memory use is bounded by what is actually read.
func ReadWAV(r io.Reader) (*Clip, error) {
	hint := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok { // bytes.Reader, strings.Reader...
		hint = int64(l.Len())
	}
	return readWAV(r, hint)
}

// ReadWAVFile reads a WAV file; see ReadWAV.
func ReadWAVFile(path string) (*Clip, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read wav: %w", err)
	}
	defer f.Close()
	hint := int64(-1)
	if st, err := f.Stat(); err == nil {
		hint = st.Size()
	}
	c, err := readWAV(bufio.NewReader(f), hint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// readWAV parses the stream; sizeHint (or -1) is the input length, used
// only to size the sample buffer.
func readWAV(r io.Reader, sizeHint int64) (*Clip, error) {
	if err := readRIFFHeader(r); err != nil {
		return nil, err
	}
	var c *Clip
	for {
		id, size, err := readChunkHeader(r)
		if err != nil {
			return nil, chunkEOF(err, c != nil)
		}
		switch id {
		case "fmt ":
			if c != nil {
				return nil, fmt.Errorf("read wav: second fmt chunk: %w", ErrCorrupt)
			}
			if c, err = readFmt(r, size); err != nil {
				return nil, err
			}
		case "data":
			if c == nil {
				return nil, fmt.Errorf("read wav: data chunk before fmt chunk: %w", ErrCorrupt)
			}
			c.Samples, err = readSamples(r, int64(size), c.Channels, sizeHint)
			return c, err
		default:
			if err := skip(r, int64(size)+int64(size&1)); err != nil {
				return nil, fmt.Errorf("read wav: skip %q chunk: %w", id, err)
			}
		}
	}
}

// chunkEOF turns a failed chunk-header read into the error to report.
func chunkEOF(err error, haveFmt bool) error {
	switch {
	case !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("read wav chunk header: %w", err)
	case !haveFmt:
		return fmt.Errorf("read wav: no fmt chunk: %w", ErrCorrupt)
	default:
		return fmt.Errorf("read wav: %w", ErrNoData)
	}
}

func readRIFFHeader(r io.Reader) error {
	var h [12]byte
	n, err := io.ReadFull(r, h[:])
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return fmt.Errorf("read wav header: %w", ErrEmpty)
	case err != nil && n > 0:
		return fmt.Errorf("read wav header: only %d bytes: %w", n, ErrNotWAV)
	case err != nil:
		return fmt.Errorf("read wav header: %w", err)
	case string(h[8:12]) != "WAVE":
		return fmt.Errorf("read wav header: form %q: %w", h[8:12], ErrNotWAV)
	case string(h[0:4]) == "RIFX" || string(h[0:4]) == "RF64":
		return fmt.Errorf("read wav header: %q container: %w", h[0:4], ErrUnsupportedFormat)
	case string(h[0:4]) != "RIFF":
		return fmt.Errorf("read wav header: magic %q: %w", h[0:4], ErrNotWAV)
	}
	// The RIFF size is ignored: writers cut short or streaming leave it wrong.
	return nil
}

func readChunkHeader(r io.Reader) (id string, size uint32, err error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", 0, err
	}
	return string(h[:4]), binary.LittleEndian.Uint32(h[4:]), nil
}

// skip discards n bytes, failing with ErrCorrupt if the input ends first.
func skip(r io.Reader, n int64) error {
	got, err := io.CopyN(io.Discard, r, n)
	if err == io.EOF {
		return fmt.Errorf("%d of %d bytes: %w", got, n, ErrCorrupt)
	}
	return err
}

// readFmt parses a fmt chunk body of the given size into an empty Clip.
func readFmt(r io.Reader, size uint32) (*Clip, error) {
	if size < 16 {
		return nil, fmt.Errorf("read wav fmt: %d-byte chunk: %w", size, ErrCorrupt)
	}
	var b [wavMaxFmt]byte
	body := b[:min(size, wavMaxFmt)]
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("read wav fmt: %w: %w", ErrCorrupt, err)
	}
	if err := skip(r, int64(size)-int64(len(body))+int64(size&1)); err != nil {
		return nil, fmt.Errorf("read wav fmt: %w", err)
	}
	return parseFmt(body)
}

func parseFmt(b []byte) (*Clip, error) {
	le := binary.LittleEndian
	format, channels := le.Uint16(b[0:]), int(le.Uint16(b[2:]))
	rate, byteRate := int64(le.Uint32(b[4:])), int64(le.Uint32(b[8:]))
	align, bits := int(le.Uint16(b[12:])), le.Uint16(b[14:])
	if format == wavFormatExtensible {
		// cbSize(2) validBits(2) channelMask(4) then the SubFormat GUID.
		if len(b) < wavMaxFmt || le.Uint16(b[16:]) < 22 {
			return nil, fmt.Errorf("read wav fmt: short extensible format: %w", ErrCorrupt)
		}
		if !bytes.Equal(b[24:40], wavSubtypePCM) {
			return nil, fmt.Errorf("read wav fmt: extensible subformat %x: %w", b[24:40], ErrUnsupportedFormat)
		}
		format = wavFormatPCM
	}
	switch {
	case format != wavFormatPCM:
		return nil, fmt.Errorf("read wav fmt: format tag %#x: %w", format, ErrUnsupportedFormat)
	case bits != 16:
		return nil, fmt.Errorf("read wav fmt: %d bits per sample: %w", bits, ErrUnsupportedFormat)
	case channels < 1 || channels > wavMaxChannels:
		return nil, fmt.Errorf("read wav fmt: %d channels: %w", channels, ErrCorrupt)
	case rate < MinRate || rate > MaxRate: // the resampler's bounds, so every clip read resamples
		return nil, fmt.Errorf("read wav fmt: rate %d Hz: %w: %w (want %d to %d Hz)", rate, ErrCorrupt, ErrRate, MinRate, MaxRate)
	case align != 2*channels || byteRate != rate*int64(align):
		return nil, fmt.Errorf("read wav fmt: block align %d, byte rate %d for %d channels at %d Hz: %w",
			align, byteRate, channels, rate, ErrCorrupt)
	}
	return &Clip{Rate: int(rate), Channels: channels}, nil
}

// readSamples decodes up to size bytes of little-endian samples, keeping
// only complete frames. The buffer grows with the bytes actually read.
func readSamples(r io.Reader, size int64, channels int, sizeHint int64) ([]int16, error) {
	samples := make([]int16, 0, max(0, min(size, sizeHint))/2)
	buf := make([]byte, max(2, min(size, wavReadChunk)&^1))
	lr := io.LimitReader(r, size)
	for {
		n, err := io.ReadFull(lr, buf)
		samples = appendLE16(samples, buf[:n&^1])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break // end of chunk, or of a file cut short
		}
		if err != nil {
			return nil, fmt.Errorf("read wav data: %w", err)
		}
	}
	return samples[:len(samples)-len(samples)%channels], nil
}

// appendLE16 appends the little-endian int16 values in b (even length).
func appendLE16(dst []int16, b []byte) []int16 {
	n := len(dst)
	dst = slices.Grow(dst, len(b)/2)[:n+len(b)/2]
	for i := range dst[n:] {
		dst[n+i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return dst
}

// appendBytesLE16 appends samples to dst as little-endian bytes.
func appendBytesLE16(dst []byte, samples []int16) []byte {
	for _, s := range samples {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(s))
	}
	return dst
}

// checkFormat validates parameters for writing.
func checkFormat(rate, channels int) error {
	if channels < 1 || channels > wavMaxChannels {
		return fmt.Errorf("%d channels: %w", channels, ErrChannels)
	}
	if err := CheckRate(rate); err != nil {
		return err
	}
	return nil
}

// wavHeader returns the canonical 44-byte header for dataBytes of PCM.
func wavHeader(rate, channels int, dataBytes uint32) [wavHeaderSize]byte {
	var h [wavHeaderSize]byte
	le := binary.LittleEndian
	copy(h[0:], "RIFF")
	le.PutUint32(h[4:], wavHeaderSize-8+dataBytes)
	copy(h[8:], "WAVEfmt ")
	le.PutUint32(h[16:], 16)
	le.PutUint16(h[20:], wavFormatPCM)
	le.PutUint16(h[22:], uint16(channels))
	le.PutUint32(h[24:], uint32(rate))
	le.PutUint32(h[28:], uint32(rate*channels*2))
	le.PutUint16(h[32:], uint16(channels*2))
	le.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	le.PutUint32(h[40:], dataBytes)
	return h
}

// WriteWAV writes c as a canonical 16-bit PCM WAV.
func WriteWAV(w io.Writer, c *Clip) error {
	if err := checkFormat(c.Rate, c.Channels); err != nil {
		return fmt.Errorf("write wav: %w", err)
	}
	if len(c.Samples)%c.Channels != 0 {
		return fmt.Errorf("write wav: %d samples for %d channels: %w", len(c.Samples), c.Channels, ErrPartialFrame)
	}
	if int64(len(c.Samples))*2 > wavMaxData {
		return fmt.Errorf("write wav: %d samples: %w", len(c.Samples), ErrTooLarge)
	}
	h := wavHeader(c.Rate, c.Channels, uint32(len(c.Samples)*2))
	if _, err := w.Write(h[:]); err != nil {
		return fmt.Errorf("write wav header: %w", err)
	}
	buf := make([]byte, 0, min(2*len(c.Samples), wavReadChunk))
	for s := c.Samples; len(s) > 0; {
		n := min(len(s), wavReadChunk/2)
		if _, err := w.Write(appendBytesLE16(buf[:0], s[:n])); err != nil {
			return fmt.Errorf("write wav data: %w", err)
		}
		s = s[n:]
	}
	return nil
}

// WriteWAVFile writes c to a new file at path; see WriteWAV.
func WriteWAVFile(path string, c *Clip) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write wav: %w", err)
	}
	if err := WriteWAV(f, c); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write wav: %w", err)
	}
	return nil
}
