package temporal

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// Error types of a failed model turn (temporal.ApplicationError.Type): the
// prefix, then what failed.
const (
	// ErrTypeModel prefixes every model-turn failure; a provider's error
	// adds its kind, as in "airlock.model.rate_limited" (see
	// [llmstream.ErrorKind.String]).
	ErrTypeModel = "airlock.model"
	// ErrTypeInterrupted is a stream that broke ([llmstream.ErrInterrupted]).
	ErrTypeInterrupted = ErrTypeModel + ".interrupted"
)

// maxRetryDelay caps the wait a provider may ask for before the retry.
const maxRetryDelay = time.Minute

// classify turns a model turn's error into what Temporal's retry policy
// acts on: retryable when sending the same request again is reasonable (an
// interrupted stream, a provider error whose Retryable holds, an HTTP error
// of no provider's shape whose status says so), with the provider's
// Retry-After as the next delay; non-retryable otherwise. The context's own
// errors are returned as they are: Temporal knows a timeout or a
// cancellation of its own. The message is err's text, which an
// *llmstream.Client has already cleared of credentials.
func classify(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	typ, retry := ErrTypeModel, false
	var api *llmstream.APIError
	var se *transport.StatusError
	switch {
	case errors.Is(err, llmstream.ErrInterrupted):
		typ, retry = ErrTypeInterrupted, true
	case errors.As(err, &api):
		typ, retry = ErrTypeModel+"."+api.Kind.String(), api.Retryable()
	case errors.As(err, &se):
		retry = se.Retryable()
	}
	opts := sdktemporal.ApplicationErrorOptions{NonRetryable: !retry}
	if retry && errors.As(err, &se) {
		opts.NextRetryDelay = retryAfter(se)
	}
	return sdktemporal.NewApplicationErrorWithOptions(err.Error(), typ, opts)
}

// retryAfter reads the wait a server asked for, in retry-after-ms or
// Retry-After seconds (an HTTP date is left to the retry policy), capped
// at maxRetryDelay; 0 when it asked for none.
func retryAfter(se *transport.StatusError) time.Duration {
	var d time.Duration
	if ms, err := strconv.ParseFloat(se.Header.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		d = time.Duration(ms * float64(time.Millisecond))
	} else if s, err := strconv.Atoi(se.Header.Get("Retry-After")); err == nil && s > 0 {
		d = time.Duration(s) * time.Second
	}
	return min(d, maxRetryDelay)
}
