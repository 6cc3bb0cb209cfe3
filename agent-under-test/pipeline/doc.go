// Package pipeline is one call of the reference agent: the cascade from the caller's audio to the
// agent's reply, each stage with one job. Inbound 20 ms frames (16 kHz) go through the VAD and
// end-of-turn detector; a turn's audio goes to the digit transcriber; the transcript to the LLM;
// its text to the TTS, streamed; the audio to a paced sender on a drift-free 20 ms clock. Caller
// speech during a reply stops it at once (barge-in); silence brings an idle prompt, then a hang-up.
//
// The transport (Twilio Media Streams or WebRTC) decodes inbound audio, calls Push, and plays
// what the pacer hands its Output; RTVI events go to an Events sink. The caller's voice is the
// only audio in the input (no echo of the agent), so no echo canceller is needed.
package pipeline
