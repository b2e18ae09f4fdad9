package llmstream

import (
	"errors"

	"github.com/airlock-go/airlock/sse"
)

// ErrInvalidOption reports an option value that cannot be used: an unknown
// [Dialect], a base URL that is not an http or https URL, [WithVertex]
// with an empty project or a dialect Vertex AI does not serve,
// [WithRequestDefaults] with messages, a bad [WithSSEOptions] value.
// Constructors do not fail: every call of the [Client] (or every event of
// the [Bridge]) returns an [*OptionError] that unwraps to it, and nothing
// is sent.
var ErrInvalidOption = errors.New("llmstream: invalid option")

// OptionError is the error for an option value that cannot be used. It
// names the option as its String method prints it. It unwraps to
// [ErrInvalidOption], to the error of the package the option was passed on
// to (an sse.Option given through [WithSSEOptions] still matches
// sse.ErrInvalidOption), and, for the code written before ErrInvalidOption,
// to the sentinel such a value reported then ([ErrInvalidRequest] or
// [ErrMisuse]).
type OptionError struct {
	// Option is the offending option as its String method prints it, with
	// no credential (options print keys and header values redacted).
	Option string
	// Reason says what is wrong with it.
	Reason string
	// Err is the error of the package the option was passed on to (sse's
	// *OptionError), or nil.
	Err error

	legacy error // ErrInvalidRequest or ErrMisuse, what this value reported before
}

// Error names the option and the reason.
func (e *OptionError) Error() string {
	return "llmstream: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption], and Err and the older sentinel when
// there are.
func (e *OptionError) Unwrap() []error {
	errs := []error{ErrInvalidOption}
	if e.legacy != nil {
		errs = append(errs, e.legacy)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// unknownDialect is the error of a [WithDialect] value that names no
// dialect.
func unknownDialect(d Dialect) error {
	return &OptionError{Option: dialectOption(d).String(), Reason: "unknown dialect", legacy: ErrMisuse}
}

// checkSSEOptions reports the first bad sse.Option of c, as a parser made
// with them reports it, so that a Client fails before it sends anything.
func (c *config) checkSSEOptions() error {
	if len(c.sseOpts) == 0 {
		return nil
	}
	err := sse.NewParser(c.sseOpts...).Feed(nil, nil)
	if err == nil {
		return nil
	}
	var bad *sse.OptionError
	reason := err.Error()
	if errors.As(err, &bad) {
		reason = bad.Option + ": " + bad.Reason
	}
	return &OptionError{Option: sseOption(c.sseOpts).String(), Reason: reason, Err: err}
}
