//go:build race

package scenarios

// timingSlack widens timing tolerances under the race detector, which slows Go code 5-10x.
const timingSlack = 3
