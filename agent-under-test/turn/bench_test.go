package turn

import "testing"

// benchFrames is 10 s of speech turns over noise, as 20 ms frames.
func benchFrames() [][]int16 {
	x := pcm(mixed(cat(silence(500), speechLike(2500, -20, 1), silence(2000), speechLike(2500, -20, 2), silence(2500)),
		whiteNoise(10000*msSamples, -40, 3)))
	var fs [][]int16
	for i := 0; i+FrameSamples <= len(x); i += FrameSamples {
		fs = append(fs, x[i:i+FrameSamples])
	}
	return fs
}

func BenchmarkDetectorPush(b *testing.B) {
	fs := benchFrames()
	d, err := NewDetector(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d.Push(fs[i%len(fs)])
		i++
	}
}

func BenchmarkVADClassify(b *testing.B) {
	fs := benchFrames()
	v := NewVAD(VADConfig{})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		v.Classify(fs[i%len(fs)])
		i++
	}
}

// BenchmarkPeriodicityWorst is a frame that is loud, low-tilt and aperiodic: every lag is tried.
func BenchmarkPeriodicityWorst(b *testing.B) {
	fs := benchFrames()
	var p periodicity
	p.reset()
	i := 0
	for b.Loop() {
		p.push(fs[i%len(fs)])
		p.periodic(1.1)
		i++
	}
}

func TestPushAllocs(t *testing.T) {
	fs := benchFrames()
	d, err := NewDetector(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	if a := testing.AllocsPerRun(2000, func() { d.Push(fs[i%len(fs)]); i++ }); a != 0 {
		t.Fatalf("%v allocations per frame", a)
	}
}
