package transport

import (
	"fmt"
	"log/slog"
	"time"
)

// EventKind says which step of an exchange an [Event] reports. The zero value
// is not a kind.
type EventKind int

// The steps of an exchange, in the order they happen. One exchange reports
// EventAttempt once per attempt, EventRetry between attempts, EventResponse
// when the last attempt's headers arrive (if any do), and EventEnd exactly
// once.
const (
	EventAttempt  EventKind = iota + 1 // an attempt is being sent
	EventRetry                         // an attempt failed; another follows after Wait
	EventResponse                      // the last attempt's response headers arrived
	EventEnd                           // the exchange is over
)

// String returns the kind's name ("attempt", "retry", "response", "end").
func (k EventKind) String() string {
	switch k {
	case EventAttempt:
		return "attempt"
	case EventRetry:
		return "retry"
	case EventResponse:
		return "response"
	case EventEnd:
		return "end"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one step of an exchange, as passed to the function given to
// [WithObserver]. It holds no header, no body and no secret: URL has its
// userinfo and secret query values redacted, and Err went through the same
// redaction as the errors [Client.Do] returns. The Event is the observer's to
// keep. Fields may be added; do not compare Events with ==.
type Event struct {
	Kind    EventKind
	Method  string // the request method
	URL     string // the request URL, redacted
	Attempt int    // 1 for the first attempt; the attempt the event is about

	// StatusCode is the response status for EventRetry (when the attempt
	// got an answer), EventResponse and EventEnd; 0 when there was none.
	StatusCode int

	// Wait is how long EventRetry waits before the next attempt.
	Wait time.Duration

	// Bytes is how many response body bytes were handed to the caller, for
	// EventEnd. It counts what Read returned, so a body cut short by the
	// cap, a stall, a cancellation or an early Close reports what the
	// caller got.
	Bytes int64

	// Elapsed is the time since Client.Do was called.
	Elapsed time.Duration

	// Err is why an attempt failed, for EventRetry, or how the exchange
	// ended, for EventEnd: nil when the body was read to its end,
	// ErrBodyClosed when the caller closed it before its end, else the
	// error the caller got from Client.Do or from reading the body.
	Err error
}

// String formats e on one line for logs, e.g.
// "end POST https://api.example.com/v1/chat/completions attempt=1 status=200 bytes=5120 elapsed=1.2s".
func (e Event) String() string {
	b := []byte(e.Kind.String())
	for i, a := range e.attrs() {
		switch {
		case i < 2: // the method and the URL, unnamed
			b = fmt.Appendf(b, " %s", a.Value)
		case a.Key == "err":
			b = fmt.Appendf(b, " err=%q", a.Value)
		default:
			b = fmt.Appendf(b, " %s=%s", a.Key, a.Value)
		}
	}
	return string(b)
}

// attrs is e as log attributes, which String prints too.
func (e Event) attrs() []slog.Attr {
	a := []slog.Attr{slog.String("method", e.Method), slog.String("url", e.URL), slog.Int("attempt", e.Attempt)}
	if e.StatusCode != 0 {
		a = append(a, slog.Int("status", e.StatusCode))
	}
	if e.Kind == EventRetry {
		a = append(a, slog.Duration("wait", e.Wait))
	}
	if e.Kind == EventEnd {
		a = append(a, slog.Int64("bytes", e.Bytes))
	}
	a = append(a, slog.Duration("elapsed", e.Elapsed))
	if e.Err != nil {
		a = append(a, slog.String("err", e.Err.Error()))
	}
	return a
}
