package compare

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/goccy/go-yaml"
)

// DefaultAlpha is the significance level of the latency test when a gate names none.
const DefaultAlpha = 0.05

// DefaultRules gate a candidate when no rule is given: the reply may not get 10 % slower, turns
// understood may not drop by more than a percentage point, and the capacity may not shrink.
var DefaultRules = []string{
	"p95(speech_end_to_reply) <= +10%",
	"understood >= base-1pp",
	"capacity >= base",
}

// Gate is a set of rules and the significance level of the latency test.
type Gate struct {
	Alpha float64
	Rules []Rule
}

// gateFile is the YAML form:
//
//	alpha: 0.05
//	rules:
//	  - p95(speech_end_to_reply) <= +10%
//	  - understood >= 99.9%
type gateFile struct {
	Alpha *float64 `yaml:"alpha"`
	Rules []string `yaml:"rules"`
}

// DefaultGate is DefaultRules at DefaultAlpha.
func DefaultGate() Gate {
	rules, err := ParseRules(DefaultRules)
	if err != nil {
		panic(err) // the defaults are constants: a test catches a bad one
	}
	return Gate{Alpha: DefaultAlpha, Rules: rules}
}

// NewGate parses rules into a gate at alpha; an alpha outside (0, 1) is ErrAlpha.
func NewGate(alpha float64, rules []string) (Gate, error) {
	if err := checkAlpha(alpha); err != nil {
		return Gate{}, err
	}
	rs, err := ParseRules(rules)
	if err != nil {
		return Gate{}, err
	}
	return Gate{Alpha: alpha, Rules: rs}, nil
}

// ParseGate reads a gate from YAML; unknown keys are errors (ErrGate), and so are every bad rule
// (ErrRule, all at once, each named) and a bad alpha (ErrAlpha). A gate without alpha uses
// DefaultAlpha.
func ParseGate(data []byte) (Gate, error) {
	var f gateFile
	if err := yaml.UnmarshalWithOptions(data, &f, yaml.Strict()); err != nil {
		return Gate{}, fmt.Errorf("%w: %w", ErrGate, err)
	}
	alpha := DefaultAlpha
	if f.Alpha != nil {
		alpha = *f.Alpha
	}
	if len(f.Rules) == 0 {
		return Gate{}, fmt.Errorf("%w: no rules", ErrGate)
	}
	return NewGate(alpha, f.Rules) // its errors name each bad rule (ErrRule) or the alpha (ErrAlpha)
}

// LoadGate reads a gate file.
func LoadGate(path string) (Gate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Gate{}, fmt.Errorf("%w: %w", ErrGate, err)
	}
	g, err := ParseGate(data)
	var joined interface{ Unwrap() []error }
	switch {
	case errors.Is(err, ErrRule) && errors.As(err, &joined):
		parts := joined.Unwrap()
		for i, e := range parts {
			parts[i] = fmt.Errorf("%s: %w", path, e) // every bad rule's line names the file
		}
		return Gate{}, errors.Join(parts...)
	case err != nil:
		return Gate{}, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

func checkAlpha(a float64) error {
	if math.IsNaN(a) || a <= 0 || a >= 1 {
		return fmt.Errorf("%w %v: want a level in (0, 1) such as 0.05", ErrAlpha, a)
	}
	return nil
}
