package tts

import (
	"context"
	"fmt"
	"strings"
)

// streamMaxWords caps a chunk without punctuation: about 1.5 s of speech, so a long unpunctuated
// reply still starts playing after one short synthesis.
const streamMaxWords = 4

// splitChunks cuts text into the pieces SynthesizeStream speaks one at a time: clauses ending at
// . , ; : ! or ?, and any clause longer than streamMaxWords words into near-equal groups of at most
// streamMaxWords words (balanced, so no one-word tail).
func splitChunks(text string) []string {
	var chunks []string
	var clause []string
	flush := func() {
		if len(clause) == 0 {
			return
		}
		groups := (len(clause) + streamMaxWords - 1) / streamMaxWords
		for g := range groups {
			lo, hi := g*len(clause)/groups, (g+1)*len(clause)/groups
			chunks = append(chunks, strings.Join(clause[lo:hi], " "))
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
// Chunks with nothing to speak (bare punctuation) are skipped.
func streamChunks(ctx context.Context, v Voice, text string, emit func([]int16) error) error {
	chunks := splitChunks(text)
	spoke := false
	for _, c := range chunks {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: stream: %w", v.Name(), err)
		}
		if !speakable(c) {
			continue
		}
		pcm, err := v.Synthesize(c)
		if err != nil {
			return fmt.Errorf("stream chunk %q: %w", c, err)
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
