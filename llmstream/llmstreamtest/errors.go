package llmstreamtest

import (
	"errors"
	"fmt"
)

// The categories of [RequestError]; test for them with [errors.Is].
var (
	// ErrBadRequest: the request was not one the server serves — not a POST
	// to one of its paths, a body that is not a request of that path's
	// dialect, a body past the size limit, or stream not true. The client
	// is answered with a 4xx status and the dialect's JSON error.
	ErrBadRequest = errors.New("llmstreamtest: bad request")
	// ErrNoTurn: the script had no turn for the request (every turn of
	// [WithTurns] was used, or no script was given). Answered with 500 and
	// "x-should-retry: false", so that no client retries it.
	ErrNoTurn = errors.New("llmstreamtest: no turn scripted")
	// ErrBadTurn: the turn scripted for the request is invalid (see [Turn]).
	// Answered with 500; nothing of the turn is streamed.
	ErrBadTurn = errors.New("llmstreamtest: bad turn")
	// ErrInvalidOption: an option given to [NewServer] has an invalid
	// value. Every request is answered with 500, and its [RequestError.Err]
	// is an [*OptionError] naming the option.
	ErrInvalidOption = errors.New("llmstreamtest: invalid option")

	// ErrBadOption is ErrInvalidOption, the same value.
	//
	// Deprecated: use [ErrInvalidOption], the name every airlock package
	// gives a bad option.
	ErrBadOption = ErrInvalidOption
)

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
	return "llmstreamtest: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// RequestError says why the server did not serve one request as scripted.
// The client is answered with the dialect's JSON error whose message is its
// text:
//
//	wrong method                  405  ErrBadRequest
//	other path                    404  ErrBadRequest
//	body over the limit           413  ErrBadRequest
//	body not a request            400  ErrBadRequest
//	"stream" not true             400  ErrBadRequest
//	script used up / none given   500  ErrNoTurn     (with x-should-retry: false,
//	invalid turn                  500  ErrBadTurn     so no client retries a
//	invalid option                500  ErrInvalidOption script's mistake)
//
// It is recorded in [Request.Err], its Error text is the message of the JSON
// error the client received, and it unwraps to one of [ErrBadRequest],
// [ErrNoTurn], [ErrBadTurn] or [ErrInvalidOption] (then Err is the
// [*OptionError] and Detail is empty). It never contains header
// values, so no API key can leak through it.
type RequestError struct {
	// Seq is the request's number ([Request.Seq]).
	Seq int
	// Detail says what was wrong.
	Detail string
	// Err is the category.
	Err error
}

// Error returns "<category>: request <Seq>: <Detail>", or "<Err>
// (request <Seq>)" when Detail is empty.
func (e *RequestError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%v (request %d)", e.Err, e.Seq)
	}
	return fmt.Sprintf("%v: request %d: %s", e.Err, e.Seq, e.Detail)
}

// Unwrap returns the category sentinel.
func (e *RequestError) Unwrap() error { return e.Err }
