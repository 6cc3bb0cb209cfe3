// Package rtvi encodes and decodes RTVI messages, the JSON envelope pipecat's RTVIProcessor and
// RTVIObserver exchange with clients over a WebRTC data channel:
//
//	{"label":"rtvi-ai","type":"user-transcription","id":"…","data":{…}}
//
// Field names and types follow pipecat's src/pipecat/processors/frameworks/rtvi/models.py
// (RTVI protocol 2.1.0). Client requests carry an id, which pipecat requires; server events such as
// bot-started-speaking carry none. callfleet's WebRTC caller reads these events to time turns
// (user-stopped-speaking to bot-started-speaking) and to read transcripts; the reference agent
// sends them. The package also frames messages as Server-Sent Events for HTTP streaming.
//
// A SmallWebRTC data channel carries two other kinds of text that are not RTVI: keepalive strings
// starting with "ping" (see IsPing), and {"type":"signalling",…} messages without a label, which
// Decode rejects with ErrNotRTVI.
package rtvi
