// Package turn is the reference voice agent's voice activity detector (VAD) and end-of-turn
// logic. It reads the caller's audio in 20 ms frames of 16 kHz mono PCM16 (FrameSamples = 320)
// and says when the caller starts speaking (SpeechStarted: the agent stops its reply, barge-in)
// and when the caller's turn is over (TurnEnd: the transcript goes on to the LLM).
//
// # The two settings
//
//   - MinSilence (default 1100 ms): continuous non-speech after the last speech frame that ends
//     the caller's speech (SpeechStopped).
//   - GateHold (default 400 ms): after SpeechStopped the turn is held open this much longer.
//     Speech that resumes inside the hold joins the same turn (SpeechResumed, no new turn); when
//     the hold runs out with no speech the turn ends (TurnEnd), exactly once per turn.
//
// # Exact semantics, in frames
//
// Durations round up to whole frames: Ns = max(1, Frames(MinSilence)), Ng = Frames(GateHold),
// E = Frames(Fringe). The VAD rates each frame Quiet, Unvoiced (loud enough, but broadband or
// aperiodic) or Voiced. Speech frames are the runs of at least K = OnsetFrames (default 2)
// consecutive Voiced frames, each widened by up to E unbroken non-Quiet frames on either side
// (the s of "six" before its vowel, the ks after it); every other frame is silence, including a
// click or a burst on its own. With L the last speech frame and S the silence frames between L
// and the next speech frame:
//
//   - S < Ns: nothing happens, the dip is part of the speech.
//   - Ns <= S < Ns+Ng: SpeechStopped at frame L+Ns; SpeechResumed (At = L+S+1), same turn.
//   - S >= Ns+Ng: SpeechStopped at L+Ns and TurnEnd at L+Ns+Ng; the next speech is a new turn.
//
// Hence TurnEnd.At-TurnEnd.LastSpeech == Ns+Ng, and a pause splits a turn iff the silence the VAD
// sees is >= MinSilence+GateHold (a threshold reached is a threshold crossed: S == Ns stops the
// speech, S == Ns+Ng ends the turn). With GateHold 0 there is no hold: the frame that would emit
// SpeechStopped emits TurnEnd instead (one event per frame).
//
// The detector is online, so speech that is still undecided (a voiced run shorter than K, or
// non-Quiet frames a run could still claim as its leading fringe) holds a due SpeechStopped or
// TurnEnd until it is decided. Debouncing and the fringe therefore add no bias: if the run
// comes, the silence really was shorter and the event was right not to fire; if not, the frames
// count as silence and the event fires late, by at most K-1+E frames, and only when such sound
// (a cough, a burst) falls right on the due frame. Event.At never goes back: a new turn's At is
// after the previous event's.
//
// From audio to frames: a pause of P ms between two halves of a phrase covers x = P/20 frames.
// Frame-aligned (starting on a frame boundary) with sharp speech edges it is seen as S = x frames
// when x is whole; otherwise each partial frame at its two ends is speech or not depending on how
// much speech it holds, so floor(x)-1 <= S <= ceil(x)+1. For T = MinSilence+GateHold a multiple of
// 20 ms, a pause is therefore one turn whatever its alignment for P <= T-40 ms and two turns for
// P >= T+20 ms; aligned, it splits iff P >= T. With the defaults (T = 1500 ms): one turn up to
// 1460 ms, two from 1520 ms, and 1480/1500 ms depend on where the pause falls in the frame grid.
// The same holds for MinSilence and SpeechStopped/SpeechResumed. This is what the tests assert on
// synthetic speech; with real voices P counts from the end of the last audible sound to the
// start of the next, so consonants drowned by background noise (a th or f under noise at 20 dB
// SNR) lengthen the silence the VAD sees.
//
// Onset latency: SpeechStarted is returned by the Push of the K-th voiced frame of the run, K
// frames (40 ms) after the start of its first voiced frame. If the caller's first full frame of
// voicing is voiced, the event is out within (K+1)*20 = 60 ms of the first voiced sample,
// wherever it falls in its frame. Its At is earlier by K-1 frames plus any leading fringe; keep
// a pre-roll of audio for the transcriber from At, not from the Push that returned the event.
//
// # Echo
//
// The input carries only the caller: WebRTC and Twilio media streams deliver the far end's audio
// without the agent's own voice mixed in, so there is no echo to cancel and no AEC here. The
// detector keeps running while the agent speaks; a SpeechStarted then is a barge-in.
//
// # The VAD
//
// Each frame's level (RMS after removing the frame's DC, in dBFS; digital silence is -120) is
// compared with an adaptive noise floor: a frame is Quiet unless level >= floor+ThresholdDB and
// level >= MinLevelDB, so digital silence and very quiet noise are never speech. A loud frame is
// Voiced if it is not broadband (first-difference energy over energy, 0 for DC, 2 for white noise
// and a click, ~0.1-0.5 for voiced speech, at most MaxTilt) and it is periodic: decimated to
// 4 kHz and pre-emphasised, its normalised autocorrelation reaches MinPeriodicity at some pitch
// lag between 80 and 400 Hz (voiced speech ~0.8-1; noise of any colour stays under 0.5). Other
// loud frames are Unvoiced. The floor follows frames that are not Voiced, falling fast and rising
// slowly, and never lies more than 3 dB under the quietest frame of the last 0.8 s, so a
// stationary sound stops being loud within 0.8 s (within 0.1 s when it is there from the first
// frame and nothing in it is voiced); speech, which always dips between syllables and words,
// keeps its floor.
package turn
