package agent

import (
	"context"
	"errors"

	"github.com/gorilla/websocket"

	"github.com/callfleet/callfleet/agent-under-test/pipeline"
)

// hangup is why the agent ended a call, and what it tells the caller.
type hangup struct {
	reason string // the reason label of agent_hangups_total; "" = the agent did not hang up
	code   int    // the websocket close code (RFC 6455 §7.4.1)
	text   string // the close reason
	notify bool   // also sent as a fatal RTVI error, for clients that show why the call ended
}

// hangupReason tells why a call's Run ended: the idle guard, Shutdown, the maximum call length,
// or none of them (the caller left).
func (s *Server) hangupReason(ctx context.Context, runErr error) hangup {
	switch {
	case errors.Is(runErr, pipeline.ErrIdle):
		return hangup{reason: "idle", code: websocket.CloseNormalClosure, text: "idle"}
	case s.ctx.Err() != nil:
		return hangup{reason: "shutting_down", code: websocket.CloseGoingAway, text: "agent shutting down"}
	case errors.Is(context.Cause(ctx), ErrMaxCallLength):
		return hangup{reason: "max_call_length", code: websocket.CloseNormalClosure,
			text: context.Cause(ctx).Error(), notify: true}
	}
	return hangup{}
}
