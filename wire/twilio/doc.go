// Package twilio encodes and decodes the JSON messages of Twilio Media Streams, the WebSocket
// protocol a <Connect><Stream> call speaks, as specified in Twilio's "Media Streams WebSocket
// messages" reference (https://www.twilio.com/docs/voice/media-streams/websocket-messages).
//
// Both ends of a callfleet call use it: the synthetic caller plays Twilio's side (it sends
// connected, start, media, mark echoes, dtmf and stop, and receives media, mark and clear) and the
// reference agent plays the application's side. Decode accepts any of these messages; the Append*
// functions build them. Numeric fields that Twilio sends as JSON strings (sequenceNumber,
// media.chunk, media.timestamp) are strings on the wire and integers in Message; mediaFormat's
// sampleRate and channels are JSON numbers, as in Twilio's examples.
//
// The package also builds and parses the <Connect><Stream> TwiML that starts a stream, and computes
// and checks the X-Twilio-Signature of a webhook request ("Twilio Security": HMAC-SHA1 over the
// full URL followed by the sorted POST parameters, base64-encoded).
package twilio
