package stt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/callfleet/callfleet/internal/lowprio"
)

// DebianHMM is where the Debian package pocketsphinx-en-us installs the US English acoustic model.
const DebianHMM = "/usr/share/pocketsphinx/model/en-us/en-us"

// SampleRate is the only rate the acoustic model was trained on; callers resample to it.
const SampleRate = 16000

// digitsDict is cut from cmudict-en-us.dict; alternates of "one" and "zero" matter for accuracy.
const digitsDict = `eight EY T
five F AY V
four F AO R
nine N AY N
oh OW
one W AH N
one(2) HH W AH N
seven S EH V AH N
six S IH K S
three TH R IY
two T UW
zero Z IH R OW
zero(2) Z IY R OW
`

// DefaultGrammar admits exactly 4 or 5 digits; a closed grammar is what makes the small model accurate.
const DefaultGrammar = `#JSGF V1.0;
grammar digits;
public <digits> = <d> <d> <d> <d> [<d>];
<d> = zero | oh | one | two | three | four | five | six | seven | eight | nine;
`

// Config selects the model files and decoder tuning.
type Config struct {
	// HMM is the acoustic model directory (mdef, means, variances, ...).
	HMM string
	// Adapted overlays the embedded digit-adapted means, variances, mixture weights and
	// transition matrices (model/en-us-digits) on HMM, which must then be Debian's en-us model:
	// only its mdef, feat.params and noisedict are read. Off in DefaultConfig (see there).
	Adapted bool
	// Dict is a pronunciation dictionary path, read whenever a decoder is created;
	// "" uses the embedded 13-line digits dictionary (cut from cmudict-en-us).
	Dict string
	// LW is the language (grammar) weight, pocketsphinx -lw.
	LW float64
	// WIP is the word insertion penalty, pocketsphinx -wip, in (0, 1].
	WIP float64
	// Grammar is the JSGF grammar text; "" uses DefaultGrammar. Its words must be in Dict.
	Grammar string
	// MaxDecoders bounds the decoder pool (~5 MB resident each); 0 means GOMAXPROCS*4.
	MaxDecoders int
	// MaxUtterance bounds one utterance (and so a Stream's buffer); 0 means DefaultMaxUtterance.
	MaxUtterance time.Duration
	// Args are extra pocketsphinx flag/value pairs, e.g. {"-silprob", "0.1"}; they override the fields.
	Args []string
	// Nice, when > 0, runs each decoder on an OS thread of its own at this nice value (1–19), so a
	// process's real-time work (20 ms senders) preempts decoding; 0 decodes on the caller's thread.
	Nice int
	// LogFile receives pocketsphinx logs; "" disables them (they go to stderr otherwise).
	LogFile string
}

// DefaultConfig returns the Debian model paths and the tuning chosen by TestSweep
// (sweep_test.go): exact-match accuracy is flat (80–83% over 5 voices × 2 channels) for
// lw·ln(wip) between about -18 and -37; lw=5 wip=0.01 sits mid-plateau with the fewest empty
// results, away from the cliff where strong penalties return nothing (lw=6 wip=1e-6: 34%).
// Adapted stays off: it hears human speakers better but inserts digits into the default agent
// voice (flite:rms/10 98.1–99.0 % against 99.6–100 %), under the accuracy table's 99.5 % floor.
func DefaultConfig() Config {
	return Config{
		HMM:  DebianHMM,
		LW:   5,
		WIP:  0.01,
		Nice: lowprio.Nice,
		Args: append([]string(nil), CheapSearch...),
	}
}

// CheapSearch is a cheaper search that gave up nothing measurable: 3 of the 4 Gaussians scored
// per senone (-topn) and a phone lookahead (-pl_window). Repeated interleaved sweeps (rms, one
// run of the three settings after another) measured 0.0214 cpu-s per audio-s for the full search,
// 0.0191 for this and 0.0180 with tighter beams too (-beam 1e-30 -wbeam 1e-20); the beams cost
// kal16 10 points on telephone audio and espeak 10 on Opus in the accuracy table, so they are out.
var CheapSearch = []string{"-topn", "3", "-pl_window", "10"}

// hmmFiles are what ps_init opens from the model directory; checked up front for a clear error.
var hmmFiles = []string{"mdef", "means", "variances", "transition_matrices", "feat.params", "noisedict"}

// adaptedHMMFiles are what ps_init still opens from HMM when Config.Adapted supplies the rest.
var adaptedHMMFiles = []string{"mdef", "feat.params", "noisedict"}

// validate checks ranges and that every model file exists, naming the first missing one.
func (c Config) validate() error {
	if c.HMM == "" {
		return fmt.Errorf("%w: HMM directory is empty", ErrBadConfig)
	}
	if !(c.LW > 0) {
		return fmt.Errorf("%w: LW must be > 0, got %g", ErrBadConfig, c.LW)
	}
	if !(c.WIP > 0 && c.WIP <= 1) {
		return fmt.Errorf("%w: WIP must be in (0, 1], got %g", ErrBadConfig, c.WIP)
	}
	if c.MaxDecoders < 0 {
		return fmt.Errorf("%w: MaxDecoders must be >= 0, got %d", ErrBadConfig, c.MaxDecoders)
	}
	if c.Nice < 0 || c.Nice > 19 {
		return fmt.Errorf("%w: Nice must be in 0..19, got %d", ErrBadConfig, c.Nice)
	}
	if c.MaxUtterance < 0 {
		return fmt.Errorf("%w: MaxUtterance must be >= 0, got %v", ErrBadConfig, c.MaxUtterance)
	}
	// The JSGF lexer echoes unmatched input to stdout, so reject non-JSGF text before it.
	if c.Grammar != "" && !strings.HasPrefix(strings.TrimSpace(c.Grammar), "#JSGF") {
		return fmt.Errorf("%w: Grammar must be JSGF text starting with #JSGF", ErrBadConfig)
	}
	if len(c.Args)%2 != 0 {
		return fmt.Errorf("%w: Args must be flag/value pairs, got %d items", ErrBadConfig, len(c.Args))
	}
	for i := 0; i < len(c.Args); i += 2 {
		if !strings.HasPrefix(c.Args[i], "-") {
			return fmt.Errorf("%w: Args[%d]=%q is not a -flag", ErrBadConfig, i, c.Args[i])
		}
	}
	files := hmmFiles
	if c.Adapted {
		files = adaptedHMMFiles
	}
	for _, f := range files {
		if err := mustExist(filepath.Join(c.HMM, f)); err != nil {
			return err
		}
	}
	// PTM/semi models ship sendump; continuous ones mixture_weights.
	if c.Adapted {
		if err := checkAdaptedBase(c.HMM); err != nil {
			return err
		}
	} else if mustExist(filepath.Join(c.HMM, "sendump")) != nil {
		if err := mustExist(filepath.Join(c.HMM, "mixture_weights")); err != nil {
			return fmt.Errorf("%w (nor sendump)", err)
		}
	}
	if c.Dict != "" {
		if err := mustExist(c.Dict); err != nil {
			return err
		}
	}
	return nil
}

func mustExist(path string) error {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrModelMissing, path)
		}
		return fmt.Errorf("stt: model file %s: %w", path, err)
	}
	return nil
}

func (c Config) grammar() string {
	if c.Grammar == "" {
		return DefaultGrammar
	}
	return c.Grammar
}

// DefaultMaxUtterance is far longer than any digit phrase; a Stream buffers 32 KB per second.
const DefaultMaxUtterance = 30 * time.Second

func (c Config) maxSamples() int {
	d := c.MaxUtterance
	if d <= 0 {
		d = DefaultMaxUtterance
	}
	return int(d.Seconds() * SampleRate)
}

func (c Config) maxDecoders() int {
	if c.MaxDecoders > 0 {
		return c.MaxDecoders
	}
	return runtime.GOMAXPROCS(0) * 4
}

// argv builds the pocketsphinx command line; no -lm, because the default LM costs 27 MB and 190 ms.
// model are flag/value pairs naming model files that replace -hmm's own.
func (c Config) argv(dictPath string, model ...string) []string {
	a := []string{
		"-hmm", c.HMM,
		"-dict", dictPath,
		"-samprate", strconv.Itoa(SampleRate),
		"-lw", strconv.FormatFloat(c.LW, 'g', -1, 64),
		"-wip", strconv.FormatFloat(c.WIP, 'g', -1, 64),
	}
	a = append(a, model...)
	if c.LogFile != "" {
		a = append(a, "-logfn", c.LogFile)
	}
	// Args override flags set above: pocketsphinx rejects a repeated flag.
	for i := 0; i+1 < len(c.Args); i += 2 {
		if j := slices.Index(a, c.Args[i]); j >= 0 && j%2 == 0 {
			a[j+1] = c.Args[i+1]
		} else {
			a = append(a, c.Args[i], c.Args[i+1])
		}
	}
	return a
}
