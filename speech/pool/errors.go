package pool

import "errors"

var (
	// ErrSilent means a rendered phrase held no voiced sample.
	ErrSilent = errors.New("rendered phrase has no voiced audio")
	// ErrEmptyPool means a pool was asked for with no phrases.
	ErrEmptyPool = errors.New("pool has no phrases")
	// ErrNoRecordings means a voices folder lacks a recording of some digit word.
	ErrNoRecordings = errors.New("voices folder lacks a digit")
	// ErrBadDigits means a phrase held something other than digits.
	ErrBadDigits = errors.New("phrase must be digits only")
)
