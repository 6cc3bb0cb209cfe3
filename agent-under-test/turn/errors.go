package turn

import "errors"

var (
	// ErrNegativeDuration means MinSilence or GateHold is below zero.
	ErrNegativeDuration = errors.New("turn: negative duration")
	// ErrOnsetFrames means OnsetFrames is outside [0, MaxOnsetFrames].
	ErrOnsetFrames = errors.New("turn: onset frames out of range")
	// ErrVADConfig means a VADConfig field is out of range or not a number.
	ErrVADConfig = errors.New("turn: invalid VAD config")
)
