package speech

import (
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"7 1 3 4", "7134"},
		{"7134", "7134"},
		{"seven-one three, four", "7134"},
		{"Seven. One. Three. Four.", "7134"},
		{"SEVEN ONE THREE FOUR", "7134"},
		{"seven oh one two", "7012"},
		{"zero zero one nine", "0019"},
		{"um, seven one three four please", "7134"},
		{"You said: 7, 1, 3, 4. Is that right?", "7134"},
		{"I heard seven one three four", "7134"},
		{"seven for one three", "7413"},
		{"7134, to confirm", "7134"},
		{"want to go for it", ""},
		{"double seven one two", "7712"},
		{"triple five two", "5552"},
		{"", ""},
		{"   ", ""},
		{"hello there", ""},
		{"7-1-3-4-5", "71345"},
		{"seven\tone\nthree four", "7134"},
		{"Seven1three4", "7134"},
		{"five, six, seven, eight, nine", "56789"},
		{"for seven one", "471"},
		// what OpenAI-compatible servers (whisper.cpp, speaches, LocalAI) return for a digit phrase
		{"7, 1, 3, 4.", "7134"},
		{"71-34", "7134"},
		{"Seven one three four.", "7134"},
		{"Seventy-one thirty-four.", "7134"},
		{"seventy one, thirty four, five", "71345"},
		{"twelve thirty", "1230"},
		{"Nineteen, oh, four.", "1904"},
		{"sixty", "60"},
		{"7,134", "7134"},
		{" 7 1 3 4 5 ", "71345"},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWordsRoundTrip(t *testing.T) {
	p := NewPhrases(42)
	for i := 0; i < 1000; i++ {
		d := p.Next()
		if n := len(d); n < MinDigits || n > MaxDigits {
			t.Fatalf("phrase %q has %d digits", d, n)
		}
		if got := Normalize(Words(d)); got != d {
			t.Fatalf("Normalize(Words(%q)) = %q", d, got)
		}
	}
}

func TestPhrasesReproducible(t *testing.T) {
	a, b := NewPhrases(7), NewPhrases(7)
	c := NewPhrases(8)
	same := true
	for i := 0; i < 50; i++ {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x != y {
			t.Fatalf("same seed diverged at %d: %q vs %q", i, x, y)
		}
		same = same && x == z
	}
	if same {
		t.Fatal("different seeds gave the same 50 phrases")
	}
	if a, b := ForCall(1, 3), ForCall(1, 3); a.Next() != b.Next() {
		t.Fatal("ForCall not reproducible")
	}
	if ForCall(1, 3).Next() == ForCall(1, 4).Next() && ForCall(1, 3).Next() == ForCall(1, 5).Next() {
		t.Fatal("calls share phrases")
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct{ in, a, b string }{{"7134", "71", "34"}, {"71345", "71", "345"}} {
		if a, b := Split(c.in); a != c.a || b != c.b {
			t.Errorf("Split(%q) = %q,%q", c.in, a, b)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"7 1 3 4", "seven-one three, four", "double oh", "for to too", "Ⅻ ① ٣", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Normalize(s)
		for i := 0; i < len(out); i++ {
			if out[i] < '0' || out[i] > '9' {
				t.Fatalf("Normalize(%q) = %q holds a non-digit", s, out)
			}
		}
		if !utf8.ValidString(out) {
			t.Fatal("invalid utf8")
		}
		// Normalising the spelled-out result must be a fixed point.
		if again := Normalize(Words(out)); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}
