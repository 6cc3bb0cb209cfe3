// Package speech holds the counting phrases callers speak and the normalisation that turns any
// transcript of them back into a digit string; its subpackages hold the voices (tts), the digit
// transcriber (stt) and the pre-rendered phrase pools callers play from (pool).
package speech

import (
	"math/rand/v2"
	"strings"
)

// Phrase lengths follow the seeds: random strings of 4 or 5 digits.
const (
	MinDigits = 4
	MaxDigits = 5
)

// Phrases draws random digit phrases from a seeded generator, so a run is reproducible from its seed.
// It is not safe for concurrent use; give each caller its own (see ForCall).
type Phrases struct {
	rng *rand.Rand
}

// NewPhrases returns a phrase source for the given run seed.
func NewPhrases(seed uint64) *Phrases {
	return &Phrases{rng: rand.New(rand.NewPCG(seed, 0x6361_6c6c_666c_6565))}
}

// ForCall returns the phrase source of one call of a run: the same (seed, call) gives the same
// phrases whatever order calls start in, which is what makes one call replayable.
func ForCall(seed uint64, call int) *Phrases {
	return &Phrases{rng: rand.New(rand.NewPCG(seed, uint64(call)+1))}
}

// Next returns a fresh phrase of 4 or 5 digits.
func (p *Phrases) Next() string {
	n := MinDigits + p.rng.IntN(MaxDigits-MinDigits+1)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + p.rng.IntN(10))
	}
	return string(b)
}

// IntN exposes the source's generator for choices that must stay reproducible with the phrases.
func (p *Phrases) IntN(n int) int { return p.rng.IntN(n) }

// Float64 is the source's uniform [0,1) draw, for reproducible pauses and offsets.
func (p *Phrases) Float64() float64 { return p.rng.Float64() }

var digitWords = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// Words spells a digit string as continuous digit words ("7134" -> "seven one three four"), the
// text style the transcriber hears best; non-digits are skipped.
func Words(digits string) string {
	var sb strings.Builder
	for _, r := range digits {
		if r < '0' || r > '9' {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(digitWords[r-'0'])
	}
	return sb.String()
}

// Split cuts a phrase into the two halves the pause-probe speaks apart: the first half is the
// shorter one for odd lengths ("71345" -> "71", "345").
func Split(digits string) (first, second string) {
	h := len(digits) / 2
	return digits[:h], digits[h:]
}
