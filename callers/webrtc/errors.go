package webrtc

import "errors"

var (
	// ErrConfig means a Config cannot place calls: unknown signaling kind, missing URL.
	ErrConfig = errors.New("webrtc: bad config")
	// ErrConnect means the peer connection failed or closed before it connected.
	ErrConnect = errors.New("webrtc: peer connection did not connect")
	// ErrFailed means the peer connection failed after connecting (ICE or DTLS failure).
	ErrFailed = errors.New("webrtc: peer connection failed")
	// ErrDisconnected means the peer connection stayed disconnected past the grace period.
	ErrDisconnected = errors.New("webrtc: peer connection disconnected")
	// ErrClosed means the call has ended: Send and SendSilence after Close or a hang-up.
	ErrClosed = errors.New("webrtc: call closed")
	// ErrFrame means Send was given a clip without Opus packets or a frame index out of range.
	ErrFrame = errors.New("webrtc: no such opus frame")
)
