package pool

import (
	"hash/fnv"
	"math"
)

// mixNoise adds looped noise to pcm in place so that the voiced part's power over the noise's
// power is snrDB; the noise starts at offset so clips do not all share the same stretch of it.
func mixNoise(pcm, noise []int16, first, last int, snrDB float64, offset int) {
	if len(noise) == 0 || last < first {
		return
	}
	sp := power(pcm[first : last+1])
	np := power(noise)
	if sp == 0 || np == 0 {
		return
	}
	g := math.Sqrt(sp / np / math.Pow(10, snrDB/10))
	for i := range pcm {
		v := float64(pcm[i]) + g*float64(noise[(offset+i)%len(noise)])
		pcm[i] = int16(max(-32768, min(32767, math.Round(v))))
	}
}

func power(x []int16) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s / float64(len(x))
}

// noiseOffset is a stable start point in the noise for a phrase.
func noiseOffset(digits string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(digits))
	return int(h.Sum32() % uint32(n))
}
