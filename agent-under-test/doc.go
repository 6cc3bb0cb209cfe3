// Package agent is callfleet's reference voice agent: a full cascade (VAD, end-of-turn, STT, LLM,
// TTS, barge-in, idle guard, recording) behind the public protocols real agents speak — Twilio
// Media Streams and WebRTC with pipecat's SmallWebRTC signaling and RTVI messages — so callfleet
// is validated end to end on one machine and users have a known-good peer to calibrate against.
//
// Endpoints: POST /twiml, GET /twilio/ws, POST /api/offer, GET /calls/{id}/events (SSE),
// GET /metrics (Prometheus), GET / (a page to talk to it from a browser).
package agent
