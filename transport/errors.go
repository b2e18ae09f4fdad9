package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
)

// Sentinel errors, for use with [errors.Is]. Each failure also carries a
// struct with its facts, reachable with [errors.As].
var (
	// ErrTimeout: a time limit ended the exchange — the total timeout, the
	// connect timeout, or the deadline of the request's context. The facts
	// are in a [*TimeoutError].
	ErrTimeout = errors.New("transport: timeout")

	// ErrStalled: the low-speed rule ended the exchange. The facts are in a
	// [*StalledError].
	ErrStalled = errors.New("transport: stalled")

	// ErrStreamTooLarge: the response body passed the stream cap. The facts
	// are in a [*StreamTooLargeError].
	ErrStreamTooLarge = errors.New("transport: response body too large")

	// ErrBodyClosed is returned by Read on a body that the caller closed
	// before its end, and reported as the end of such an exchange to the
	// observer.
	ErrBodyClosed = errors.New("transport: read on closed response body")

	// ErrInvalidOption: an option carried a value the Client cannot use.
	// The facts are in an [*OptionError].
	ErrInvalidOption = errors.New("transport: invalid option")

	// ErrMisuse: Do was called in a way it cannot serve — on a Client not
	// made by [New], with a nil request, or with a request without a URL.
	// Nothing is sent.
	ErrMisuse = errors.New("transport: misuse")
)

// Which limit a [TimeoutError] reports, in its Limit field.
const (
	LimitTotal   = "total"   // the total timeout, [WithTimeout]
	LimitConnect = "connect" // the dial and TLS handshake budget, [WithConnectTimeout]
	LimitContext = "context" // the deadline of the request's context
)

// TimeoutError reports that a time limit ended an exchange. It matches
// [ErrTimeout] with [errors.Is], and also whatever Err matches: for
// [LimitContext], that is [context.DeadlineExceeded]. It has a Timeout
// method that returns true, as net errors do.
type TimeoutError struct {
	Limit string        // LimitTotal, LimitConnect or LimitContext
	After time.Duration // the configured limit; 0 for LimitContext
	Err   error         // the underlying cause, if any; never holds a secret
}

// Error names the limit and its length, then the cause for a total or
// connect timeout, e.g. "transport: connect timeout (10s) expired: ...". A
// total timeout's text also says how to raise the limit or switch it off,
// since long reasoning streams outlast the default.
func (e *TimeoutError) Error() string {
	var b strings.Builder
	b.WriteString("transport: ")
	switch e.Limit {
	case LimitContext:
		b.WriteString("request context deadline exceeded")
	case LimitTotal:
		fmt.Fprintf(&b, "total timeout (%v) expired (raise it with WithTimeout, or WithTimeout(0) for no total limit)", e.After)
	default:
		fmt.Fprintf(&b, "%s timeout (%v) expired", e.Limit, e.After)
	}
	if e.Err != nil && e.Limit != LimitContext {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns [ErrTimeout] and Err, so [errors.Is] finds either.
func (e *TimeoutError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrTimeout}
	}
	return []error{ErrTimeout, e.Err}
}

// Timeout reports true: the error is a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// StalledError reports that the low-speed rule ([WithLowSpeed]) ended an
// exchange. It matches [ErrStalled].
type StalledError struct {
	BytesPerSecond int64         // the configured floor
	Window         time.Duration // the configured window
	// Bytes is how many body bytes arrived during the last window; it is
	// always below BytesPerSecond×Window.
	Bytes int64
	// AwaitingHeaders is true when the response headers did not arrive
	// within Window of the start of the attempt.
	AwaitingHeaders bool
}

// Error states the rule and what arrived, e.g. "transport: stalled: 0
// bytes in 30s, under the floor of 1 B/s".
func (e *StalledError) Error() string {
	if e.AwaitingHeaders {
		return fmt.Sprintf("transport: stalled: no response headers within %v", e.Window)
	}
	return fmt.Sprintf("transport: stalled: %d bytes in %v, under the floor of %d B/s",
		e.Bytes, e.Window, e.BytesPerSecond)
}

// Unwrap returns [ErrStalled].
func (e *StalledError) Unwrap() error { return ErrStalled }

// StreamTooLargeError reports that a response body passed the stream cap
// ([WithMaxStreamBytes]). It matches [ErrStreamTooLarge].
type StreamTooLargeError struct {
	Max int64 // the cap in bytes; exactly Max bytes were handed on, no more
	// ContentLength is the length the server declared, when that alone
	// exceeded the cap (then nothing was read); -1 otherwise.
	ContentLength int64
}

// Error states the cap and, when the server declared it, the length, e.g.
// "transport: response body exceeds the cap of 104857600 bytes".
func (e *StreamTooLargeError) Error() string {
	if e.ContentLength >= 0 {
		return fmt.Sprintf("transport: response body of %d bytes exceeds the cap of %d bytes",
			e.ContentLength, e.Max)
	}
	return fmt.Sprintf("transport: response body exceeds the cap of %d bytes", e.Max)
}

// Unwrap returns [ErrStreamTooLarge].
func (e *StreamTooLargeError) Unwrap() error { return ErrStreamTooLarge }

// OptionError reports an option whose value a Client cannot use. [New] keeps
// it and [Client.Do] returns it (joined with any others) without sending
// anything. It matches [ErrInvalidOption].
type OptionError struct {
	Option string // the option as it prints, e.g. "transport.WithMaxStreamBytes(-1)"
	Reason string // what is wrong with it
}

// Error names the option and the reason, e.g. "transport: invalid option
// transport.WithMaxStreamBytes(-1): negative size".
func (e *OptionError) Error() string {
	return fmt.Sprintf("transport: invalid option %s: %s", e.Option, e.Reason)
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// MaxErrorBodyBytes bounds [StatusError.Body]: the body of a non-2xx answer
// is read up to this many bytes and the rest discarded.
const MaxErrorBodyBytes = 1 << 20

// StatusError is a non-2xx answer. [Client.Do] returns it instead of the
// response, after reading the body (at most [MaxErrorBodyBytes]) and closing
// it, so an error page is never handed on as if it were a stream.
//
// Body is the server's body within that bound, except that every credential
// the request carried (see the package documentation's "Secrets") is
// replaced by "REDACTED" should the server have echoed it, and the start
// of one is dropped where the body was cut (at the bound, or by a broken
// connection) in the middle of it; so Error, which prints a short excerpt
// of Body, and any caller printing Body cannot leak one. Header is the server's, whole; Error never prints a header.
type StatusError struct {
	StatusCode int         // e.g. 429
	Header     http.Header // the response headers, e.g. Retry-After
	Body       []byte      // the response body, cut at MaxErrorBodyBytes, credentials replaced (and dropped where cut)
	// Truncated is true when the body was longer than MaxErrorBodyBytes.
	Truncated bool
}

// Error prints the status and a short excerpt of the body (at most 256
// bytes, one line, control characters shown as spaces), e.g.
// `transport: HTTP 401 Unauthorized: {"error":{"message":"bad key"}}`. It
// never prints a header.
func (e *StatusError) Error() string {
	text := redact.Excerpt(e.Body, redact.ExcerptBytes, nil)
	status := strings.TrimSpace(fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode)))
	if text == "" {
		return "transport: HTTP " + status
	}
	return "transport: HTTP " + status + ": " + text
}

// Retryable reports whether sending the same request again is reasonable,
// by the rule [Client.Do] retries by: the server's "x-should-retry" header
// when it sent one, else the status (408, 409, 429 and 5xx). Do has
// retried such an answer already (see [WithRetry]) before returning it; a
// caller that tries the whole turn again later asks here, for an answer of
// no known provider shape such as a proxy's 502 page.
func (e *StatusError) Retryable() bool { return retryableAnswer(e.StatusCode, e.Header) }

// RetryAfter returns the wait the server asked for before another try, and
// whether it asked, by the rule [Client.Do] waits by: the retry-after-ms
// header, else Retry-After (delay seconds, or an HTTP date, one in the
// past meaning now), else the retryDelay of a google.rpc.RetryInfo in the
// body. The wait is as asked, not capped by [WithMaxRetryAfter]: a caller
// that tries the whole turn again (or another model) decides.
func (e *StatusError) RetryAfter() (time.Duration, bool) {
	if d, ok := retryAfter(e.Header, time.Now()); ok {
		return d, true
	}
	return retryInfoDelay(e.Body)
}

// ReadStatusError reads the body of resp, a non-2xx answer to req, up to
// [MaxErrorBodyBytes], closes it, and returns the [*StatusError] that
// [Client.Do] would have returned for it, credentials of req replaced in
// Body: for code whose own HTTP client hands such answers back (an
// *http.Client does). A read error leaves the body read so far: the status
// is the news.
func ReadStatusError(req *http.Request, resp *http.Response) *StatusError {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBodyBytes+1))
	return newStatusError(resp, body, err != nil, redact.FromRequest(req))
}

// newStatusError is the StatusError for resp with body read up to one byte
// past the bound; broken says the read failed, so the body may stop short.
func newStatusError(resp *http.Response, body []byte, broken bool, secrets *redact.Set) *StatusError {
	se := &StatusError{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
	if len(body) > MaxErrorBodyBytes {
		se.Body, se.Truncated = body[:MaxErrorBodyBytes], true
	}
	if se.Truncated || broken {
		// An echoed credential may be cut in two: none of it shows.
		se.Body = secrets.Head(se.Body)
	} else {
		se.Body = secrets.Bytes(se.Body)
	}
	return se
}
