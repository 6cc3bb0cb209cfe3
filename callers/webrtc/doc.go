// Package webrtc is the synthetic caller's WebRTC transport: a Dialer that places calls to a
// voice agent as a browser would, and the Conn the turn loop talks through.
//
// A call is one pion PeerConnection with one sendrecv Opus transceiver and one data channel.
// The offer carries every ICE candidate (no trickle) and goes to the agent through
// wire/signaling, either pipecat's SmallWebRTC endpoint (POST /api/offer, JSON) or WHIP
// (RFC 9725: POST application/sdp, 201 with Location, DELETE to hang up). Dial returns once ICE
// and DTLS are connected, the call's connect mark.
//
// Media follows RFC 7587 (Opus in RTP): 20 ms packets, a 48 kHz RTP clock whatever the coded
// bandwidth, opus/48000/2 in SDP. Clips are sent as the pool pre-encoded them, one packet per
// tick, so sending costs no encoding; agent audio is decoded straight to 16 kHz, with loss
// concealment for sequence gaps, and reaches Audio stamped with its arrival time. The caller
// models the jitter buffer (Dialer.JitterBuffer) rather than running one. Packets arriving more
// than Dialer.MaxAhead ahead of real time (a flood) are dropped before decoding and counted
// (callers.Chunk.Dropped, Stats.AheadDropped); data channel messages are capped at
// MaxDataChannelMessage (RFC 8841 a=max-message-size).
//
// The data channel speaks what pipecat's SmallWebRTCTransport expects of its own clients
// (pipecat src/pipecat/transports/smallwebrtc/connection.py and the client-web-transports
// small-webrtc-transport): the audio transceiver comes first, the channel is labelled "chat"
// and ordered, and once it opens the caller sends RTVI client-ready; the agent's bot-ready
// closes Ready (or ReadyTimeout does, for targets without RTVI), its RTVI events go to Events,
// and its {"type":"signalling","message":{"type":"peerLeft"}} ends the call as a hang-up. The
// caller sends no "ping" keepalives: pipecat would then expect one every 3 s.
//
// pion/mediadevices is not used: it wraps capture devices and live encoders (with its own
// static libopus), and a caller that sends pre-encoded packets needs neither.
package webrtc
