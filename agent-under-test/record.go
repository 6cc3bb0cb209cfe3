package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
	"github.com/callfleet/callfleet/audio"
)

// maxAgentLag bounds the agent frames waiting for a caller frame to pair with (2 s).
const maxAgentLag = 100

// recorder writes a call as a stereo 16 kHz WAV (caller left, agent right) as it goes. Both sides
// arrive a frame per 20 ms; each caller frame is written beside the oldest agent frame not yet
// written, so the two stay aligned to within the transports' jitter without a clock of their own.
// The WAV writer keeps its header valid after every write: a killed agent leaves playable files.
type recorder struct {
	mu     sync.Mutex
	w      *audio.WAVWriter
	agent  [][]int16
	free   [][]int16
	stereo []int16
	err    error
}

var _ pipeline.Recorder = (*recorder)(nil)

func newRecorder(dir, id string) (*recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("recording dir: %w", err)
	}
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == '.' || r < ' ' {
			return '_'
		}
		return r
	}, id)
	path, err := claimFile(dir, safe, ".wav")
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", id, err)
	}
	// CreateWAV truncates: the file is the empty one just claimed, no one else's recording.
	w, err := audio.CreateWAV(path, pipeline.Rate, 2)
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", id, err)
	}
	return &recorder{w: w, stereo: make([]int16, 2*pipeline.FrameSamples)}, nil
}

// maxSuffix bounds the names tried for one call id (a callSid reused across agent restarts).
const maxSuffix = 1000

// claimFile creates dir/name+ext, or dir/name-1+ext, -2, ... whichever does not exist yet, with
// O_EXCL so that no existing recording, nor one another agent is writing, is ever overwritten.
func claimFile(dir, name, ext string) (string, error) {
	for i := 0; i < maxSuffix; i++ {
		p := filepath.Join(dir, name+ext)
		if i > 0 {
			p = filepath.Join(dir, fmt.Sprintf("%s-%d%s", name, i, ext))
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("claim %s: %w", p, err)
		}
		if err := f.Close(); err != nil {
			return "", fmt.Errorf("claim %s: %w", p, err)
		}
		return p, nil
	}
	return "", fmt.Errorf("claim %s%s: %d names taken: %w", name, ext, maxSuffix, fs.ErrExist)
}

func (r *recorder) Caller(frame []int16) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var agent []int16
	if len(r.agent) > 0 {
		agent = r.agent[0]
		r.agent = r.agent[1:]
		defer func() { r.free = append(r.free, agent) }()
	}
	r.write(frame, agent)
}

func (r *recorder) Agent(frame []int16) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.agent) >= maxAgentLag {
		r.write(nil, r.agent[0]) // the caller side stalled: keep the agent's audio anyway
		r.free = append(r.free, r.agent[0])
		r.agent = r.agent[1:]
	}
	var buf []int16
	if n := len(r.free); n > 0 {
		buf, r.free = r.free[n-1], r.free[:n-1]
	} else {
		buf = make([]int16, pipeline.FrameSamples)
	}
	if frame == nil {
		clear(buf)
	} else {
		copy(buf, frame)
	}
	r.agent = append(r.agent, buf)
}

func (r *recorder) write(left, right []int16) {
	if r.err != nil || r.w == nil {
		return
	}
	for i := 0; i < pipeline.FrameSamples; i++ {
		var l, rr int16
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			rr = right[i]
		}
		r.stereo[2*i], r.stereo[2*i+1] = l, rr
	}
	r.err = r.w.Write(r.stereo)
}

// Close writes what the agent said after the caller's last frame and closes the file.
func (r *recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return nil
	}
	for _, a := range r.agent {
		r.write(nil, a)
	}
	r.agent = nil
	err := r.w.Close()
	r.w = nil
	if r.err != nil {
		return fmt.Errorf("recording: %w", r.err)
	}
	return err
}
