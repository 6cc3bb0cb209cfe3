package turn

// onVoiced handles a frame inside a voiced run of K or more.
func (d *Detector) onVoiced(n int) Event {
	fresh := d.coreEnd != n-1 // the run reached K on this frame
	d.coreEnd = n
	if !fresh || d.st == speaking {
		d.last = n
		return Event{}
	}
	// The run began K-1 frames ago; its leading fringe reaches back at most Fringe, unbroken.
	at := max(d.chain, n-d.k+1-d.fringe, d.lastAt+1)
	d.last = n
	if d.st == idle {
		d.st, d.start = speaking, at
		return d.emit(SpeechStarted, at)
	}
	d.st = speaking
	return d.emit(SpeechResumed, at)
}

// onSilence fires SpeechStopped or TurnEnd once enough frames after the last speech frame are
// certainly silence.
func (d *Detector) onSilence(n int) Event {
	gap := d.undecided(n) - 1 - d.last
	switch {
	case d.st == speaking && gap >= d.ns && d.ng == 0:
		return d.endTurn(n)
	case d.st == speaking && gap >= d.ns:
		d.st = holding
		return d.emit(SpeechStopped, n)
	case d.st == holding && gap >= d.ns+d.ng:
		return d.endTurn(n)
	}
	return Event{}
}

// undecided is the first frame up to n that may still turn out to be speech (n+1 if none): the
// frames of an unbroken non-Quiet run that a voiced run of K could still claim as leading
// fringe, or its own first frames.
func (d *Detector) undecided(n int) int {
	if d.chain > n {
		return n + 1
	}
	earliestRun := n - d.vrun + 1 // n+1 unless a short voiced run is in progress
	return max(d.chain, earliestRun-d.fringe, d.last+1)
}

func (d *Detector) endTurn(n int) Event {
	d.st = idle
	return d.emit(TurnEnd, n)
}

// emit builds the event; SpeechStarted and SpeechResumed carry the frame being pushed as LastSpeech.
func (d *Detector) emit(k Kind, at int) Event {
	d.lastAt = at
	return Event{Kind: k, At: at, Start: d.start, LastSpeech: d.last}
}

// Reset returns to the start of a stream: no turn, frame index 0, the VAD's floor forgotten.
func (d *Detector) Reset() {
	d.vad.Reset()
	d.st, d.next, d.vrun, d.chain = idle, 0, 0, 0
	d.coreEnd, d.start, d.last, d.lastAt = noFrame, 0, noFrame, -1
}

// InSpeech is true from SpeechStarted or SpeechResumed until SpeechStopped or TurnEnd.
func (d *Detector) InSpeech() bool { return d.st == speaking }

// InTurn is true from SpeechStarted until TurnEnd, the hold included.
func (d *Detector) InTurn() bool { return d.st != idle }

// NextFrame is the index the next non-empty Push will get, i.e. the frames pushed so far.
func (d *Detector) NextFrame() int { return d.next }

// Floor is the VAD's current noise floor in dBFS, for metrics.
func (d *Detector) Floor() float64 { return d.vad.Floor() }
