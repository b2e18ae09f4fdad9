package llmstream

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

var (
	// ErrTruncated reports a stream that ended with neither the done
	// sentinel nor a finish reason. The partial message returned with it
	// has the text and reasoning received, and no tool calls: a call cut off
	// mid-stream is never handed out. It is for display only.
	ErrTruncated = errors.New("llmstream: stream ended before the response was complete")

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
	// nothing was sent: a base URL ([WithBaseURL]) that is not an http or
	// https URL, a [Request.Extra] member that would replace a request
	// field or cannot be encoded, or a message that cannot be encoded (such
	// as a [ToolCall.Extra] that is not a JSON object).
	ErrInvalidRequest = errors.New("llmstream: invalid request")
)

// maxErrorExcerpt bounds how much of an event's data an error prints.
const maxErrorExcerpt = 128

// EventError is the error for an event the bridge could not decode. It
// unwraps to [ErrBadEvent] and to the JSON syntax cause.
type EventError struct {
	// Data is a copy of the event's data, whole.
	Data []byte
	// Offset is the byte offset in Data where decoding failed.
	Offset int
	// Err is the cause.
	Err error
}

// Error prints the offset, the cause and at most 128 bytes of the data.
func (e *EventError) Error() string {
	return fmt.Sprintf("llmstream: bad event at byte %d: %v: %s", e.Offset, e.Err, excerpt(e.Data))
}

// Unwrap returns [ErrBadEvent] and the cause.
func (e *EventError) Unwrap() []error { return []error{ErrBadEvent, e.Err} }

// excerpt quotes at most maxErrorExcerpt bytes of b, cut on a rune boundary.
func excerpt(b []byte) string {
	if len(b) <= maxErrorExcerpt {
		return strconv.Quote(string(b))
	}
	n := maxErrorExcerpt
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return strconv.Quote(string(b[:n])) + "..."
}

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
	// [Client] replaces its own API key, should the server echo it, with
	// "REDACTED".
	Message string
	// Type is the provider's error type ("invalid_request_error", ...).
	Type string
	// Code is the provider's code as text: a string code as sent, an
	// integer code in decimal ("429").
	Code string
	// Param is the request parameter the error is about, if the provider said.
	Param string
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
