// Package checks turns what callers saw into verdicts: a turn understood or not (with one reason
// from a closed list), a call clean or not, a step ok, failed or incomplete (the TurnCall rule),
// the calibration of the caller's ears and the capacity of a ramp. Everything here is a pure
// function of callers' records: no I/O, no clocks, no network, no printing.
//
// # Witnesses
//
// A turn has up to three accounts of its phrase, compared as digits after speech.Normalize:
//
//	server_transcript     the agent's final transcript (what it heard); n/a without a transcript channel
//	agent_text            the agent's own reply text (what it meant to say: RTVI bot-output,
//	                      bot-tts-text, LiveKit's agent transcription), its chunks joined; n/a without
//	caller_transcription  the caller's transcription of the reply audio (what a caller heard); n/a
//	                      when the generator could not complete it (Turn.Unjudged, transcribe_failed)
//
// # Turn
//
// A turn is understood when the server transcript says the phrase (or is n/a) and the caller's
// transcription says it. The agent's text does not change that (a caller who heard the phrase heard
// it), but names what failed. Finals without digits (a cough, "um") are ignored; more than one
// final with digits is a split. A turn not understood carries the first reason that applies, in
// this order (causes before their consequences):
//
//	connect_failed   the call never got media
//	hangup           the agent ended the call during the turn
//	cancelled        the run stopped (the user, a deadline, the generator) during the turn
//	error            the caller or transport failed during the turn
//	connection_lost  the transport was lost during the turn
//	overrun          agent audio came so far ahead of real time that the caller dropped some
//	late_transcript  a final arrived after the next turn began and no right final came on time
//	split            more than one final with digits: the agent cut the phrase into two turns
//	no_answer        no reply audio before the answer timeout
//	timeout          the reply did not end within the reply timeout
//	not_heard        no final server transcript
//	wrong_transcript the final server transcript has other digits
//	wrong_reply      the agent's text says other digits (known without the caller's ears); or,
//	                 without agent text, the caller heard other digits (LLM, TTS)
//	underrun         the caller heard other digits and the reply's playout ran dry (transport)
//	misheard         the agent's text is the phrase, the caller heard other digits: the caller's
//	                 ears, or the agent's TTS, transport or playout
//	slip             one STT step slipped by one digit (below)
//	unjudged         the caller-side check was not completed and nothing else failed
//
// Every reason has an Outcome: understood (none), slip, unjudged, cancelled, or failed (the rest).
// Reason.Failed is true for failed only: unjudged is the generator's shortfall and cancelled the
// run's, never the agent's failure; a slip is counted apart. A call's reason is its first failure
// when it has one (a failed turn outranks a cancelled one), else its first other reason.
//
// A slip: exactly one STT step — the server transcript (a single final) or the caller's
// transcription — is one digit edit (insertion, deletion or substitution: Levenshtein 1) off the
// phrase, every other witness present says the phrase, and at least two witnesses say it. With two
// witnesses only (no agent text, or no transcript channel) there is no slip: one agreeing witness
// cannot tell an ear's slip from the agent saying other digits. The agent's text never slips (it
// is not STT). An outranking reason (underrun, error, ...) wins over a slip.
//
// Underruns do not fail a turn the caller understood: they count against the step (per minute of
// agent audio). An understood turn has no reason even when something ended it afterwards: the
// call verdict sees the hang-up. Turn.Error names a reason by its first word (before any ':'):
// a reason's name, or a callers error word (reply_timeout is timeout, transcribe_failed is
// unjudged); anything else is error. An answer timeout with no reply audio is no_answer.
//
// # Calibration
//
// Calibrate compares the caller's transcription with the agent's own text (BasisAgentText, over
// the turns that carry it) or, when no turn does, with the single server final (an echo says back
// what it heard). Only replies heard whole count: reply audio, the check completed, no error,
// hang-up, underrun or dropped audio. Below MinCalibration (95 %) the ears are not trusted.
// Steps calibrates on the lowest step with a turn to compare (CalibrateSteps); StepsCalibrated
// takes a calibration. When not trusted every step carries a note naming --stt-url, and failures
// resting on the caller's transcription alone (TurnVerdict.CallerOnly: underrun, wrong_reply,
// misheard or a caller slip with the server transcript and the agent's text right or n/a) do not
// fail it: the understood rule then rests on the server transcript and the agent's text. They
// are still counted in the tally and the cross-table.
//
// # Step and capacity
//
// A step is ok when the generator kept up (send lateness p99 and generator CPU under their
// thresholds, no turn unjudged, decode wait p95 within Thresholds.MaxDecodeWaitP95), every call
// connected and every turn got reply audio (turns cancelled or unjudged, and calls the run
// cancelled or holding such a turn, aside), underruns stay within Thresholds.UnderrunsPerMin per
// minute of agent audio, p95 speech_end_to_reply stays within Thresholds.P95Slack of the first
// completed step's median, slips stay within Thresholds.TolerateSlips per 1,000 judged turns, and
// at least Thresholds.MinUnderstood of the judged turns (neither unjudged nor cancelled) were
// understood, tolerated slips counting as understood. A generator shortfall makes the step
// generator_bound: its figures are not trusted.
//
// A step the controller cut short (StepInput.Cut) is incomplete: OK false, never FAIL; its rules'
// findings are still listed. Capacity is the largest N with every completed step up to it ok, in
// order of N; incomplete steps are passed over, and when one lies above the capacity it is "at
// least N" (Capacity.Incomplete).
//
// Percentiles use montanaflynn/stats Percentile: linear interpolation between closest ranks
// (Hyndman & Fan type 7, as NumPy and R default), rounded to the microsecond.
package checks
