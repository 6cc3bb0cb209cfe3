package checks

import "errors"

// Named errors; functions wrap them with context, so test with errors.Is.
var (
	// ErrThreshold means a Thresholds field is out of range or not a number.
	ErrThreshold = errors.New("checks: invalid threshold")
	// ErrUnknownName means a name that is not one of an enum's values.
	ErrUnknownName = errors.New("checks: unknown name")
)
