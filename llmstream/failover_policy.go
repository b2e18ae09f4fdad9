package llmstream

import (
	"context"
	"errors"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// worthRetrying reports whether an attempt that failed with err is worth
// another (see [Failover] for the rules): never once ctx has ended; a
// provider's error or an HTTP error answer when it says the same request
// may succeed later (its x-should-retry header, else its kind or status);
// else by [KindOf]: a stream that broke, stalled or timed out, or a server
// that could not be reached once the transport's own retries were spent.
// A bare [ErrTruncated] counts too: a Client adds ErrInterrupted to it,
// a Streamer of the caller's may not.
func worthRetrying(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var api *APIError
	if errors.As(err, &api) {
		return api.Retryable()
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		return se.Retryable()
	}
	switch KindOf(err) {
	case ErrorInterrupted, ErrorStalled, ErrorTimeout, ErrorConnection:
		return true
	}
	return errors.Is(err, ErrTruncated)
}

// serverWait is the wait the server asked for with err's answer, and
// whether it asked.
func serverWait(err error) (time.Duration, bool) {
	var se *transport.StatusError
	if errors.As(err, &se) {
		return se.RetryAfter()
	}
	return 0, false
}

// prefillRefused reports whether a continuation failed because the model
// refuses an assistant message at the end (newer Claude models answer
// HTTP 400 "does not support assistant message prefill"): any bad-request
// answer to a continuation is taken as that, since the same conversation
// without the prefill was accepted before.
func prefillRefused(err error) bool {
	var api *APIError
	return errors.As(err, &api) && api.Kind == ErrorInvalidRequest
}
