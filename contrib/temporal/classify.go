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
// prefix, then the name of the error's [llmstream.KindOf].
const (
	// ErrTypeModel prefixes every model-turn failure, followed by its
	// kind, as in "airlock.model.rate_limited" (see
	// [llmstream.ErrorKind.String]).
	ErrTypeModel = "airlock.model"
	// ErrTypeInterrupted is a stream that broke ([llmstream.ErrInterrupted]).
	ErrTypeInterrupted = ErrTypeModel + ".interrupted"
)

// maxRetryDelay caps the wait a provider may ask for before the retry.
const maxRetryDelay = time.Minute

// classify turns a model turn's error into what Temporal's retry policy
// acts on: the type names its [llmstream.KindOf], whose Retryable (or a
// provider's own say) decides, after the server's Retry-After. Temporal
// knows the context's own errors, returned as they are.
func classify(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	kind := llmstream.KindOf(err)
	retry := kind.Retryable()
	var api *llmstream.APIError
	if errors.As(err, &api) {
		retry = api.Retryable()
	}
	opts := sdktemporal.ApplicationErrorOptions{NonRetryable: !retry}
	var se *transport.StatusError
	if retry && errors.As(err, &se) {
		opts.NextRetryDelay = retryAfter(se)
	}
	return sdktemporal.NewApplicationErrorWithOptions(err.Error(), ErrTypeModel+"."+kind.String(), opts)
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
