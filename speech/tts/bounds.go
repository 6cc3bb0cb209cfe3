package tts

import "math"

// Voiced-bounds thresholds: a 10 ms window is voiced when its RMS is above both the absolute floor
// and the level 40 dB under the clip's peak, so quiet clips and loud clips are judged alike.
const (
	boundsWindow   = 0.010 // seconds
	boundsFloorDB  = -45.0 // dBFS
	boundsBelowPkD = 40.0  // dB under the peak sample
	// relFloorDB only keeps dither (a few LSB) from counting as a voice in VoicedBoundsRelative.
	relFloorDB = -80.0 // dBFS
)

// VoicedBounds returns the indices of the first and last voiced samples of a mono clip; ok is
// false when no 10 ms window is loud enough. Windows whose RMS exceeds max(-45 dBFS, peak-40 dB)
// are voiced; the bounds are then refined to the first and last sample whose magnitude exceeds that
// same level, searched from the window before the first voiced one and up to the window after the
// last, since a window straddling an onset may itself fall under the RMS threshold.
func VoicedBounds(pcm []int16, rate int) (first, last int, ok bool) {
	return voicedBounds(pcm, rate, boundsFloorDB)
}

// VoicedBoundsRelative is VoicedBounds judged by the peak alone (40 dB under it, floor -80 dBFS),
// for recordings of people: a speaker peaking at -30 dBFS keeps the consonants and vowel onsets
// that the -45 dBFS floor cuts off (one such FSDD speaker went from 0 % to 45 % of phrases heard).
func VoicedBoundsRelative(pcm []int16, rate int) (first, last int, ok bool) {
	return voicedBounds(pcm, rate, relFloorDB)
}

// voicedBounds is VoicedBounds with the absolute floor given in dBFS.
func voicedBounds(pcm []int16, rate int, floorDB float64) (first, last int, ok bool) {
	if len(pcm) == 0 || rate <= 0 {
		return 0, 0, false
	}
	win := max(1, int(math.Round(float64(rate)*boundsWindow)))
	peak := 0
	for _, s := range pcm {
		peak = max(peak, absSample(s))
	}
	floor := 32768 * math.Pow(10, floorDB/20)
	thr := max(floor, float64(peak)*math.Pow(10, -boundsBelowPkD/20))
	if float64(peak) <= thr {
		return 0, 0, false
	}
	// RMS > thr  <=>  sum of squares > thr² · n, kept in integers for speed.
	thr2 := thr * thr
	firstWin, lastWin := -1, -1
	for start := 0; start < len(pcm); start += win {
		end := min(start+win, len(pcm))
		var sum int64
		for _, s := range pcm[start:end] {
			sum += int64(s) * int64(s)
		}
		if float64(sum) > thr2*float64(end-start) {
			if firstWin < 0 {
				firstWin = start
			}
			lastWin = start
		}
	}
	if firstWin < 0 {
		return 0, 0, false
	}
	// Refine inside the edge windows plus one neighbour each side; a voiced window always holds
	// a sample above thr (its RMS is), so both searches succeed.
	amp := int(thr) // |s| > thr  <=>  |s| > floor(thr) for integer s
	first, last = firstWin, min(len(pcm), lastWin+win)-1
	for i := max(0, firstWin-win); i < min(len(pcm), firstWin+win); i++ {
		if absSample(pcm[i]) > amp {
			first = i
			break
		}
	}
	for i := min(len(pcm), lastWin+2*win) - 1; i >= lastWin; i-- {
		if absSample(pcm[i]) > amp {
			last = i
			break
		}
	}
	return first, last, true
}

// absSample is |s| without int16 overflow at -32768.
func absSample(s int16) int {
	return max(int(s), -int(s))
}
