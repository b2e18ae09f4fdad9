package llmstream

import (
	"fmt"
	"strings"
)

// ErrorKind is what an error means, the same for every dialect, so that
// callers (agentloop, a retry policy, a tracer) treat all providers and
// all failures alike. [KindOf] names the kind of any error airlock
// returns. The kinds up to [ErrorServer] are a provider's words (an
// [*APIError]'s Kind, whose raw type and code stay in [APIError.Type]
// and [APIError.Code]); the later ones are failures seen on this side.
// The zero value, ErrorUnknown, is an error of no known kind. Each kind's
// doc says whether sending the same request again is reasonable, as
// [ErrorKind.Retryable] reports. Kinds may be added; a switch over them
// needs a default.
type ErrorKind uint8

const (
	// ErrorUnknown: an error of no known kind, such as a tool's own error
	// or a provider's error in no known words. Not retryable.
	ErrorUnknown ErrorKind = iota
	// ErrorRateLimited: too many requests or tokens for now (HTTP 429,
	// rate_limit_error, RESOURCE_EXHAUSTED). Retryable, honouring the
	// provider's wait.
	ErrorRateLimited
	// ErrorOverloaded: the provider is overloaded (HTTP 529 and 503,
	// overloaded_error, UNAVAILABLE). Retryable.
	ErrorOverloaded
	// ErrorAuthentication: the key is missing, wrong or revoked (HTTP
	// 401, authentication_error, UNAUTHENTICATED). Not retryable.
	ErrorAuthentication
	// ErrorPermission: the key may not do this, or the account has no
	// quota left (HTTP 403, permission_error, PERMISSION_DENIED,
	// insufficient_quota). Not retryable.
	ErrorPermission
	// ErrorInvalidRequest: the request is wrong: the provider said so
	// (HTTP 400, 413, 422, invalid_request_error, INVALID_ARGUMENT), or
	// the Client could not build it ([ErrInvalidRequest], nothing sent).
	// Not retryable.
	ErrorInvalidRequest
	// ErrorContextLength: the conversation does not fit the model's
	// context window (context_length_exceeded, "prompt is too long").
	// Not retryable.
	ErrorContextLength
	// ErrorNotFound: the model or endpoint does not exist (HTTP 404,
	// not_found_error, NOT_FOUND). Not retryable.
	ErrorNotFound
	// ErrorContentFiltered: the provider's content policy refused the
	// request or the answer (content_filter, content_policy_violation,
	// Gemini's safety blocks). Not retryable.
	ErrorContentFiltered
	// ErrorServer: the provider failed on its side (HTTP 500, 502, 504,
	// api_error, server_error, INTERNAL). Retryable.
	ErrorServer

	// ErrorCanceled: the caller's context was cancelled
	// ([context.Canceled]). Not retryable: the caller asked to stop.
	ErrorCanceled
	// ErrorDeadlineExceeded: the caller's context's deadline passed
	// ([context.DeadlineExceeded]). Not retryable under that context.
	ErrorDeadlineExceeded
	// ErrorInterrupted: the stream began and broke: it ended before the
	// response was complete ([ErrTruncated]) or the connection was cut
	// ([ErrInterrupted] of no more specific kind below). Retryable.
	ErrorInterrupted
	// ErrorStalled: nothing useful arrived for too long: the model fell
	// silent ([ErrIdleTimeout]) or the low-speed rule ended the exchange
	// (transport.ErrStalled). Retryable.
	ErrorStalled
	// ErrorTimeout: one of the transport's own time limits ended the
	// exchange, the total or the connect timeout (transport.ErrTimeout;
	// the context's deadline is [ErrorDeadlineExceeded]). Retryable.
	ErrorTimeout
	// ErrorConnection: the server could not be reached or dropped the
	// connection before answering (a dial, DNS or TLS failure, a reset:
	// any net.Error). Retryable; a certificate that fails verification is
	// of this kind too, and fails again.
	ErrorConnection
	// ErrorBadResponse: the answer is not the dialect's stream: an event
	// that is not a JSON object or not in the dialect's order
	// ([ErrBadEvent], [ErrOutOfOrder]), a 2xx answer that is no event
	// stream ([ErrNotEventStream]), a corrupt or impossible frame read
	// outside a Client (eventstream's errors; in a Client's stream that
	// had begun such a frame broke in transit: [ErrorInterrupted]). Not
	// retryable: the server answers so.
	ErrorBadResponse
	// ErrorLimit: a size or count limit of this side was passed: an event,
	// frame, frame's headers or stream over its size (sse.ErrEventTooLarge,
	// eventstream.ErrFrameTooLarge and ErrHeadersTooLarge,
	// transport.ErrStreamTooLarge), too many
	// tool calls or arguments too large (toolcall.ErrTooManyCalls,
	// toolcall.ErrArgumentsTooLarge), or a loop's cap. Not retryable: the
	// same limit holds.
	ErrorLimit
	// ErrorInvalidToolCalls: the model's tool calls cannot run: arguments
	// that are not valid JSON ([*ToolCallsError], toolcall's
	// ErrInvalidArguments, ErrInvalidIndex, ErrInvalidExtra), an unknown
	// tool. Not retryable as is: answer the model (agentloop does).
	ErrorInvalidToolCalls
	// ErrorAborted: the caller's delta callback stopped the stream
	// ([ErrAborted]). Not retryable.
	ErrorAborted
	// ErrorMisuse: a value not made by its constructor, an option no call
	// can use, a call on a closed reader ([ErrMisuse], transport's
	// ErrMisuse and ErrInvalidOption, sse's and eventstream's
	// ErrInvalidOption, ErrNoSource and ErrClosed). Nothing was sent. Not
	// retryable.
	ErrorMisuse
	// ErrorTool: a tool failed: it timed out, panicked, failed the same
	// way twice, or returned an error the loop could not recover from.
	// Not retryable by this package's rule (a tool's own retry is its
	// business).
	ErrorTool

	errorKindEnd // one past the last kind
)

// errorKindNames are the kinds' String names, indexed by kind.
var errorKindNames = [...]string{
	ErrorUnknown:          "unknown",
	ErrorRateLimited:      "rate_limited",
	ErrorOverloaded:       "overloaded",
	ErrorAuthentication:   "authentication",
	ErrorPermission:       "permission",
	ErrorInvalidRequest:   "invalid_request",
	ErrorContextLength:    "context_length",
	ErrorNotFound:         "not_found",
	ErrorContentFiltered:  "content_filtered",
	ErrorServer:           "server_error",
	ErrorCanceled:         "canceled",
	ErrorDeadlineExceeded: "deadline_exceeded",
	ErrorInterrupted:      "interrupted",
	ErrorStalled:          "stalled",
	ErrorTimeout:          "timeout",
	ErrorConnection:       "connection",
	ErrorBadResponse:      "bad_response",
	ErrorLimit:            "limit",
	ErrorInvalidToolCalls: "invalid_tool_calls",
	ErrorAborted:          "aborted",
	ErrorMisuse:           "misuse",
	ErrorTool:             "tool",
}

// String returns the kind's name, lower case with underscores:
// "unknown", "rate_limited", "overloaded", "authentication",
// "permission", "invalid_request", "context_length", "not_found",
// "content_filtered", "server_error", "canceled", "deadline_exceeded",
// "interrupted", "stalled", "timeout", "connection", "bad_response",
// "limit", "invalid_tool_calls", "aborted", "misuse", "tool"; and
// "ErrorKind(N)" for a value of no kind.
func (k ErrorKind) String() string {
	if k < errorKindEnd {
		return errorKindNames[k]
	}
	return fmt.Sprintf("ErrorKind(%d)", uint8(k))
}

// Retryable reports whether an error of kind k may go away if the same
// request is sent again: [ErrorRateLimited], [ErrorOverloaded],
// [ErrorServer], [ErrorInterrupted], [ErrorStalled], [ErrorTimeout] and
// [ErrorConnection]. For a provider's error, [APIError.Retryable] knows
// more (the provider's x-should-retry header, HTTP 408 and 409) and wins.
func (k ErrorKind) Retryable() bool {
	switch k {
	case ErrorRateLimited, ErrorOverloaded, ErrorServer,
		ErrorInterrupted, ErrorStalled, ErrorTimeout, ErrorConnection:
		return true
	}
	return false
}

// classify sets e.Kind from its type, code, message and status: the
// provider's own words first, the status when they say nothing known or
// only that the request was bad.
func (e *APIError) classify() {
	for _, t := range []string{e.Code, e.Type} {
		if k := kindOf(t); k != ErrorUnknown {
			e.Kind = k
			break
		}
	}
	if e.Kind == ErrorUnknown || e.Kind == ErrorInvalidRequest {
		// Every provider reports a too-long prompt as a bad request;
		// the message tells it apart.
		msg := strings.ToLower(e.Message)
		for _, p := range [...]string{"context length", "context_length", "context window", "prompt is too long", "too many tokens", "input token count", "maximum context", "exceeds the maximum number of tokens"} {
			if strings.Contains(msg, p) {
				e.Kind = ErrorContextLength
				return
			}
		}
	}
	if e.Kind == ErrorUnknown || e.Kind == ErrorInvalidRequest && (e.StatusCode == 401 || e.StatusCode == 404) {
		// OpenAI gives a missing key (401) and a wrong path (404) only the
		// generic invalid_request_error; the status says more.
		e.Kind = statusKind(e.StatusCode)
	}
}

// statusKind is the kind an HTTP error status means when nothing else
// says more.
func statusKind(s int) ErrorKind {
	switch {
	case s == 400 || s == 413 || s == 422:
		return ErrorInvalidRequest
	case s == 401:
		return ErrorAuthentication
	case s == 403:
		return ErrorPermission
	case s == 404:
		return ErrorNotFound
	case s == 429:
		return ErrorRateLimited
	case s == 503 || s == 529:
		return ErrorOverloaded
	case s >= 500 && s <= 599:
		return ErrorServer
	}
	return ErrorUnknown
}

// kindOf maps a provider's error type or code by every dialect's own
// vocabulary (each dialect file's errorKind), since a proxy or a
// compatible server may answer in another provider's words.
func kindOf(t string) ErrorKind {
	for d := DialectChat; d < dialectEnd; d++ {
		if v, ok := d.protocol().(interface{ errorKind(t string) ErrorKind }); ok {
			if k := v.errorKind(t); k != ErrorUnknown {
				return k
			}
		}
	}
	return ErrorUnknown
}
