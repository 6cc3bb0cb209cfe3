package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update to accept):\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		report func() *Report
	}{
		{"summary", synthReport},
		{"summary_na", synthReportNA},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.report()
			var txt, md bytes.Buffer
			if err := Text(&txt, r); err != nil {
				t.Fatal(err)
			}
			if err := Markdown(&md, r); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".txt.golden", txt.Bytes())
			golden(t, tc.name+".md.golden", md.Bytes())
			dir := t.TempDir()
			if err := r.Write(dir); err != nil {
				t.Fatal(err)
			}
			js, err := os.ReadFile(filepath.Join(dir, FileName))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".json.golden", js)
		})
	}
}
