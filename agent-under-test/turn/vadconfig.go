package turn

import "fmt"

// VAD defaults; see VADConfig.
const (
	DefaultThresholdDB = 8.0
	DefaultMinLevelDB  = -55.0
	DefaultMaxTilt     = 1.0
	DefaultFloorRise   = 0.05
	DefaultFloorFall   = 0.5
	DefaultPeriodicity = 0.5
)

const (
	// silenceDB is the level of a frame with no AC energy; log10(0) would be -Inf.
	silenceDB = -120.0
	// floorMinDB keeps the floor finite and below any usable MinLevelDB.
	floorMinDB = -100.0
	// fullScaleDB is 20*log10(32768): a full-scale square wave is 0 dBFS, a full-scale sine -3.01.
	fullScaleDB = 90.30899869919435
	// stationaryFrames (0.8 s) is the window whose quietest frame bounds the floor from below.
	stationaryFrames = 40
	// stationaryMarginDB puts that quietest frame just above the floor, well under ThresholdDB.
	stationaryMarginDB = 3.0
	// startupFrames (100 ms) is how much of a stream the stationarity bound needs before it applies.
	startupFrames = 5
)

// VADConfig tunes the VAD. A zero field takes its default, so VADConfig{} is the default VAD.
type VADConfig struct {
	// ThresholdDB is how far above the noise floor a frame's level must be not to be Quiet (default 8).
	ThresholdDB float64
	// MinLevelDB is the level in dBFS a frame must reach not to be Quiet, whatever the floor
	// (default -55, in (-100, 0]).
	MinLevelDB float64
	// MaxTilt bounds a Voiced frame's first-difference energy over its energy: 0 for DC, 2 for
	// white noise and an impulse, about 0.1-0.5 for voiced speech (default 1; 4 turns the cue off).
	MaxTilt float64
	// MinPeriodicity is the normalised autocorrelation at a pitch lag (80-400 Hz) a Voiced frame
	// must reach: voiced speech ~0.8-1, noise of any colour under ~0.45 (default 0.5; -1 turns the
	// cue off).
	MinPeriodicity float64
	// FloorRise is the per-frame smoothing of the floor towards a louder frame that is not Voiced;
	// a step is at most FloorRise*ThresholdDB (default 0.05).
	FloorRise float64
	// FloorFall is the per-frame smoothing of the floor towards a quieter frame (default 0.5).
	FloorFall float64
}

// withDefaults fills zero fields so callers can set only what they change.
func (c VADConfig) withDefaults() VADConfig {
	for _, f := range c.fields() {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return c
}

// vadField is one VADConfig field with its valid range (lo, hi], or [lo, hi] if closed.
type vadField struct {
	name   string
	v      *float64
	lo, hi float64
	def    float64
	closed bool
}

// fields lists c's fields for validation and repair.
func (c *VADConfig) fields() [6]vadField {
	return [6]vadField{
		{"ThresholdDB", &c.ThresholdDB, 0, 60, DefaultThresholdDB, false},
		{"MinLevelDB", &c.MinLevelDB, floorMinDB, 0, DefaultMinLevelDB, false},
		{"MaxTilt", &c.MaxTilt, 0, 4, DefaultMaxTilt, false},
		{"FloorRise", &c.FloorRise, 0, 1, DefaultFloorRise, false},
		{"FloorFall", &c.FloorFall, 0, 1, DefaultFloorFall, false},
		{"MinPeriodicity", &c.MinPeriodicity, -1, 1, DefaultPeriodicity, true},
	}
}

// ok also rejects NaN, for which every comparison is false.
func (f vadField) ok() bool { return (*f.v > f.lo || f.closed && *f.v == f.lo) && *f.v <= f.hi }

// Validate reports the first out-of-range field (zero fields are defaults and always valid).
func (c VADConfig) Validate() error {
	c = c.withDefaults()
	for _, f := range c.fields() {
		if !f.ok() {
			return fmt.Errorf("%w: %s = %v, want %v to %v", ErrVADConfig, f.name, *f.v, f.lo, f.hi)
		}
	}
	return nil
}

// sanitize replaces every invalid field by its default.
func sanitize(c VADConfig) VADConfig {
	c = c.withDefaults()
	for _, f := range c.fields() {
		if !f.ok() {
			*f.v = f.def
		}
	}
	return c
}
