package stt

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>

// cgo cannot call the variadic cmd_ln_init, so the config is parsed from an argv array.
static int stt_decoder_new(int argc, char **argv, const char *jsgf, ps_decoder_t **out) {
	cmd_ln_t *cfg = cmd_ln_parse_r(NULL, ps_args(), argc, argv, 1);
	if (cfg == NULL) return 1;
	ps_decoder_t *ps = ps_init(cfg);
	cmd_ln_free_r(cfg); // ps_init holds its own reference
	if (ps == NULL) return 2;
	if (ps_set_jsgf_string(ps, "digits", jsgf) < 0) { ps_free(ps); return 3; }
	if (ps_set_search(ps, "digits") < 0) { ps_free(ps); return 4; }
	*out = ps;
	return 0;
}

static void stt_quiet(void) { err_set_logfp(NULL); }

// Live CMN means persist across utterances; these save and restore them.
static int stt_cmn_len(ps_decoder_t *ps) {
	feat_t *f = ps_get_feat(ps);
	return (f && f->cmn_struct) ? f->cmn_struct->veclen : 0;
}
static void stt_cmn_get(ps_decoder_t *ps, mfcc_t *out) { cmn_live_get(ps_get_feat(ps)->cmn_struct, out); }
static void stt_cmn_set(ps_decoder_t *ps, const mfcc_t *v) { cmn_live_set(ps_get_feat(ps)->cmn_struct, v); }

// stt_decode runs one whole utterance; full_utt=1 gives batch CMN over it, which is what
// makes 8 kHz-sourced and non-default voices decode well.
static int stt_decode(ps_decoder_t *ps, const mfcc_t *cmninit, const int16 *pcm, size_t n, const char **hyp) {
	*hyp = NULL;
	if (cmninit) stt_cmn_set(ps, cmninit);
	if (ps_start_stream(ps) < 0) return 1; // resets the noise estimate kept between utterances
	if (ps_start_utt(ps) < 0) return 2;
	int rc = ps_process_raw(ps, pcm, n, 0, 1) < 0 ? 3 : 0;
	if (ps_end_utt(ps) < 0) return 4;
	if (rc) return rc;
	int32 score;
	*hyp = ps_get_hyp(ps, &score);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/callfleet/callfleet/internal/lowprio"
)

// quietOnce silences sphinxbase's process-wide logger, which otherwise writes to stderr.
var quietOnce sync.Once

// quiet disables sphinxbase logging process-wide.
func quiet() { C.stt_quiet() }

// cArgv is a C argv that must outlive its decoder: cmd_ln_parse_r keys its table by the argv
// flag pointers themselves.
type cArgv struct {
	argc C.int
	argv **C.char
	strs []*C.char
}

func newCArgv(args []string) *cArgv {
	a := &cArgv{argc: C.int(len(args))}
	a.argv = (**C.char)(C.calloc(C.size_t(len(args)+1), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	slots := unsafe.Slice(a.argv, len(args)+1)
	for i, s := range args {
		cs := C.CString(s)
		a.strs = append(a.strs, cs)
		slots[i] = cs
	}
	return a
}

func (a *cArgv) free() {
	for _, s := range a.strs {
		C.free(unsafe.Pointer(s))
	}
	C.free(unsafe.Pointer(a.argv))
	a.strs, a.argv = nil, nil
}

// decoder owns one ps_decoder_t; it is used by one goroutine at a time (the pool enforces it).
type decoder struct {
	ps       *C.ps_decoder_t
	args     *cArgv
	initMean []C.mfcc_t // CMN prior at creation (-cmninit), restored per utterance
	nice     int        // Config.Nice: decode on a thread of this nice value (0: the caller's)
}

var newDecoderErrs = map[C.int]string{
	1: "bad pocketsphinx arguments",
	2: "ps_init failed (unreadable model or dictionary; set Config.LogFile for details)",
	3: "grammar rejected (JSGF syntax, or a word missing from the dictionary)",
	4: "ps_set_search failed",
}

// newDecoder runs ps_init; the files named in argv are only read during this call.
func newDecoder(argv []string, grammar string) (*decoder, error) {
	cg := C.CString(grammar)
	defer C.free(unsafe.Pointer(cg))
	args := newCArgv(argv)
	var ps *C.ps_decoder_t
	if rc := C.stt_decoder_new(args.argc, args.argv, cg, &ps); rc != 0 {
		args.free()
		return nil, fmt.Errorf("%w: %s", ErrDecoder, newDecoderErrs[rc])
	}
	d := &decoder{ps: ps, args: args}
	if n := C.stt_cmn_len(ps); n > 0 {
		d.initMean = make([]C.mfcc_t, n)
		C.stt_cmn_get(ps, &d.initMean[0])
	}
	return d, nil
}

var decodeErrs = map[C.int]string{
	1: "ps_start_stream failed", 2: "ps_start_utt failed", 3: "ps_process_raw failed", 4: "ps_end_utt failed",
}

// decode hears one utterance from a clean state, so results never depend on earlier calls.
// The C side only reads pcm during the call, so passing Go memory is allowed.
func (d *decoder) decode(pcm []int16) (digits string, err error) {
	if d.nice > 0 {
		if terr := lowprio.Run(d.nice, func() { digits, err = d.decodeHere(pcm) }); terr != nil {
			return "", terr
		}
		return digits, err
	}
	return d.decodeHere(pcm)
}

func (d *decoder) decodeHere(pcm []int16) (string, error) {
	var mean *C.mfcc_t
	if d.initMean != nil {
		mean = &d.initMean[0]
	}
	var data *C.int16
	if len(pcm) > 0 {
		data = (*C.int16)(unsafe.Pointer(&pcm[0]))
	}
	var hyp *C.char
	if rc := C.stt_decode(d.ps, mean, data, C.size_t(len(pcm)), &hyp); rc != 0 {
		return "", fmt.Errorf("%w: %s", ErrDecoder, decodeErrs[rc])
	}
	if hyp == nil {
		return "", nil
	}
	return wordsToDigits(C.GoString(hyp)), nil
}

func (d *decoder) free() {
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
		d.args.free()
	}
}
