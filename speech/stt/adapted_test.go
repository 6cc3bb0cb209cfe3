package stt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The decoder must read the embedded means (not Debian's) and leave no temp files behind.
func TestAdaptedOverlay(t *testing.T) {
	logf := filepath.Join(t.TempDir(), "ps.log")
	m := loadDefault(t, func(c *Config) { c.LogFile = logf; c.Adapted = true })
	m.Close()
	b, err := os.ReadFile(logf)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, f := range []string{"means", "variances", "sendump", "transition_matrices"} {
		if strings.Contains(log, filepath.Join(DebianHMM, f)) {
			t.Errorf("decoder read Debian's %s, want the embedded one", f)
		}
	}
	i := strings.Index(log, os.TempDir()+"/callfleet-stt-")
	if i < 0 {
		t.Fatal("decoder log names no embedded model file")
	}
	tmp := strings.Fields(log[i:])[0]
	if _, err := os.Stat(filepath.Dir(tmp)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temp model dir %s left behind (stat: %v)", filepath.Dir(tmp), err)
	}
}

// Another model's mdef would number senones differently: Adapted must refuse it.
func TestAdaptedWrongBase(t *testing.T) {
	dir := t.TempDir()
	for _, f := range adaptedHMMFiles {
		b, err := os.ReadFile(filepath.Join(DebianHMM, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "mdef" {
			b = append(b, 0)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.HMM, cfg.Adapted = dir, true
	if _, err := Load(cfg); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), "mdef") {
		t.Errorf("err = %v, want ErrBadConfig naming mdef", err)
	}
}
