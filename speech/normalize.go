package speech

import (
	"strings"
	"unicode"
)

// wordDigit maps the spoken forms of single digits, including "oh" and the letter "o" for zero.
var wordDigit = map[string]byte{
	"zero": '0', "oh": '0', "o": '0', "nought": '0', "naught": '0',
	"one": '1', "won": '1',
	"two": '2', "to": '2', "too": '2',
	"three": '3',
	"four":  '4', "for": '4', "fore": '4',
	"five":  '5',
	"six":   '6',
	"seven": '7',
	"eight": '8', "ate": '8',
	"nine": '9',
}

// homophones count as digits only inside a run of digits (a sure digit or the transcript's edge on
// each side), so "seven for one" keeps "741" but "7134, to confirm" stays "7134".
var homophones = map[string]bool{"won": true, "to": true, "too": true, "for": true, "fore": true, "ate": true, "o": true}

// teens and tens: a recogniser that groups digits ("seventy-one thirty-four" for 7134, as
// OpenAI-style servers sometimes write a spoken digit string) still names every digit.
var teens = map[string]string{
	"ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
}

var tens = map[string]byte{
	"twenty": '2', "thirty": '3', "forty": '4', "fifty": '5', "sixty": '6', "seventy": '7', "eighty": '8', "ninety": '9',
}

// repeaters say how many times the next digit is spoken ("double seven" -> "77").
var repeaters = map[string]int{"double": 2, "triple": 3}

// Normalize turns any transcript of a counting phrase into its digit string: "7 1 3 4", "7134",
// "Seven-one three, four.", "seven oh one" and filler words around the digits all normalise to the
// digits in order. It returns "" when the transcript holds no digits.
func Normalize(transcript string) string {
	toks := tokenize(transcript)
	var out []byte
	// A homophone is kept only when a neighbouring token is a sure digit.
	sure := make([]bool, len(toks))
	for i, t := range toks {
		sure[i] = isNumeric(t) || (wordDigit[t] != 0 && !homophones[t]) || teens[t] != "" || tens[t] != 0
	}
	repeat := 1
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if n, ok := repeaters[t]; ok {
			repeat = n
			continue
		}
		var d string
		switch {
		case isNumeric(t):
			d = t
		case teens[t] != "":
			d = teens[t]
		case tens[t] != 0:
			d = string(tens[t]) + "0"
			// "seventy one": the unit fills the tens' zero
			if i+1 < len(toks) && sure[i+1] && !isNumeric(toks[i+1]) && wordDigit[toks[i+1]] > '0' {
				d = string(tens[t]) + string(wordDigit[toks[i+1]])
				i++
			}
		case wordDigit[t] != 0 && (!homophones[t] || inRun(sure, i)):
			d = string(wordDigit[t])
		}
		out = append(out, strings.Repeat(d, repeat)...)
		repeat = 1
	}
	return string(out)
}

// tokenize lower-cases and splits on anything that is neither a letter nor a digit, and also
// between a digit run and a letter run ("7th" -> "7", "th").
func tokenize(s string) []string {
	var toks []string
	var cur []rune
	kind := 0 // 1 letter, 2 digit
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		k := 0
		switch {
		case r >= '0' && r <= '9':
			k = 2
		case unicode.IsLetter(r):
			k = 1
			r = unicode.ToLower(r)
		}
		if k != kind {
			flush()
			kind = k
		}
		if k != 0 {
			cur = append(cur, r)
		}
	}
	flush()
	return toks
}

func isNumeric(t string) bool {
	return t != "" && strings.Trim(t, "0123456789") == ""
}

// inRun reports whether token i sits between sure digits, counting the transcript's edges as digits
// but needing at least one real neighbour.
func inRun(sure []bool, i int) bool {
	left := i == 0 || sure[i-1]
	right := i == len(sure)-1 || sure[i+1]
	return left && right && len(sure) > 1
}
