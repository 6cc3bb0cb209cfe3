package turn

import (
	"fmt"
	"math"
)

// Class is a VAD's verdict on one frame; the zero value Quiet is "nothing there".
type Class uint8

const (
	// Quiet: below the floor threshold or the absolute minimum level.
	Quiet Class = iota
	// Unvoiced: loud enough but broadband or aperiodic: a fricative or burst next to speech, or a
	// click, hiss or noise burst on its own. It never starts speech; see Config.Fringe.
	Unvoiced
	// Voiced: loud enough, low tilt and periodic at a pitch period: the stuff of speech.
	Voiced
)

var classNames = [...]string{"Quiet", "Unvoiced", "Voiced"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", c)
}

// VAD classifies 20 ms frames; see the package doc. It is not safe for concurrent use; give each
// stream its own.
type VAD struct {
	cfg   VADConfig
	floor float64
	// recent holds the last stationaryFrames levels, a ring starting at pos (+Inf when unseen).
	recent [stationaryFrames]float64
	pos    int
	seen   int  // frames since Reset, up to stationaryFrames
	voiced bool // a frame since Reset was voiced
	pitch  periodicity
}

// NewVAD returns a VAD with a low floor (speech at the very start is heard). NewVAD never fails:
// zero fields take their defaults and so do invalid ones; use cfg.Validate to catch those.
func NewVAD(cfg VADConfig) *VAD {
	v := &VAD{cfg: sanitize(cfg)}
	v.Reset()
	return v
}

// Reset forgets the floor, the recent levels and the pitch history, as for a new stream.
func (v *VAD) Reset() {
	v.floor = floorMinDB
	for i := range v.recent {
		v.recent[i] = math.Inf(1)
	}
	v.pos, v.seen, v.voiced = 0, 0, false
	v.pitch.reset()
}

// Floor is the current noise floor in dBFS.
func (v *VAD) Floor() float64 { return v.floor }

// Frame reports whether one frame is voiced speech, and its level in dBFS; see Classify.
func (v *VAD) Frame(pcm []int16) (speech bool, level float64) {
	c, level := v.Classify(pcm)
	return c == Voiced, level
}

// Classify rates one frame and returns its level in dBFS (RMS re full scale after removing the
// frame's DC; -120 for digital silence). Any length >= 1 is one frame (the level is per sample,
// periodicity uses the last FrameSamples); an empty frame is Quiet and changes nothing.
func (v *VAD) Classify(pcm []int16) (c Class, level float64) {
	if len(pcm) == 0 {
		return Quiet, silenceDB
	}
	power, tilt := analyse(pcm)
	level = powerDB(power)
	v.pitch.push(pcm)
	switch {
	case level < v.cfg.MinLevelDB || level < v.floor+v.cfg.ThresholdDB:
		c = Quiet
	case tilt <= v.cfg.MaxTilt && (v.cfg.MinPeriodicity < 0 || v.pitch.periodic(v.cfg.MinPeriodicity)):
		c = Voiced // the costly periodicity is only computed for loud, low-tilt frames
	default:
		c = Unvoiced
	}
	v.track(level, c)
	return c, level
}

// analyse returns the frame's mean AC power per sample (its DC removed, so an offset is not
// sound) and its tilt: first-difference power over that power.
func analyse(pcm []int16) (power, tilt float64) {
	var sum, sq, dsq int64
	prev := int64(pcm[0])
	for _, s := range pcm {
		x := int64(s)
		sum += x
		sq += x * x
		d := x - prev
		dsq += d * d
		prev = x
	}
	n := float64(len(pcm))
	mean := float64(sum) / n
	power = float64(sq)/n - mean*mean
	if len(pcm) < 2 || power <= 1e-9 { // rounding can leave a tiny residue on a constant frame
		return 0, 0
	}
	return power, float64(dsq) / (n - 1) / power
}

// powerDB converts power per sample to dBFS, clamping silence to silenceDB.
func powerDB(power float64) float64 {
	if power <= 0 {
		return silenceDB
	}
	return max(10*math.Log10(power)-fullScaleDB, silenceDB)
}

// track moves the floor towards frames that are not voiced, fast down and slowly up (a step at
// most FloorRise*ThresholdDB, so a loud fricative barely moves it), and never far below the
// quietest frame of the last 0.8 s, so a stationary sound cannot pass for speech for long. Line
// noise from the first frame is met sooner: if nothing was voiced in the first 100 ms, the
// quietest frame so far bounds the floor from then on.
func (v *VAD) track(level float64, c Class) {
	v.recent[v.pos] = level
	v.pos = (v.pos + 1) % len(v.recent)
	v.seen = min(v.seen+1, stationaryFrames)
	v.voiced = v.voiced || c == Voiced
	switch {
	case c == Voiced:
	case level < v.floor:
		v.floor += v.cfg.FloorFall * (level - v.floor)
	default:
		v.floor += v.cfg.FloorRise * min(level-v.floor, v.cfg.ThresholdDB)
	}
	quietest := v.recent[0]
	for _, l := range v.recent[1:] {
		quietest = min(quietest, l)
	}
	if v.seen < stationaryFrames && (v.seen < startupFrames || v.voiced) {
		quietest = math.Inf(-1) // too little seen to tell a noise from a first word
	}
	v.floor = min(max(v.floor, quietest-stationaryMarginDB, floorMinDB), 0)
}
