package stt

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// adaptedFS holds the digit-adapted parameters of Debian's en-us model (model/en-us-digits/README.md
// says how they were made); the rest of that model is read from Config.HMM.
//
//go:embed model/en-us-digits/means model/en-us-digits/variances model/en-us-digits/sendump model/en-us-digits/transition_matrices
var adaptedFS embed.FS

// adaptedFlags map each embedded file to the pocketsphinx flag that overrides -hmm's copy.
var adaptedFlags = [][2]string{
	{"-mean", "means"}, {"-var", "variances"}, {"-sendump", "sendump"}, {"-tmat", "transition_matrices"},
}

// adaptedBase are the files of Config.HMM the adapted parameters were trained against, by sha256
// (pocketsphinx-en-us 0.8+5prealpha+1-15); another mdef would number the senones differently.
var adaptedBase = map[string]string{
	"mdef":        "2360f9a86889c1cfee8bd618a0269387911e5fb2920a594f506b18b8c79683b0",
	"feat.params": "9f8058c107ebbc42abef6d39c67c6aedbcf60ac371332e550994e12a0392cb02",
}

// checkAdaptedBase fails when hmm's mdef or feat.params are not the ones the overlay fits.
func checkAdaptedBase(hmm string) error {
	for name, want := range adaptedBase {
		path := filepath.Join(hmm, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("stt: adapted model base %s: %w", path, err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			return fmt.Errorf("%w: Adapted needs Debian's en-us model in HMM, but %s differs from it (set Adapted=false to use HMM as is)", ErrBadConfig, path)
		}
	}
	return nil
}

// writeAdapted writes the embedded files into dir and returns their pocketsphinx flags; ps_init
// reads (or maps) them at once, so dir may be removed as soon as the decoder exists.
func writeAdapted(dir string) ([]string, error) {
	var args []string
	for _, f := range adaptedFlags {
		b, err := adaptedFS.ReadFile("model/en-us-digits/" + f[1])
		if err != nil {
			return nil, fmt.Errorf("stt: embedded model %s: %w", f[1], err)
		}
		path := filepath.Join(dir, f[1])
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("stt: write adapted model: %w", err)
		}
		args = append(args, f[0], path)
	}
	return args, nil
}
