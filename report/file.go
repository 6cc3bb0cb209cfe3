package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// FileName is the report's name in a run directory.
const FileName = "report.json"

// Write writes dir/report.json, indented, through a temporary file renamed into place so a reader
// never sees half a report.
func (r *Report) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode: %w", err)
	}
	b = append(b, '\n')
	path := filepath.Join(dir, FileName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}

// Load reads a report.json; a report of another schema is ErrSchema.
func Load(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: load: %w", err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("report: load %s: %w", path, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("%w: %s is %q, want %q", ErrSchema, path, r.Schema, Schema)
	}
	return &r, nil
}

// TurnsPath is where the report's turn records are, given where the report itself is.
func (r *Report) TurnsPath(reportPath string) string {
	if r.TurnsFile == "" || filepath.IsAbs(r.TurnsFile) {
		return r.TurnsFile
	}
	return filepath.Join(filepath.Dir(reportPath), r.TurnsFile)
}
