package mcp

import "errors"

// ErrInvalidOption reports an option value that cannot be used, such as a
// negative [WithMaxTools]: [Tools] returns an [*OptionError] that unwraps
// to it, and asks the server nothing.
var ErrInvalidOption = errors.New("mcp: invalid option")

// OptionError is the error for an option value that cannot be used. It
// unwraps to [ErrInvalidOption].
type OptionError struct {
	// Option is the offending option as its String method prints it.
	Option string
	// Reason says what is wrong with it.
	Reason string
}

// Error names the option and the reason.
func (e *OptionError) Error() string {
	return "mcp: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// reject keeps the first bad option's error.
func (c *config) reject(o Option, reason string) {
	if c.err == nil {
		c.err = &OptionError{Option: o.String(), Reason: reason}
	}
}
