package listen

import (
	"sync/atomic"
	"time"
)

// EarsStats are an Ears' counters, for the controller's view of generator health: whether the
// ears keep up (Waiting, DecodeWait), what hearing costs (DecodeTime per second of Audio), and
// how many turns they left unjudged and why. Counters only grow; Sub gives a step's share.
type EarsStats struct {
	Slots int // replies heard at once: decoders, or concurrent requests to a server

	Requests     uint64 // replies given to the ears (Finish calls)
	Heard        uint64 // replies heard: a result, digits or none
	Failures     uint64 // the decode or request failed: a decoder or server error, a bad response, a reply too long
	Timeouts     uint64 // a request to a transcription server timed out
	QueueFull    uint64 // refused at once: MaxQueue replies were already waiting
	WaitTimeouts uint64 // given up after MaxWait without a decoder
	Cancelled    uint64 // abandoned because the call ended first

	Waiting int // replies waiting for a decoder now
	Busy    int // replies being decoded now

	Started    uint64        // replies that got a decoder: the count DecodeWait, DecodeTime and Audio sum over
	DecodeWait time.Duration // their total wait for a decoder (Hearing.Wait)
	DecodeTime time.Duration // their total decode time (Hearing.Time)
	Audio      time.Duration // their total reply audio
}

// Unjudged is the replies the ears could not hear for the generator's reasons.
func (s EarsStats) Unjudged() uint64 { return s.Failures + s.Timeouts + s.QueueFull + s.WaitTimeouts }

// MeanWait is the mean wait for a decoder of the replies that got one.
func (s EarsStats) MeanWait() time.Duration { return mean(s.DecodeWait, s.Started) }

// MeanTime is the mean decode time of the replies that got a decoder.
func (s EarsStats) MeanTime() time.Duration { return mean(s.DecodeTime, s.Started) }

// Cost is decode time per second of reply audio (0 before any decode): with the audio a caller's
// turns bring per second, what Slots decoders can keep up with.
func (s EarsStats) Cost() float64 {
	if s.Audio <= 0 {
		return 0
	}
	return s.DecodeTime.Seconds() / s.Audio.Seconds()
}

// Sub returns the counters since prev (an earlier Stats of the same ears); the gauges (Slots,
// Waiting, Busy) are s's.
func (s EarsStats) Sub(prev EarsStats) EarsStats {
	s.Requests -= prev.Requests
	s.Heard -= prev.Heard
	s.Failures -= prev.Failures
	s.Timeouts -= prev.Timeouts
	s.QueueFull -= prev.QueueFull
	s.WaitTimeouts -= prev.WaitTimeouts
	s.Cancelled -= prev.Cancelled
	s.Started -= prev.Started
	s.DecodeWait -= prev.DecodeWait
	s.DecodeTime -= prev.DecodeTime
	s.Audio -= prev.Audio
	return s
}

func mean(total time.Duration, n uint64) time.Duration {
	if n == 0 {
		return 0
	}
	return total / time.Duration(n)
}

// counters are EarsStats as they are kept: atomics, updated by every caller's reply goroutines.
type counters struct {
	requests, heard, failures, timeouts, queueFull, waitTimeouts, cancelled, started atomic.Uint64
	waiting, busy                                                                    atomic.Int64
	waitNs, timeNs, audioNs                                                          atomic.Int64
}

func (c *counters) snapshot(slots int) EarsStats {
	return EarsStats{
		Slots:    slots,
		Requests: c.requests.Load(), Heard: c.heard.Load(), Failures: c.failures.Load(),
		Timeouts: c.timeouts.Load(), QueueFull: c.queueFull.Load(), WaitTimeouts: c.waitTimeouts.Load(),
		Cancelled: c.cancelled.Load(),
		Waiting:   int(c.waiting.Load()), Busy: int(c.busy.Load()),
		Started:    c.started.Load(),
		DecodeWait: time.Duration(c.waitNs.Load()), DecodeTime: time.Duration(c.timeNs.Load()),
		Audio: time.Duration(c.audioNs.Load()),
	}
}
