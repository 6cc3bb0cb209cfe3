//go:build race

package audio

// raceEnabled lets slow numeric tests shrink under the race detector, which
// slows float loops by two orders of magnitude.
const raceEnabled = true
