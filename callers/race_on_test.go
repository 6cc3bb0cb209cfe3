//go:build race

package callers

// timingSlack widens scheduling tolerances under the race detector, which slows Go code 5-10x.
const timingSlack = 3
