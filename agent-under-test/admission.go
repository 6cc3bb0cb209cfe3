package agent

import (
	"fmt"
	"strings"
	"sync"
)

// Connections still sending their offer or start hold no call slot, but a file descriptor and a
// goroutine each, for up to SetupTimeout: as many may wait as calls may be live (at least
// minSetups), or maxSetupsUnlimited when the live calls are not limited.
const (
	minSetups          = 64
	maxSetupsUnlimited = 4096
)

func setupLimit(maxCalls int) int {
	if maxCalls <= 0 {
		return maxSetupsUnlimited
	}
	return max(maxCalls, minSetups)
}

// setup holds a place for a connection whose offer or start has not arrived; done gives it back.
func (s *Server) setup() (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, ErrShuttingDown
	}
	if s.setups >= s.maxSetups {
		s.m.refusals.WithLabelValues("setup_limit").Inc()
		return nil, fmt.Errorf("%w (%d)", ErrSetupLimit, s.maxSetups)
	}
	s.setups++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.setups--
			s.mu.Unlock()
		})
	}, nil
}

// admit reserves a live-call slot for the call id, which no live call may have; release gives
// both back. It is called once the offer or start is read and valid, never before.
func (s *Server) admit(transport, id string) (release func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch _, inUse := s.ids[id]; {
	case s.closing:
		s.m.refusals.WithLabelValues("shutting_down").Inc()
		return nil, ErrShuttingDown
	case inUse:
		s.m.refusals.WithLabelValues("call_id_in_use").Inc()
		return nil, fmt.Errorf("%w: %q", ErrCallIDInUse, id)
	case s.cfg.MaxCalls > 0 && s.live >= s.cfg.MaxCalls:
		s.m.refusals.WithLabelValues("max_calls").Inc()
		return nil, fmt.Errorf("%w (%d)", ErrTooManyCalls, s.cfg.MaxCalls)
	}
	s.ids[id] = struct{}{}
	s.live++
	s.wg.Add(1)
	s.m.active.WithLabelValues(transport).Inc()
	s.m.calls.WithLabelValues(transport).Inc()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.live--
			delete(s.ids, id)
			s.mu.Unlock()
			s.m.active.WithLabelValues(transport).Dec()
			s.wg.Done()
		})
	}, nil
}

// validCallID reports whether id may name a call: it becomes an SSE path segment, a log field and
// (made safe) a file name.
func validCallID(id string) bool {
	bad := func(r rune) bool { return r <= ' ' || r > '~' || r == '/' || r == '\\' }
	return id != "" && len(id) <= 128 && strings.IndexFunc(id, bad) < 0
}

// MaxCalls is the live-call limit in force; 0 = none.
func (s *Server) MaxCalls() int { return s.cfg.MaxCalls }
