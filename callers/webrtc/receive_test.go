package webrtc

import (
	"math"
	"testing"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/callers/listen"
	"github.com/pion/rtp"
)

// rtpHarness drives an rtpReader the way readAudio does, collecting what it delivers.
type rtpHarness struct {
	stats  counters
	r      *rtpReader
	chunks []callers.Chunk
	full   bool // Audio refuses every chunk
}

func newRTPHarness(t testing.TB) *rtpHarness {
	t.Helper()
	h := &rtpHarness{}
	r, err := newRTPReader(&h.stats, listen.DefaultMaxAhead, func(ch callers.Chunk) bool {
		if h.full {
			return false
		}
		h.chunks = append(h.chunks, ch)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	h.r = r
	return h
}

// totals are the samples delivered and the samples reported dropped (including those pending).
func (h *rtpHarness) totals() (out, dropped int) {
	for _, ch := range h.chunks {
		out += len(ch.PCM)
		dropped += ch.Dropped
	}
	return out, dropped + h.r.dropped
}

// opusTone is n 20 ms Opus packets of a 440 Hz tone.
func opusTone(t testing.TB, n int) [][]byte {
	t.Helper()
	enc, err := audio.NewOpusEncoder(32000)
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, audio.OpusRate/50)
	var out [][]byte
	for k := 0; k < n; k++ {
		for i := range pcm {
			pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(k*len(pcm)+i)/audio.OpusRate))
		}
		p, err := enc.Encode(pcm)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte(nil), p...))
	}
	return out
}

func marshalRTP(t testing.TB, seq uint16, payload []byte) []byte {
	t.Helper()
	b, err := (&rtp.Packet{Header: rtp.Header{Version: 2, PayloadType: opusPayloadType, SequenceNumber: seq,
		Timestamp: uint32(seq) * frameTicks}, Payload: payload}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRTPReader(t *testing.T) {
	pkts := opusTone(t, 50)
	cases := []struct {
		name    string
		speed   int // times real time; 0: all at once
		seqs    func(i int) uint16
		full    bool
		out     int // samples delivered, within a frame
		dropped int
	}{
		{name: "real time", speed: 1, seqs: seq, out: 50 * frameSamples},
		{name: "a lost packet is concealed", speed: 1, seqs: func(i int) uint16 { return uint16(i + i/25) }, out: 51 * frameSamples},
		{name: "duplicates dropped as late", speed: 1, seqs: func(i int) uint16 { return uint16(i / 2) }, out: 25 * frameSamples},
		{name: "Audio full: counted as dropped", speed: 1, seqs: seq, full: true, dropped: 50 * frameSamples},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newRTPHarness(t)
			h.full = tc.full
			t0 := time.Unix(1000, 0)
			for i, p := range pkts {
				h.r.packet(marshalRTP(t, tc.seqs(i), p), t0.Add(time.Duration(i)*20*time.Millisecond/time.Duration(tc.speed)))
			}
			out, dropped := h.totals()
			if d := out - tc.out; d < -frameSamples || d > frameSamples || dropped != tc.dropped {
				t.Errorf("delivered %d and dropped %d samples, want %d and %d", out, dropped, tc.out, tc.dropped)
			}
		})
	}
}

// TestRTPReaderFlood sends 60 s of the agent's audio at 100x real time: no more than
// DefaultMaxAhead plus the 0.6 s it took comes out, and the rest is counted on the chunks.
func TestRTPReaderFlood(t *testing.T) {
	pkts := opusTone(t, 50)
	h := newRTPHarness(t)
	t0 := time.Unix(1000, 0)
	const n = 3000 // 60 s of 20 ms packets
	for i := 0; i < n; i++ {
		h.r.packet(marshalRTP(t, uint16(i), pkts[i%len(pkts)]), t0.Add(time.Duration(i)*20*time.Millisecond/100))
	}
	out, dropped := h.totals()
	want := int((listen.DefaultMaxAhead + 600*time.Millisecond).Seconds() * listen.Rate)
	if d := out - want; d < -2*frameSamples || d > frameSamples {
		t.Errorf("delivered %v of audio, want %v", time.Duration(out)*time.Second/listen.Rate, time.Duration(want)*time.Second/listen.Rate)
	}
	if out+dropped != n*frameSamples || h.stats.aheadDropped.Load() != uint64(dropped) {
		t.Errorf("delivered %d + dropped %d != %d sent (stats %d)", out, dropped, n*frameSamples, h.stats.aheadDropped.Load())
	}
}

func TestPacketSamples(t *testing.T) {
	cases := []struct {
		name    string
		payload []byte
		want    time.Duration
	}{
		{"celt 20 ms", []byte{31 << 3}, 20 * time.Millisecond},
		{"celt 2.5 ms", []byte{28 << 3}, 2500 * time.Microsecond},
		{"silk 60 ms", []byte{3 << 3}, 60 * time.Millisecond},
		{"hybrid 10 ms, two frames", []byte{12<<3 | 1}, 20 * time.Millisecond},
		{"silk 60 ms, code 3 of 4 frames: capped at 120 ms", []byte{3<<3 | 3, 4}, 120 * time.Millisecond},
		{"code 3 without a count", []byte{31<<3 | 3}, 20 * time.Millisecond},
		{"empty", nil, 20 * time.Millisecond},
	}
	for _, tc := range cases {
		if got := time.Duration(packetSamples(tc.payload)) * time.Second / listen.Rate; got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func seq(i int) uint16 { return uint16(i) }

// FuzzRTPReader feeds the caller's RTP receive path any datagrams (a length byte before each),
// gap milliseconds apart: it never panics, delivers chunks of at most 120 ms, and no more audio
// than MaxAhead plus the time elapsed (and the concealment that stands for lost packets).
func FuzzRTPReader(f *testing.F) {
	pkts := opusTone(f, 3)
	var stream []byte
	for i, p := range pkts {
		b := marshalRTP(f, uint16(i*2), p)
		stream = append(append(stream, byte(len(b))), b...)
	}
	f.Add(stream, uint8(20))
	f.Add(stream, uint8(0))
	f.Add([]byte{12, 0x80, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(1))       // header only
	f.Add([]byte{13, 0xa0, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff}, uint8(1)) // padding past the end
	f.Fuzz(func(t *testing.T, data []byte, gap uint8) {
		h := newRTPHarness(t)
		t0 := time.Unix(1000, 0)
		var n int
		for len(data) > 0 {
			size := min(int(data[0]), len(data)-1)
			h.r.packet(data[1:1+size], t0.Add(time.Duration(n)*time.Duration(gap)*time.Millisecond))
			data, n = data[1+size:], n+1
		}
		out, _ := h.totals()
		for _, ch := range h.chunks {
			if len(ch.PCM) > 120*listen.Rate/1000 || ch.Dropped < 0 {
				t.Fatalf("chunk of %d samples, %d dropped", len(ch.PCM), ch.Dropped)
			}
		}
		elapsed := time.Duration(max(n-1, 0)) * time.Duration(gap) * time.Millisecond
		if limit := int((listen.DefaultMaxAhead+elapsed).Seconds()*listen.Rate) + 120*listen.Rate/1000; out > limit {
			t.Fatalf("%d samples out of %d packets over %v", out, n, elapsed)
		}
	})
}
