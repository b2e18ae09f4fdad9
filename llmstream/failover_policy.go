package llmstream

import (
	"context"
	"errors"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// worthRetrying reports whether an attempt that failed with err is worth
// another (see [Failover] for the rules): never once ctx has ended; a
// broken stream always; a provider's error when it says the same request
// may succeed later; an HTTP error of no provider's shape by its status.
//
// It classifies from the errors themselves: KindOf, the error vocabulary
// contrib is adding, is not on main yet.
func worthRetrying(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, ErrInterrupted) || errors.Is(err, ErrTruncated) || errors.Is(err, ErrIdleTimeout) {
		return true // broken, or silent before the answer began
	}
	var api *APIError
	if errors.As(err, &api) {
		return api.Retryable()
	}
	var se *transport.StatusError
	return errors.As(err, &se) && se.Retryable()
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
