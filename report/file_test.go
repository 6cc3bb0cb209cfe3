package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Writers of one report at once each write a whole file under a temporary name of its own: the
// report left is one of theirs, whole, and no temporary file is left behind.
func TestWriteFileConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			r := synthReport()
			r.Config.Target = fmt.Sprintf("writer-%d-%s", i, strings.Repeat("x", 20000*i))
			errs[i] = r.WriteFile(path)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	r, err := Load(path)
	if err != nil || !strings.HasPrefix(r.Config.Target, "writer-") {
		t.Fatalf("left %v, %v: want one writer's whole report", r, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only %s", names, FileName)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v: want 0644", fi.Mode(), err)
	}
}

func TestWriteFileFails(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
	}{
		{"no such folder", filepath.Join(dir, "missing", FileName)},
		{"a folder in the way", dir}, // rename over a non-empty folder fails
	}
	os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := synthReport().WriteFile(tc.path); err == nil {
				t.Fatal("no error")
			}
			entries, _ := os.ReadDir(filepath.Dir(tc.path))
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("left %s behind", e.Name())
				}
			}
		})
	}
}
