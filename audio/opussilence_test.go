package audio

import (
	"slices"
	"testing"
)

// Skipping the repeated silent packet gives what decoding it would have, within the decoder's
// noise floor, speech is never skipped, and speech after a skipped run decodes as before.
func TestSilenceSkipMatchesDecoding(t *testing.T) {
	enc, err := NewOpusEncoderRate(16000, 24000)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]int16, 320)
	tone := make([]int16, 320)
	for i := range tone {
		tone[i] = int16(8000 * ((i/20)%2*2 - 1)) // a 400 Hz square wave
	}
	encode := func(f []int16) []byte {
		p, err := enc.Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Clone(p)
	}
	var silent []byte
	for range 3 { // as senders pre-encode it: past the encoder's start-up
		silent = encode(zero)
	}
	var pkts [][]byte
	for range 2 { // two replies, each followed by 20 silent packets
		pkts = append(pkts, encode(tone), encode(tone))
		for range 20 {
			pkts = append(pkts, silent)
		}
	}
	plain, _ := NewOpusDecoderRate(16000)
	fast, _ := NewOpusDecoderRate(16000)
	var s SilenceSkip
	skipped := 0
	for i, p := range pkts {
		want, err := plain.Decode(p)
		if err != nil {
			t.Fatal(err)
		}
		var got []int16
		if z := s.Skip(p); z != nil {
			if len(z) != len(zero) {
				t.Fatalf("packet %d: skip gives %d samples, want %d", i, len(z), len(zero))
			}
			got = z
			skipped++
		} else {
			if got, err = fast.Decode(p); err != nil {
				t.Fatal(err)
			}
			s.Decoded(p, got)
		}
		var worst int
		for k := range got {
			worst = max(worst, abs(int(got[k])-int(want[k])))
		}
		if worst > 64 { // -54 dBFS: a speech frame after skipped silence differs only in its overlap
			t.Errorf("packet %d: skipping changed the audio by up to %d", i, worst)
		}
	}
	// The decoder's tail after speech takes a few packets to fade to the floor; then two settle.
	if skipped < 30 {
		t.Errorf("%d of 40 silent packets skipped, want at least 30", skipped)
	}
	t.Logf("%d of 40 silent packets skipped", skipped)
}
