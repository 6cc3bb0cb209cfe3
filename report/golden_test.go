package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/callfleet/callfleet/internal/golden"
)

func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		report func() *Report
	}{
		{"summary", synthReport},
		{"summary_na", synthReportNA},
		{"summary_ears", synthReportEars},
		{"summary_cut", synthReportCut},
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
			golden.Check(t, tc.name+".txt.golden", txt.Bytes())
			golden.Check(t, tc.name+".md.golden", md.Bytes())
			dir := t.TempDir()
			if err := r.Write(dir); err != nil {
				t.Fatal(err)
			}
			js, err := os.ReadFile(filepath.Join(dir, FileName))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".json.golden", js)
		})
	}
}
