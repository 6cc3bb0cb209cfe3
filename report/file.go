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
	return r.WriteFile(filepath.Join(dir, FileName))
}

// WriteFile writes the report to path the way Write writes dir/report.json.
func (r *Report) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode: %w", err)
	}
	if err := writeAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("report: write: %w", err)
	}
	return nil
}

// writeAtomic replaces path with data: written to a temporary file of a unique name in the same
// folder (two writers never share one), synced, then renamed over path, and the folder synced,
// so a crash or power cut leaves the old file or the new one, never half of one.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil { // CreateTemp makes 0600; a report is for everyone to read
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable; best effort, as some filesystems cannot sync a folder.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
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
