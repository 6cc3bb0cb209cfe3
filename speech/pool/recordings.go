package pool

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/tts"
)

var digitNames = [10][]string{
	{"zero", "oh", "0"}, {"one", "1"}, {"two", "2"}, {"three", "3"}, {"four", "4"},
	{"five", "5"}, {"six", "6"}, {"seven", "7"}, {"eight", "8"}, {"nine", "9"},
}

// Recordings builds phrases from a user's own recordings of digit words (real voices): one WAV per
// digit word, several takes allowed, named like "seven.wav", "seven-2.wav", "7_take3.wav" or
// "seven/any.wav". Each take is trimmed to its voiced part; phrases join takes with short gaps.
type Recordings struct {
	dir   string
	takes [10][][]int16 // per digit, 16 kHz voiced takes
	Gap   int           // samples of silence between words
	// MaxGap, when above Gap, makes each gap a stable pick in [Gap, MaxGap] (by phrase and
	// position), so phrases do not all share one rhythm.
	MaxGap int
	Pad    int // samples of silence before and after the phrase
}

var _ Source = (*Recordings)(nil)

// LoadRecordings reads every WAV in dir (and its digit-named subfolders).
func LoadRecordings(dir string) (*Recordings, error) {
	r := &Recordings{dir: dir, Gap: Rate * 80 / 1000, Pad: Rate / 5}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".wav") {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		digit, ok := digitOf(rel)
		if !ok {
			return nil
		}
		take, err := loadTake(path)
		if err != nil {
			return err
		}
		r.takes[digit] = append(r.takes[digit], take)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load voices from %s: %w", dir, err)
	}
	for d, t := range r.takes {
		if len(t) == 0 {
			return nil, fmt.Errorf("load voices from %s: %w: no recording of %q (want e.g. %s.wav)", dir, ErrNoRecordings, digitNames[d][0], digitNames[d][0])
		}
	}
	return r, nil
}

// digitOf reads the digit a recording's relative path names by its first path element or the
// leading word of its file name.
func digitOf(rel string) (int, bool) {
	first := strings.ToLower(strings.SplitN(filepath.ToSlash(rel), "/", 2)[0])
	first = strings.TrimSuffix(first, filepath.Ext(first))
	word := strings.FieldsFunc(first, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ' ' })
	if len(word) == 0 {
		return 0, false
	}
	for d, names := range digitNames {
		for _, n := range names {
			if word[0] == n {
				return d, true
			}
		}
	}
	return 0, false
}

func loadTake(path string) ([]int16, error) {
	clip, err := audio.ReadWAVFile(path)
	if err != nil {
		return nil, err
	}
	pcm, err := clip.Mono()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if clip.Rate != Rate {
		pcm = audio.Resample(pcm, clip.Rate, Rate)
	}
	// Relative to the take's own peak: people record quietly, and the absolute floor that clip
	// marks use would cut a quiet speaker's words down to their vowels.
	first, last, ok := tts.VoicedBoundsRelative(pcm, Rate)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrSilent)
	}
	return pcm[first : last+1], nil
}

// Name names the source by its folder.
func (r *Recordings) Name() string { return "recordings:" + filepath.Base(r.dir) }

// Render joins one take per digit; the take is chosen from the phrase and position, so the same
// phrase always sounds the same.
func (r *Recordings) Render(digits string) ([]int16, error) {
	out := make([]int16, r.Pad)
	for i, ch := range digits {
		if ch < '0' || ch > '9' {
			return nil, fmt.Errorf("phrase %q: %w", digits, ErrBadDigits)
		}
		takes := r.takes[ch-'0']
		if i > 0 {
			out = append(out, make([]int16, r.gap(digits, i))...)
		}
		out = append(out, takes[pickTake(digits, i, len(takes))]...)
	}
	return append(out, make([]int16, r.Pad)...), nil
}

func pickTake(digits string, pos, n int) int {
	return int(phraseHash(digits, pos, "") % uint32(n))
}

// gap is the silence before word pos: Gap, or a stable pick up to MaxGap.
func (r *Recordings) gap(digits string, pos int) int {
	if r.MaxGap <= r.Gap {
		return r.Gap
	}
	return r.Gap + int(phraseHash(digits, pos, "gap")%uint32(r.MaxGap-r.Gap+1))
}

func phraseHash(digits string, pos int, salt string) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d%s", digits, pos, salt)
	return h.Sum32()
}

// Digits lists how many takes each digit has, for a summary line.
func (r *Recordings) Digits() map[string]int {
	m := map[string]int{}
	for d, t := range r.takes {
		m[digitNames[d][0]] = len(t)
	}
	return m
}
