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
	// ErrBadOption: an option given to [NewServer] has an invalid value.
	// Every request is answered with 500.
	ErrBadOption = errors.New("llmstreamtest: bad option")
)

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
//	invalid option                500  ErrBadOption   script's mistake)
//
// It is recorded in [Request.Err], its Error text is the message of the JSON
// error the client received, and it unwraps to one of [ErrBadRequest],
// [ErrNoTurn], [ErrBadTurn] or [ErrBadOption]. It never contains header
// values, so no API key can leak through it.
type RequestError struct {
	// Seq is the request's number ([Request.Seq]).
	Seq int
	// Detail says what was wrong.
	Detail string
	// Err is the category.
	Err error
}

// Error returns "<category>: request <Seq>: <Detail>".
func (e *RequestError) Error() string {
	return fmt.Sprintf("%v: request %d: %s", e.Err, e.Seq, e.Detail)
}

// Unwrap returns the category sentinel.
func (e *RequestError) Unwrap() error { return e.Err }
