// Package signaling exchanges WebRTC offers and answers with a voice agent over HTTP, in the two
// ways callfleet supports:
//
//   - SmallWebRTC: pipecat's SmallWebRTCTransport endpoint (the runner's POST /api/offer). The
//     client posts {"sdp","type":"offer"} as JSON and gets {"sdp","type":"answer","pc_id"} back;
//     field names follow pipecat's SmallWebRTCRequest (src/pipecat/transports/smallwebrtc/
//     request_handler.py). Trickled ICE candidates go in a PATCH to the same URL.
//   - WHIP, RFC 9725: the client posts the offer as application/sdp and gets 201 Created with the
//     answer as application/sdp and the session's URL in Location; DELETE on that URL ends it.
//
// Both implement Signaler, which the WebRTC caller uses without caring which one it talks to. The
// package also has the server-side checks the reference agent applies to incoming offers
// (DecodeOffer, ReadWHIPOffer).
package signaling
