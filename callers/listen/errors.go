package listen

import "errors"

var (
	// ErrQueueFull means a reply was refused at once: the ears' queue held MaxQueue replies.
	ErrQueueFull = errors.New("listen: decode queue full")
	// ErrWaitTimeout means a reply waited MaxWait for a decoder and was given up on.
	ErrWaitTimeout = errors.New("listen: decode wait timed out")
	// ErrReplyTooLong means a reply held more audio than the ears take.
	ErrReplyTooLong = errors.New("listen: reply too long to transcribe")
	// ErrSTTServer means a transcription server did not transcribe a reply.
	ErrSTTServer = errors.New("listen: transcription server failed")
)
