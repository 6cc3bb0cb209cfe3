// Package checks turns what callers saw into verdicts: a turn understood or failed (with one reason
// from a closed list), a call clean or not, a step ok or not (the TurnCall rule) and the capacity of
// a ramp. Everything here is a pure function of callers' records: no I/O, no clocks, no network.
//
// # Turn
//
// A turn is understood when the agent's final server transcript says the phrase's digits
// (server_transcript, n/a when the target exposes no transcripts) and the caller's own
// transcription of the agent's reply says them too (caller_transcription). Digits are compared
// after speech.Normalize. Finals without digits (a cough, "um") are ignored; more than one final
// with digits is a split. A failed turn carries the first reason that applies, in this order
// (causes before their consequences):
//
//	connect_failed   the call never got media
//	hangup           the agent ended the call during the turn
//	cancelled        the run stopped (Ctrl-C, deadline) during the turn
//	error            the caller or transport failed during the turn
//	late_transcript  a final arrived after the next turn began and no right final came on time
//	split            more than one final with digits: the agent cut the phrase into two turns
//	no_answer        no reply audio before the answer timeout
//	timeout          the reply did not end within the reply timeout
//	not_heard        no final server transcript
//	wrong_transcript the final server transcript has other digits
//	underrun         the reply was misheard by the caller and its playout ran dry (transport)
//	wrong_reply      the reply was misheard, the server transcript right or n/a (LLM, TTS)
//
// Underruns do not fail a turn the caller understood: they count against the step (per minute of
// agent audio). They name the reason only when the reply could not be understood.
//
// An understood turn has no reason even when something ended it afterwards: the call verdict sees
// the hang-up. Turn.Error names a reason when its first word (before any ':') is one ("timeout: reply"); any
// other error is "error". An answer timeout with no reply audio is no_answer.
//
// # Step and capacity
//
// A step is ok when the generator kept up (send lateness p99 and generator CPU under their
// thresholds), every call connected and every turn got reply audio, underruns stay within
// Thresholds.UnderrunsPerMin per minute of agent audio, p95 speech_end_to_reply stays within
// Thresholds.P95Slack of the first step's median, and at least Thresholds.MinUnderstood of the
// turns were understood. Capacity is the largest N with every step up to it ok, in order of N.
//
// Percentiles use montanaflynn/stats Percentile: linear interpolation between closest ranks
// (Hyndman & Fan type 7, as NumPy and R default), rounded to the microsecond.
package checks
