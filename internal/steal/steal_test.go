package steal

import "testing"

func TestParseAndFraction(t *testing.T) {
	from, err := Parse([]byte("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 50 0 25 400 5 0 0 20 0 0\nintr 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	to, err := Parse([]byte("cpu  150 0 70 910 10 0 0 100 5 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	// 240 ticks passed (50+20+110+60), 60 of them stolen; guest (5) is inside user already.
	if f, ok := Fraction(from, to); !ok || f != 0.25 {
		t.Errorf("Fraction = %v, %v; want 0.25, true", f, ok)
	}
	if _, ok := Fraction(to, from); ok {
		t.Error("Fraction of a backwards interval reported ok")
	}
	if _, ok := Fraction(Sample{}, to); ok {
		t.Error("Fraction with a missing sample reported ok")
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "intr 5\n", "cpu 1 2 3\n", "cpu 1 2 3 4 5 6 7 x\n",
		"cpu 18446744073709551615 1 0 0 0 0 0 0\n"} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) gave no error", in)
		}
	}
}

func TestReadThisMachine(t *testing.T) {
	a := Read()
	if !a.OK {
		t.Fatal("no /proc/stat on this Linux machine")
	}
	if a.Total == 0 || a.Steal > a.Total {
		t.Errorf("implausible sample %+v", a)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("cpu  100 0 50 800 10 0 0 40 0 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err == nil && (!s.OK || s.Steal > s.Total) {
			t.Errorf("Parse(%q) = %+v", b, s)
		}
	})
}
