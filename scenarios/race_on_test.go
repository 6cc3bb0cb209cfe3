//go:build race

package scenarios

// timingSlack widens timing tolerances under the race detector, which slows Go code 5-10x;
// closeSlack the hang-up's, since a WebRTC hang-up reaches the caller through pion's close path.
const (
	timingSlack = 3
	closeSlack  = 8
)
