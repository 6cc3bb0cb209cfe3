package twilio

import "testing"

const benchSID = "MZ18ad3ab5a668481ce02b83e7395059f0"

func BenchmarkAppendMedia(b *testing.B) {
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = AppendMedia(buf[:0], benchSID, i+2, i+1, int64(i*20), mulaw160, TrackInbound)
	}
	b.SetBytes(int64(len(mulaw160)))
}

func BenchmarkAppendAgentMedia(b *testing.B) {
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendAgentMedia(buf[:0], benchSID, mulaw160)
	}
	b.SetBytes(int64(len(mulaw160)))
}

func BenchmarkDecodeMedia(b *testing.B) {
	frame := AppendMedia(nil, benchSID, 1234, 1233, 24660, mulaw160, TrackInbound)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeMediaAudio(b *testing.B) {
	frame := AppendAgentMedia(nil, benchSID, mulaw160)
	audio := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		m, err := Decode(frame)
		if err != nil {
			b.Fatal(err)
		}
		if audio, err = m.AppendAudio(audio[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMediaRoundTrip(b *testing.B) {
	buf := make([]byte, 0, 512)
	audio := make([]byte, 0, 256)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = AppendMedia(buf[:0], benchSID, i+2, i+1, int64(i*20), mulaw160, TrackInbound)
		m, err := Decode(buf)
		if err != nil {
			b.Fatal(err)
		}
		if audio, err = m.AppendAudio(audio[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
