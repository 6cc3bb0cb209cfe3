// Package twilio is the caller's Twilio transport: it plays Twilio's side of a Media Streams call
// against an agent's websocket, as Twilio's "Media Streams WebSocket messages" reference
// (https://www.twilio.com/docs/voice/media-streams/websocket-messages) specifies it for a
// bidirectional <Connect><Stream>.
//
// The caller sends connected, then start (streamSid, callSid and accountSid inside start, tracks
// ["inbound"], mediaFormat audio/x-mulaw 8000 Hz mono, customParameters), then one media message
// of 160 mu-law bytes every 20 ms (sequenceNumber, chunk and timestamp as strings), and stop when
// it hangs up. From the agent it obeys media (any size, played in order at real time), mark
// (echoed once the audio sent before it has played) and clear (queued audio dropped; pending
// marks echoed at once, as Twilio does).
//
// An agent is not trusted: media arriving more than Dialer.MaxAhead ahead of real time is dropped
// before it is decoded and counted (callers.Chunk.Dropped); binary frames, malformed JSON, bad
// base64 and unknown events are skipped; a message over the read limit ends the call (1009);
// marks waiting to be echoed are bounded; close reasons and status lines are cleaned
// (internal/safetext) before they reach an error.
//
// Optionally it first posts Twilio's voice webhook to the agent's TwiML URL, signed with
// X-Twilio-Signature ("Webhooks security": https://www.twilio.com/docs/usage/webhooks/webhooks-security),
// and dials the <Stream url> the TwiML returns. Server transcripts come from an events URL the
// user gives (Server-Sent Events of RTVI messages, as the reference agent serves them).
package twilio
