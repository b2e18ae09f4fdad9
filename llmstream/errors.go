package llmstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/internal/redact"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/airlock-go/airlock/transport"
)

var (
	// ErrTruncated reports a stream that ended with neither the done
	// sentinel nor a finish reason. The partial message returned with it
	// has the text and reasoning received, and no tool calls: a call cut off
	// mid-stream is never handed out. It is for display only.
	// It matches [ErrInterrupted] too.
	ErrTruncated = errors.New("llmstream: stream ended before the response was complete")

	// ErrInterrupted reports a stream that began (the server answered 2xx)
	// and broke before the response was complete, for any reason outside
	// the caller's and the content's control: it ended early
	// ([ErrTruncated]), the connection was cut (io.ErrUnexpectedEOF, a
	// reset), it stalled (transport.ErrStalled), the model fell silent
	// ([ErrIdleTimeout]), or the total timeout passed mid-body
	// (transport.ErrTimeout). It is the one test for "the stream broke":
	// sending the same request again is reasonable. The message returned
	// with it has the text received so far and never a tool call. It is in
	// the chain beside the cause, which errors.Is and errors.As still find.
	//
	// Not interrupted: the caller's cancellation or deadline, [ErrAborted],
	// a provider's [*APIError], a bad event ([ErrBadEvent]), an event or
	// stream over its size limit, and bad tool calls. Of those, an
	// [*APIError] whose [APIError.Retryable] is true may be retried too, and
	// so may an HTTP error answer of no provider's shape (a proxy's 502
	// page) whose *transport.StatusError says Retryable; an APIError's word
	// comes first (a 429 for an exhausted quota is not worth retrying):
	//
	//	var api *llmstream.APIError
	//	var se *transport.StatusError
	//	retry := errors.Is(err, llmstream.ErrInterrupted) ||
	//		errors.As(err, &api) && api.Retryable() ||
	//		api == nil && errors.As(err, &se) && se.Retryable()
	ErrInterrupted = errors.New("llmstream: stream interrupted")

	// ErrBadEvent reports an event whose data is not a valid JSON object.
	// The error is an [*EventError] carrying the raw data.
	ErrBadEvent = errors.New("llmstream: event is not a valid JSON object")

	// ErrAborted reports a stream stopped by the caller's [WithOnDelta]
	// callback; the callback's own error is in the chain too.
	ErrAborted = errors.New("llmstream: stream aborted by the delta callback")

	// ErrIdleTimeout reports a stream on which no event carrying content,
	// reasoning, a tool call or a finish reason arrived for the idle
	// timeout set with [WithIdleTimeout]. Keep-alive comments do not count.
	ErrIdleTimeout = errors.New("llmstream: no content arrived within the idle timeout")

	// ErrInvalidRequest reports a request the Client could not build, so
	// nothing was sent: a [Request.Extra] member that would replace a
	// request field or cannot be encoded, or a message that cannot be
	// encoded (such as a [ToolCall.Extra] that is not a JSON object). A bad
	// option (a base URL that is not an http or https URL, ...) is an
	// [*OptionError], which matches [ErrInvalidOption]; it matches this too,
	// as it did before ErrInvalidOption, but test for ErrInvalidOption.
	ErrInvalidRequest = errors.New("llmstream: invalid request")

	// ErrMisuse reports a call on a value not made by its constructor (a
	// zero [Client]). Nothing is sent. An unknown [Dialect] is an
	// [*OptionError] (errors.Is [ErrInvalidOption]); it matches ErrMisuse
	// too, as it did before ErrInvalidOption.
	ErrMisuse = errors.New("llmstream: misuse")

	// ErrNotEventStream reports a 2xx answer that is neither an event
	// stream nor a JSON completion, such as the HTML page of a login
	// portal or of a wrong base URL. The error is a [*ContentTypeError].
	ErrNotEventStream = errors.New("llmstream: the answer is not an event stream")
)

// ErrOutOfOrder reports an event the dialect's sequence does not allow: a
// second message_start, a delta or stop for a block that was never started
// or has stopped, a block started twice. The error is an [*EventError]
// (matching [ErrBadEvent] too) with the event's data; the event changes
// nothing.
var ErrOutOfOrder = errors.New("llmstream: event out of order")

// interrupted marks err, the failure of a stream that had begun, with
// [ErrInterrupted] when it means the stream broke (see there); other
// errors are returned as they are.
func interrupted(err error) error {
	var api *APIError
	switch {
	case err == nil,
		errors.Is(err, ErrInterrupted),
		errors.Is(err, context.Canceled) && !errors.Is(err, ErrIdleTimeout),
		errors.Is(err, context.DeadlineExceeded), // the caller's own deadline
		errors.Is(err, sse.ErrEventTooLarge),
		errors.Is(err, eventstream.ErrFrameTooLarge),   // limits, not breaks:
		errors.Is(err, eventstream.ErrHeadersTooLarge), // the prelude's CRC held
		errors.Is(err, transport.ErrStreamTooLarge),
		errors.Is(err, transport.ErrBodyClosed),
		errors.As(err, &api): // an "error:" line, reported through the reader
		return err
	}
	return &interruptedError{err}
}

// interruptedError puts ErrInterrupted in the chain without changing the
// text.
type interruptedError struct{ err error }

func (e *interruptedError) Error() string   { return e.err.Error() }
func (e *interruptedError) Unwrap() []error { return []error{ErrInterrupted, e.err} }

// ToolCallsError is the error of a response whose stream ended properly
// but whose tool calls' arguments are not all valid JSON. No call of such
// a response may run, and [Message.ToolCalls] stays empty; the error lists
// every call so that a caller can answer each (agentloop's
// Loop.AnswerInvalidCalls tells the model what was wrong). errors.As finds
// the first invalid call's *toolcall.ArgumentsError (index, id, name,
// reason, tail) and the *toolcall.CallsError; errors.Is finds
// toolcall.ErrInvalidArguments. Every credential the request carried is
// kept out of those errors' fields (the Tail of a call shows no part of
// one, whole or cut by its window), though not out of Calls.
type ToolCallsError struct {
	// Calls is every call of the response, in order, as [Message.ToolCalls]
	// would have held them, except that the invalid calls' arguments are
	// the text as received (credentials in it are not redacted: it is the
	// model's own output).
	Calls []ToolCall
	// Errs[i] says why Calls[i] is invalid; nil for a valid call.
	Errs []error

	err *toolcall.CallsError
}

// newToolCallsError makes the error of ce, its invalid calls' exported
// fields cleaned of every credential of secrets: a whole one is masked, and
// a Tail whose window starts (or whose arguments end) inside one drops
// that part, since the fields reach callers that print them as they like.
func newToolCallsError(ce *toolcall.CallsError, secrets *redact.Set) *ToolCallsError {
	for _, a := range ce.Invalid {
		a.ID, a.Name = secrets.String(a.ID), secrets.String(a.Name)
		if tail := secrets.Head(secrets.Tail([]byte(a.Tail))); string(tail) != a.Tail {
			a.Tail = string(tail)
		}
	}
	e := &ToolCallsError{Calls: toolCalls(ce.Calls), Errs: make([]error, len(ce.Calls)), err: ce}
	for i, j := 0, 0; i < len(ce.Calls) && j < len(ce.Invalid); i++ {
		if ce.Calls[i].Index == ce.Invalid[j].Index {
			e.Errs[i] = ce.Invalid[j]
			j++
		}
	}
	return e
}

// Error prints the first invalid call's error and how many more there are.
func (e *ToolCallsError) Error() string { return "llmstream: " + e.err.Error() }

// Unwrap returns the *toolcall.CallsError.
func (e *ToolCallsError) Unwrap() error { return e.err }

// ContentTypeError is the error for a 2xx answer whose Content-Type is
// neither text/event-stream nor application/json. It matches
// [ErrNotEventStream].
type ContentTypeError struct {
	// StatusCode is the answer's status, e.g. 200.
	StatusCode int
	// ContentType is the answer's Content-Type header as sent ("" when none).
	ContentType string
	// URL is the endpoint the request went to, its credentials redacted.
	URL string
	// Excerpt is the start of the body as one printable line (at most 256
	// bytes, credentials replaced), to tell a login page from a proxy's
	// error page.
	Excerpt string
}

// Error names the content type and the endpoint and suggests checking the
// base URL, e.g. `llmstream: HTTP 200 answer with Content-Type "text/html"
// is not an event stream (check the base URL: https://x.test/chat/completions): <html>...`.
func (e *ContentTypeError) Error() string {
	msg := fmt.Sprintf("llmstream: HTTP %d answer with Content-Type %q is not an event stream (check the base URL: %s)", e.StatusCode, e.ContentType, e.URL)
	if e.Excerpt != "" {
		msg += ": " + e.Excerpt
	}
	return msg
}

// Unwrap returns [ErrNotEventStream].
func (e *ContentTypeError) Unwrap() error { return ErrNotEventStream }

// maxErrorExcerpt bounds how much of an event's data an error prints.
const maxErrorExcerpt = 128

// EventError is the error for an event the bridge could not decode. It
// unwraps to [ErrBadEvent] and to the JSON syntax cause.
type EventError struct {
	// Data is a copy of the event's data, whole, except that a [Client]
	// replaces every credential of its request in it with "REDACTED"
	// (Offset still counts the bytes as they arrived).
	Data []byte
	// Offset is the byte offset in Data where decoding failed.
	Offset int
	// Err is the cause.
	Err error
}

// Error prints the offset, the cause and at most 128 bytes of the data as
// one printable line.
func (e *EventError) Error() string {
	return fmt.Sprintf("llmstream: bad event at byte %d: %v: %s", e.Offset, e.Err, redact.Excerpt(e.Data, maxErrorExcerpt, nil))
}

// Unwrap returns [ErrBadEvent] and the cause.
func (e *EventError) Unwrap() []error { return []error{ErrBadEvent, e.Err} }

// APIError is an error the provider reported: in an HTTP error body, in a
// stream event with a top-level "error" member, as an SSE "error" event, or
// as llama.cpp's non-standard "error:" SSE field. It means the provider said
// so, as opposed to [ErrTruncated] or [ErrBadEvent], which this package
// inferred.
type APIError struct {
	// StatusCode is the HTTP status, or 0 for an error sent inside a stream
	// that had begun with 200.
	StatusCode int
	// Message is the provider's message, exactly as sent — except that a
	// [Client] replaces every credential its request carried (the API key,
	// every [WithHeader] value, secret query values of the base URL, the
	// [WithSecrets] values), should the server echo one, with "REDACTED",
	// here and in every other field.
	Message string
	// Type is the provider's error type ("invalid_request_error", ...).
	Type string
	// Code is the provider's code as text: a string code as sent, an
	// integer code in decimal ("429").
	Code string
	// Param is the request parameter the error is about, if the provider said.
	Param string
	// Kind is what the error means, the same for every provider.
	Kind ErrorKind
	// Err is the error underneath, if any: for an HTTP error the
	// *transport.StatusError with the raw body and headers.
	Err error
}

// Error prints the status (if any), type, code and message, with control
// characters shown as spaces.
func (e *APIError) Error() string {
	b := []byte("llmstream: provider error")
	if e.StatusCode != 0 {
		b = fmt.Appendf(b, " (HTTP %d)", e.StatusCode)
	}
	if e.Type != "" {
		b = fmt.Appendf(b, " type=%s", e.Type)
	}
	if e.Code != "" {
		b = fmt.Appendf(b, " code=%s", e.Code)
	}
	if e.Message != "" {
		b = append(b, ": "...)
		b = append(b, e.Message...)
	}
	// The text came from the server: control characters (a newline that
	// forges a log line, terminal escapes) print as spaces.
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = ' '
		}
	}
	return string(b)
}

// Unwrap returns the error underneath, if any.
func (e *APIError) Unwrap() error { return e.Err }

// Retryable reports whether sending the same request again is reasonable:
// the provider is rate limited, overloaded or failed on its side
// ([ErrorRateLimited], [ErrorOverloaded], [ErrorServer]), or answered HTTP
// 408 or 409. A bad request, an authentication or permission failure, or a
// context that is too long is not retryable: the same request fails the
// same way. An HTTP answer's "x-should-retry" header ("true" or "false",
// sent by Anthropic and OpenAI) decides over all of these, as it does for
// the transport's own retries.
func (e *APIError) Retryable() bool {
	var se *transport.StatusError
	if errors.As(e.Err, &se) {
		switch se.Header.Get("X-Should-Retry") {
		case "true":
			return true
		case "false":
			return false
		}
	}
	return e.Kind.Retryable() || e.StatusCode == 408 || e.StatusCode == 409
}

// redact replaces every secret of s in e's fields.
func (e *APIError) redact(s *redact.Set) {
	for _, f := range []*string{&e.Message, &e.Type, &e.Code, &e.Param} {
		*f = s.String(*f)
	}
}
