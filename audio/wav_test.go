package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"
	"time"
)

// wavSpec describes a WAV to build byte by byte, including broken ones.
type wavSpec struct {
	format     uint16 // 0 means PCM
	extensible bool   // wrap the format in WAVE_FORMAT_EXTENSIBLE
	subformat  byte   // first GUID byte when extensible; 0 means PCM (1)
	channels   uint16
	rate       uint32
	bits       uint16 // 0 means 16
	align      int    // 0 means channels*2; -1 keeps 0
	before     []byte // raw chunks between the RIFF header and fmt
	between    []byte // raw chunks between fmt and data
	dataSize   int64  // declared data size; -1 means the real size
	samples    []int16
}

func chunk(id string, body []byte) []byte {
	b := append([]byte(id), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...)
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0) // RIFF pad byte
	}
	return b
}

func (s wavSpec) fmtBody() []byte {
	le := binary.LittleEndian
	format, bits, align := s.format, s.bits, s.align
	if format == 0 {
		format = wavFormatPCM
	}
	if bits == 0 {
		bits = 16
	}
	if align == 0 {
		align = int(s.channels) * 2
	} else if align < 0 {
		align = 0
	}
	if s.extensible {
		format = wavFormatExtensible
	}
	b := le.AppendUint16(nil, format)
	b = le.AppendUint16(b, s.channels)
	b = le.AppendUint32(b, s.rate)
	b = le.AppendUint32(b, s.rate*uint32(align))
	b = le.AppendUint16(b, uint16(align))
	b = le.AppendUint16(b, bits)
	if s.extensible {
		b = le.AppendUint16(b, 22)
		b = le.AppendUint16(b, bits)
		b = le.AppendUint32(b, 4) // front centre
		guid := slices.Clone(wavSubtypePCM)
		if s.subformat != 0 {
			guid[0] = s.subformat
		}
		b = append(b, guid...)
	}
	return b
}

func (s wavSpec) bytes() []byte {
	data := appendBytesLE16(nil, s.samples)
	body := append([]byte("WAVE"), s.before...)
	body = append(body, chunk("fmt ", s.fmtBody())...)
	body = append(body, s.between...)
	body = append(body, "data"...)
	size := uint32(len(data))
	if s.dataSize >= 0 {
		size = uint32(s.dataSize)
	}
	body = binary.LittleEndian.AppendUint32(body, size)
	body = append(body, data...)
	return append(chunk("RIFF", nil)[:4], append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)...)
}

func TestReadWAV(t *testing.T) {
	stereo := []int16{1, -1, 2, -2, 3, -3, 32767, -32768}
	list := chunk("LIST", []byte("INFOISFT\x05\x00\x00\x00sox!\x00")) // odd body, padded
	tests := []struct {
		name string
		spec wavSpec
		want Clip
	}{
		{"mono", wavSpec{channels: 1, rate: 8000, dataSize: -1, samples: []int16{5, 6, 7}},
			Clip{8000, 1, []int16{5, 6, 7}}},
		{"stereo", wavSpec{channels: 2, rate: 48000, dataSize: -1, samples: stereo},
			Clip{48000, 2, stereo}},
		{"extensible", wavSpec{extensible: true, channels: 2, rate: 16000, dataSize: -1, samples: stereo},
			Clip{16000, 2, stereo}},
		{"chunks skipped", wavSpec{channels: 1, rate: 8000, before: chunk("JUNK", make([]byte, 3)), between: list,
			dataSize: -1, samples: []int16{9}}, Clip{8000, 1, []int16{9}}},
		{"empty data", wavSpec{channels: 1, rate: 8000, dataSize: -1}, Clip{8000, 1, []int16{}}},
		{"cut short", wavSpec{channels: 2, rate: 8000, dataSize: 1000, samples: stereo[:7]},
			Clip{8000, 2, stereo[:6]}},
		{"streaming size", wavSpec{channels: 1, rate: 8000, dataSize: 0xFFFFFFFF, samples: []int16{1, 2}},
			Clip{8000, 1, []int16{1, 2}}},
		{"odd data size", wavSpec{channels: 1, rate: 8000, dataSize: 3, samples: []int16{1, 2}},
			Clip{8000, 1, []int16{1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.spec.bytes()
			for name, r := range map[string]io.Reader{
				"bytes": bytes.NewReader(b), "one byte reads": iotest.OneByteReader(bytes.NewReader(b)),
			} {
				c, err := ReadWAV(r)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if c.Rate != tt.want.Rate || c.Channels != tt.want.Channels || !slices.Equal(c.Samples, tt.want.Samples) {
					t.Errorf("%s: got %+v, want %+v", name, *c, tt.want)
				}
			}
		})
	}
}

func TestReadWAVErrors(t *testing.T) {
	ok := wavSpec{channels: 1, rate: 8000, dataSize: -1, samples: []int16{1}}
	valid := ok.bytes()
	with := func(f func(*wavSpec)) []byte { s := ok; f(&s); return s.bytes() }
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"nothing", nil, ErrEmpty},
		{"short", []byte("RIFF\x00"), ErrNotWAV},
		{"not riff", append([]byte("RIFX"), valid[4:]...), ErrUnsupportedFormat},
		{"mp3", append([]byte("ID3\x04"), valid[4:]...), ErrNotWAV},
		{"avi", append(slices.Clone(valid[:8]), append([]byte("AVI "), valid[12:]...)...), ErrNotWAV},
		{"header only", valid[:12], ErrCorrupt},
		{"no data", valid[:36], ErrNoData},
		{"fmt cut", valid[:30], ErrCorrupt},
		{"float", with(func(s *wavSpec) { s.format = 3; s.bits = 32; s.align = 4 }), ErrUnsupportedFormat},
		{"alaw", with(func(s *wavSpec) { s.format = 6; s.bits = 8; s.align = 1 }), ErrUnsupportedFormat},
		{"8 bit", with(func(s *wavSpec) { s.bits = 8; s.align = 1 }), ErrUnsupportedFormat},
		{"24 bit", with(func(s *wavSpec) { s.bits = 24; s.align = 3 }), ErrUnsupportedFormat},
		{"ext float", with(func(s *wavSpec) { s.extensible = true; s.subformat = 3 }), ErrUnsupportedFormat},
		{"0 channels", with(func(s *wavSpec) { s.channels = 0; s.align = -1 }), ErrCorrupt},
		{"0 Hz", with(func(s *wavSpec) { s.rate = 0 }), ErrCorrupt},
		{"absurd rate", with(func(s *wavSpec) { s.rate = 4_000_000_000 }), ErrCorrupt},
		{"bad align", with(func(s *wavSpec) { s.align = 3 }), ErrCorrupt},
		{"data first", append(slices.Clone(valid[:12]), chunk("data", []byte{1, 2})...), ErrCorrupt},
		{"huge junk", with(func(s *wavSpec) { s.before = []byte("JUNK\xff\xff\xff\x7f") }), ErrCorrupt},
		{"two fmt", with(func(s *wavSpec) { s.between = chunk("fmt ", s.fmtBody()) }), ErrCorrupt},
	}
	for _, tt := range tests {
		_, err := ReadWAV(bytes.NewReader(tt.in))
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestReadWAVReadError(t *testing.T) {
	b := wavSpec{channels: 1, rate: 8000, dataSize: -1, samples: make([]int16, 100)}.bytes()
	boom := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader(b[:60]), iotest.ErrReader(boom))
	if _, err := ReadWAV(r); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the reader's error", err)
	}
}

func TestWAVRoundTrip(t *testing.T) {
	tests := []Clip{
		{8000, 1, tone(800, 8000, 440, 10000)},
		{48000, 2, Interleave(tone(960, 48000, 440, 10000), tone(480, 48000, 880, 5000))},
		{16000, 1, []int16{}},
	}
	for _, c := range tests {
		var buf bytes.Buffer
		if err := WriteWAV(&buf, &c); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != wavHeaderSize+2*len(c.Samples) {
			t.Errorf("%d Hz: %d bytes written", c.Rate, buf.Len())
		}
		path := filepath.Join(t.TempDir(), "clip.wav")
		if err := WriteWAVFile(path, &c); err != nil {
			t.Fatal(err)
		}
		for _, read := range []func() (*Clip, error){
			func() (*Clip, error) { return ReadWAV(&buf) },
			func() (*Clip, error) { return ReadWAVFile(path) },
		} {
			got, err := read()
			if err != nil {
				t.Fatal(err)
			}
			if got.Rate != c.Rate || got.Channels != c.Channels || !slices.Equal(got.Samples, c.Samples) {
				t.Errorf("round trip: got %d Hz %d ch %d samples, want %d Hz %d ch %d",
					got.Rate, got.Channels, len(got.Samples), c.Rate, c.Channels, len(c.Samples))
			}
		}
	}
}

func TestWriteWAVErrors(t *testing.T) {
	tests := []struct {
		name string
		c    Clip
		want error
	}{
		{"no channels", Clip{8000, 0, nil}, ErrChannels},
		{"no rate", Clip{0, 1, nil}, ErrRate},
		{"partial frame", Clip{8000, 2, []int16{1, 2, 3}}, ErrPartialFrame},
	}
	for _, tt := range tests {
		if err := WriteWAV(io.Discard, &tt.c); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	if err := WriteWAVFile(filepath.Join(t.TempDir(), "no", "dir.wav"), &Clip{8000, 1, nil}); err == nil {
		t.Error("WriteWAVFile into a missing directory succeeded")
	}
	if _, err := ReadWAVFile(filepath.Join(t.TempDir(), "missing.wav")); err == nil {
		t.Error("ReadWAVFile of a missing file succeeded")
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		c       Clip
		dur     time.Duration
		monoErr bool
	}{
		{Clip{8000, 1, make([]int16, 160)}, 20 * time.Millisecond, false},
		{Clip{48000, 2, make([]int16, 96000)}, time.Second, true},
		{Clip{44100, 1, make([]int16, 441)}, 10 * time.Millisecond, false},
		{Clip{}, 0, true},
	}
	for _, tt := range tests {
		if d := tt.c.Duration(); d != tt.dur {
			t.Errorf("%d Hz %d ch: Duration %v, want %v", tt.c.Rate, tt.c.Channels, d, tt.dur)
		}
		m, err := tt.c.Mono()
		if (err != nil) != tt.monoErr || (err != nil && !errors.Is(err, ErrChannels)) {
			t.Errorf("%d ch: Mono err %v", tt.c.Channels, err)
		}
		if err == nil && len(m) != len(tt.c.Samples) {
			t.Errorf("Mono returned %d samples", len(m))
		}
	}
}
