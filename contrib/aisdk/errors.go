package aisdk

import (
	"errors"
	"net/http"
)

// ErrInvalidOption reports an option value that cannot be used. NewHandler
// does not fail: every request is then answered 500 with the option's
// error, which unwraps to it.
var ErrInvalidOption = errors.New("aisdk: invalid option")

// ErrRefused reports a request the Handler refused, with nothing run. The
// error is a [*RequestError] that unwraps to it; its Status is the HTTP
// status the request was answered with.
var ErrRefused = errors.New("aisdk: request refused")

// RequestError is a refused request: the status it was answered with and
// why. It unwraps to [ErrRefused]. Reason is sent to the client as the
// response body, so it says what was wrong without echoing the request.
type RequestError struct {
	// Status is the HTTP status: 400 for a malformed request, 404 for an
	// unknown chat, 405 for a method not served, 409 for a request that
	// does not fit the chat as this server holds it (a history it did not
	// send, an approval for a call not pending, a run going on), 413 for
	// a body over the limit, 503 when too many runs go on.
	Status int
	// Reason says what was wrong.
	Reason string
}

// Error returns the status text and the reason.
func (e *RequestError) Error() string {
	return "aisdk: " + http.StatusText(e.Status) + ": " + e.Reason
}

// Unwrap returns [ErrRefused].
func (e *RequestError) Unwrap() error { return ErrRefused }

func refuse(status int, reason string) *RequestError {
	return &RequestError{Status: status, Reason: reason}
}
