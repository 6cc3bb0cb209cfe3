//go:build !race

package audio

const raceEnabled = false
