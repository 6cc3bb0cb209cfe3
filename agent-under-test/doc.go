// Package agent is callfleet's reference voice agent: a full cascade (VAD, end-of-turn, STT, LLM,
// TTS, barge-in, idle guard, recording) behind the public protocols real agents speak — Twilio
// Media Streams and WebRTC with pipecat's SmallWebRTC signaling and RTVI messages — so callfleet
// is validated end to end on one machine and users have a known-good peer to calibrate against.
//
// Endpoints: POST /twiml, GET /twilio/ws, POST /api/offer, GET /calls/{id}/events (SSE),
// GET /metrics (Prometheus), GET / (a page to talk to it from a browser).
//
// It stands up to hostile or broken clients: a call slot is taken only once a valid offer or
// Twilio start has arrived (within Config.SetupTimeout), the live-call limit defaults to what the
// process's file descriptors and memory hold (Resources), call ids are unique across transports,
// calls end at Config.MaxCallLength, recordings never overwrite a file, event subscribers are
// capped, and bad input is counted by transport and kind and logged once per call and kind.
package agent
