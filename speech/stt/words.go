package stt

import "strings"

// grammarDigits maps the grammar's words to digits; "oh" is the common spoken zero.
var grammarDigits = map[string]byte{
	"zero": '0', "oh": '0', "one": '1', "two": '2', "three": '3', "four": '4',
	"five": '5', "six": '6', "seven": '7', "eight": '8', "nine": '9',
}

// wordsToDigits turns a hypothesis such as "seven one(2) oh <sil> four" into "7104".
// Digit characters pass through and other words (fillers, noise tags) are dropped, so it
// also serves as the minimal normaliser for the OpenAI backend.
func wordsToDigits(text string) string {
	var out []byte
	for _, w := range strings.FieldsFunc(strings.ToLower(text), isSeparator) {
		if i := strings.IndexByte(w, '('); i > 0 { // alternate pronunciation, e.g. one(2)
			w = w[:i]
		}
		if d, ok := grammarDigits[w]; ok {
			out = append(out, d)
			continue
		}
		for i := 0; i < len(w); i++ {
			if w[i] >= '0' && w[i] <= '9' {
				out = append(out, w[i])
			}
		}
	}
	return string(out)
}

func isSeparator(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '(', r == ')', r == '<', r == '>', r == '[', r == ']', r == '\'':
		return false
	}
	return true
}
