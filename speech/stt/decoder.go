package stt

/*
#cgo pkg-config: pocketsphinx sphinxbase
#include <stdlib.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

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
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// quietOnce silences sphinxbase's process-wide logger, which otherwise writes to stderr.
var quietOnce sync.Once

// cArgv is a C argv kept alive for the model's lifetime, since sphinxbase may keep pointers into it.
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
	ps *C.ps_decoder_t
}

var newDecoderErrs = map[C.int]string{
	1: "bad pocketsphinx arguments",
	2: "ps_init failed (unreadable model or dictionary; set Config.LogFile for details)",
	3: "grammar rejected (JSGF syntax, or a word missing from the dictionary)",
	4: "ps_set_search failed",
}

func newDecoder(args *cArgv, grammar string) (*decoder, error) {
	cg := C.CString(grammar)
	defer C.free(unsafe.Pointer(cg))
	var ps *C.ps_decoder_t
	if rc := C.stt_decoder_new(args.argc, args.argv, cg, &ps); rc != 0 {
		return nil, fmt.Errorf("%w: %s", ErrDecoder, newDecoderErrs[rc])
	}
	return &decoder{ps: ps}, nil
}

func (d *decoder) start() error {
	if C.ps_start_utt(d.ps) < 0 {
		return fmt.Errorf("%w: ps_start_utt failed", ErrDecoder)
	}
	return nil
}

// process feeds samples; C only reads the slice during the call, so passing Go memory is allowed.
func (d *decoder) process(pcm []int16) error {
	if len(pcm) == 0 {
		return nil
	}
	if C.ps_process_raw(d.ps, (*C.int16)(unsafe.Pointer(&pcm[0])), C.size_t(len(pcm)), 0, 0) < 0 {
		return fmt.Errorf("%w: ps_process_raw failed", ErrDecoder)
	}
	return nil
}

// end closes the utterance and returns the grammar words heard, as digits.
func (d *decoder) end() (string, error) {
	if C.ps_end_utt(d.ps) < 0 {
		return "", fmt.Errorf("%w: ps_end_utt failed", ErrDecoder)
	}
	var score C.int32
	h := C.ps_get_hyp(d.ps, &score)
	if h == nil {
		return "", nil
	}
	return wordsToDigits(C.GoString(h)), nil
}

func (d *decoder) free() {
	if d.ps != nil {
		C.ps_free(d.ps)
		d.ps = nil
	}
}

// quiet disables sphinxbase logging process-wide.
func quiet() { C.stt_quiet() }
