package tts

import (
	"context"
	"fmt"
	"strings"
)

const (
	// streamMaxWords caps a chunk without punctuation: about 2.5 s of speech, so a long
	// unpunctuated reply still starts playing after one short synthesis, while a counting phrase
	// (at most 5 words) is spoken whole: a join inside it was misheard ("four six seven | nine
	// seven" heard as 46279 once in 45 WebRTC turns).
	streamMaxWords = 6
	// streamJoinPad is the silence kept on each side of a join inside a clause: flite pads every
	// utterance with 70–270 ms, which would put a 0.3–0.5 s hole in the middle of a clause.
	streamJoinPad = 0.030 // seconds
)

// chunk is one piece of streamed text; joined means the next chunk continues the same clause.
type chunk struct {
	text   string
	joined bool
}

// splitChunks cuts text into the pieces SynthesizeStream speaks one at a time: clauses ending at
// . , ; : ! or ?, and any clause longer than streamMaxWords words into near-equal groups of at most
// streamMaxWords words (balanced, so no one-word tail).
func splitChunks(text string) []chunk {
	var chunks []chunk
	var clause []string
	flush := func() {
		if len(clause) == 0 {
			return
		}
		groups := (len(clause) + streamMaxWords - 1) / streamMaxWords
		for g := range groups {
			lo, hi := g*len(clause)/groups, (g+1)*len(clause)/groups
			chunks = append(chunks, chunk{text: strings.Join(clause[lo:hi], " "), joined: g < groups-1})
		}
		clause = clause[:0]
	}
	for _, w := range strings.Fields(text) {
		clause = append(clause, w)
		if endsClause(w) {
			flush()
		}
	}
	flush()
	return chunks
}

// endsClause reports whether a word ends with clause punctuation, ignoring closing quotes and
// brackets ("done.)" ends a clause).
func endsClause(w string) bool {
	w = strings.TrimRight(w, `"')]}`)
	if w == "" {
		return false
	}
	return strings.ContainsRune(".,;:!?", rune(w[len(w)-1]))
}

// streamChunks synthesises text chunk by chunk with v and emits each chunk's audio in order.
// The leading silence of every chunk after the first, and the trailing silence of a chunk whose
// clause goes on, are cut to streamJoinPad; at punctuation the voice's own trailing silence is the
// pause. Chunks with nothing to speak (bare punctuation) are skipped.
func streamChunks(ctx context.Context, v Voice, text string, emit func([]int16) error) error {
	pad := int(streamJoinPad * float64(v.Rate()))
	spoke := false
	for _, c := range splitChunks(text) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: stream: %w", v.Name(), err)
		}
		if !speakable(c.text) {
			continue
		}
		pcm, err := v.Synthesize(c.text)
		if err != nil {
			return fmt.Errorf("stream chunk %q: %w", c.text, err)
		}
		if first, last, ok := VoicedBounds(pcm, v.Rate()); ok {
			start, end := 0, len(pcm)
			if spoke {
				start = max(0, first-pad)
			}
			if c.joined {
				end = min(len(pcm), last+1+pad)
			}
			pcm = pcm[start:end]
		}
		spoke = true
		if err := emit(pcm); err != nil {
			return err
		}
	}
	if !spoke {
		return fmt.Errorf("%s: stream: %w", v.Name(), ErrEmptyText)
	}
	return nil
}
