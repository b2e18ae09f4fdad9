package aisdk

import (
	"errors"
	"net/http"
)

// ErrInvalidOption reports an option value that cannot be used. NewHandler
// does not fail: every request is then answered 500 with the option's
// [*OptionError], which unwraps to it.
var ErrInvalidOption = errors.New("aisdk: invalid option")

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
	return "aisdk: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// refusal is a refused request: the status it is answered with and why.
// The reason is the response body, so it says what was wrong without
// echoing the request.
type refusal struct {
	status int
	reason string
}

func refuse(status int, reason string) *refusal {
	return &refusal{status: status, reason: reason}
}

func fail(w http.ResponseWriter, r *refusal) {
	http.Error(w, r.reason, r.status)
}
