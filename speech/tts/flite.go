package tts

/*
#cgo CFLAGS: -I/usr/include/flite
#cgo LDFLAGS: -lflite_cmu_us_kal -lflite_cmu_us_kal16 -lflite_cmu_us_awb -lflite_cmu_us_rms -lflite_cmu_us_slt -lflite_usenglish -lflite_cmulex -lflite -lm
#include <stdlib.h>
#include <flite.h>

// The voice libraries ship no headers; these are their entry points (flite 2.2 lang/cmu_us_*).
cst_voice *register_cmu_us_kal(const char *voxdir);
cst_voice *register_cmu_us_kal16(const char *voxdir);
cst_voice *register_cmu_us_awb(const char *voxdir);
cst_voice *register_cmu_us_rms(const char *voxdir);
cst_voice *register_cmu_us_slt(const char *voxdir);

static cst_voice *cf_register(int which) {
	switch (which) {
	case 0: return register_cmu_us_kal(NULL);
	case 1: return register_cmu_us_kal16(NULL);
	case 2: return register_cmu_us_awb(NULL);
	case 3: return register_cmu_us_rms(NULL);
	case 4: return register_cmu_us_slt(NULL);
	}
	return NULL;
}

// cf_sample_rate reads the rate register_* stored in the voice features.
static int cf_sample_rate(cst_voice *v) {
	return get_param_int(v->features, "sample_rate", 0);
}

// cf_synth is flite_text_to_wave without its copy_wave (which crashes when an utterance has no
// wave): the caller copies *w and then deletes the returned utterance. A seed >= 0 reseeds libc
// rand(), the noise source of clustergen's excitation (src/cg/cst_mlsa.c plus_or_minus_one).
// A speed > 0 sets clustergen's mlsa_speed_param on this utterance only (src/cg/cst_cg.c): the
// vocoder then drops that many of the highest mel-cepstral coefficients.
static cst_utterance *cf_synth(const char *text, cst_voice *v, int seed, int speed, cst_wave **w) {
	if (seed >= 0) srand((unsigned)seed);
	cst_utterance *u = new_utterance();
	utt_set_input_text(u, text);
	utt_init(u, v);
	if (speed > 0) feat_set_int(u->features, "mlsa_speed_param", speed);
	if (utt_synth(u) == NULL) {
		delete_utterance(u);
		u = NULL;
	}
	*w = u ? utt_wave(u) : NULL;
	return u;
}
*/
import "C"

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/callfleet/callfleet/internal/lowprio"
)

// fliteIndex maps a flite voice name to its cf_register case.
var fliteIndex = map[string]C.int{"kal": 0, "kal16": 1, "awb": 2, "rms": 3, "slt": 4}

// fliteClustergen marks the statistical-parametric voices, whose vocoder draws noise from libc
// rand(); kal and kal16 are diphone voices and never call it.
var fliteClustergen = map[string]bool{"awb": true, "rms": true, "slt": true}

// maxMLSASpeed bounds the speed-up: rms and slt have 25 static coefficients, and flite keeps at
// least a few whatever the value.
const maxMLSASpeed = 20

// cgSeed is the rand() seed every clustergen utterance starts from, so equal text gives equal audio.
const cgSeed = 1

var (
	fliteInitOnce sync.Once
	// fliteMu guards registration: register_* and cmu_lex_init test-and-set C globals unlocked.
	fliteMu     sync.Mutex
	fliteVoices = map[string]*fliteVoice{}
	// cgMu holds libc's one rand() stream for a whole clustergen utterance, from srand to the
	// last sample, so concurrent utterances cannot interleave their draws.
	cgMu sync.Mutex
)

// fliteVoice is one registered flite voice. register_cmu_us_* returns a per-process singleton, so
// there is one C voice per name and every Flite(name) shares it.
//
// Thread safety: flite synthesis is re-entrant on a shared voice (per-utterance state only;
// checked under ThreadSanitizer with an instrumented flite, see README.md), so diphone voices run
// unlocked on every core; clustergen voices serialise on cgMu, for determinism, not safety.
type fliteVoice struct {
	name string
	rate int
	cg   bool
	// speed is clustergen's mlsa_speed_param, 0 for the full vocoder.
	speed int
	v     *C.cst_voice
}

// Flite returns the flite voice "kal" (8 kHz), "kal16", "awb", "rms" or "slt" (16 kHz). A
// clustergen voice takes a vocoder speed-up as "NAME/K" ("rms/10"): its filter drops the K highest
// mel-cepstral coefficients, cheaper per second of audio at some cost in crispness. The voice is
// registered once per process and is safe for concurrent use.
func Flite(name string) (Voice, error) {
	base, speedText, hasSpeed := strings.Cut(name, "/")
	idx, ok := fliteIndex[base]
	if !ok {
		return nil, fmt.Errorf("flite voice %q: %w", name, ErrUnknownVoice)
	}
	speed := 0
	if hasSpeed {
		n, err := strconv.Atoi(speedText)
		if err != nil || n < 0 || n > maxMLSASpeed || !fliteClustergen[base] {
			return nil, fmt.Errorf("flite voice %q: a speed-up is 0..%d on awb, rms or slt: %w",
				name, maxMLSASpeed, ErrUnknownVoice)
		}
		speed = n
	}
	fliteInitOnce.Do(func() { C.flite_init() })
	fliteMu.Lock()
	defer fliteMu.Unlock()
	if fv, ok := fliteVoices[name]; ok {
		return fv, nil
	}
	cv := C.cf_register(idx)
	if cv == nil {
		return nil, fmt.Errorf("flite voice %q: register failed: %w", name, ErrSynthesis)
	}
	rate := int(C.cf_sample_rate(cv))
	if rate <= 0 {
		return nil, fmt.Errorf("flite voice %q: no sample rate: %w", name, ErrSynthesis)
	}
	fv := &fliteVoice{name: "flite:" + name, rate: rate, cg: fliteClustergen[base], speed: speed, v: cv}
	fliteVoices[name] = fv
	return fv, nil
}

// Name returns "flite:NAME".
func (f *fliteVoice) Name() string { return f.name }

// Rate returns the voice's native sample rate.
func (f *fliteVoice) Rate() int { return f.rate }

// Synthesize speaks text as one utterance.
func (f *fliteVoice) Synthesize(text string) ([]int16, error) {
	text = strings.TrimSpace(text)
	if !speakable(text) {
		return nil, fmt.Errorf("%s: %w", f.name, ErrEmptyText)
	}
	if strings.IndexByte(text, 0) >= 0 {
		return nil, fmt.Errorf("%s: %w", f.name, ErrBadText)
	}
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	seed := C.int(-1)
	if f.cg {
		cgMu.Lock()
		defer cgMu.Unlock()
		seed = cgSeed
	}
	var w *C.cst_wave
	var u *C.cst_utterance
	// A synthesis is one 10-40 ms C call: at low priority, so the 20 ms pacers and senders of the
	// same machine preempt it (package lowprio).
	if err := lowprio.Run(lowprio.Nice, func() { u = C.cf_synth(ctext, f.v, seed, C.int(f.speed), &w) }); err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	if u == nil {
		return nil, fmt.Errorf("%s: synthesise %q: %w", f.name, text, ErrSynthesis)
	}
	defer C.delete_utterance(u)
	if w == nil || w.num_samples <= 0 || w.samples == nil {
		return nil, fmt.Errorf("%s: synthesise %q: no audio: %w", f.name, text, ErrSynthesis)
	}
	if w.num_channels != 1 || int(w.sample_rate) != f.rate {
		return nil, fmt.Errorf("%s: synthesise %q: got %d ch at %d Hz, want mono at %d: %w",
			f.name, text, int(w.num_channels), int(w.sample_rate), f.rate, ErrSynthesis)
	}
	n := int(w.num_samples)
	out := make([]int16, n)
	copy(out, unsafe.Slice((*int16)(unsafe.Pointer(w.samples)), n))
	return out, nil
}

// SynthesizeStream speaks text clause by clause (see splitChunks), emitting each clause's audio
// as soon as it is ready.
func (f *fliteVoice) SynthesizeStream(ctx context.Context, text string, emit func([]int16) error) error {
	return streamChunks(ctx, f, text, emit)
}

// speakable reports whether text has a letter or digit: flite makes no wave for bare punctuation.
func speakable(text string) bool {
	for _, r := range text {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f {
			return true
		}
	}
	return false
}
