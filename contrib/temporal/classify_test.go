package temporal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	sdktemporal "go.temporal.io/sdk/temporal"
)

func TestClassify(t *testing.T) {
	status := func(code int, h http.Header) *transport.StatusError {
		return &transport.StatusError{StatusCode: code, Header: h}
	}
	tests := []struct {
		name      string
		err       error
		wantType  string
		retryable bool
		delay     time.Duration
	}{
		{"interrupted", fmt.Errorf("%w: %w", llmstream.ErrInterrupted, llmstream.ErrTruncated), ErrTypeInterrupted, true, 0},
		{"rate limited", &llmstream.APIError{StatusCode: 429, Kind: llmstream.ErrorRateLimited, Err: status(429, http.Header{"Retry-After": {"7"}})}, "airlock.model.rate_limited", true, 7 * time.Second},
		{"overloaded, wait in ms", &llmstream.APIError{StatusCode: 529, Kind: llmstream.ErrorOverloaded, Err: status(529, http.Header{"Retry-After-Ms": {"1500"}})}, "airlock.model.overloaded", true, 1500 * time.Millisecond},
		{"wait at the cap", &llmstream.APIError{StatusCode: 429, Kind: llmstream.ErrorRateLimited, Err: status(429, http.Header{"Retry-After": {"60"}})}, "airlock.model.rate_limited", true, time.Minute},
		{"wait over the cap", &llmstream.APIError{StatusCode: 429, Kind: llmstream.ErrorRateLimited, Err: status(429, http.Header{"Retry-After": {"61"}})}, "airlock.model.rate_limited", true, time.Minute},
		{"wait as a date", &llmstream.APIError{StatusCode: 503, Kind: llmstream.ErrorOverloaded, Err: status(503, http.Header{"Retry-After": {"Wed, 21 Oct 2015 07:28:00 GMT"}})}, "airlock.model.overloaded", true, 0},
		{"server error", &llmstream.APIError{StatusCode: 500, Kind: llmstream.ErrorServer}, "airlock.model.server_error", true, 0},
		{"bad request", &llmstream.APIError{StatusCode: 400, Kind: llmstream.ErrorInvalidRequest}, "airlock.model.invalid_request", false, 0},
		{"bad key", &llmstream.APIError{StatusCode: 401, Kind: llmstream.ErrorAuthentication}, "airlock.model.authentication", false, 0},
		{"context too long", &llmstream.APIError{StatusCode: 400, Kind: llmstream.ErrorContextLength}, "airlock.model.context_length", false, 0},
		{"proxy 502 page", fmt.Errorf("wrapped: %w", status(502, nil)), "airlock.model.server_error", true, 0},
		{"proxy 404 page", status(404, nil), "airlock.model.not_found", false, 0},
		{"bad event", llmstream.ErrBadEvent, "airlock.model.bad_response", false, 0},
		{"invalid request", llmstream.ErrInvalidRequest, "airlock.model.invalid_request", false, 0},
		{"stalled", fmt.Errorf("x: %w", transport.ErrStalled), "airlock.model.stalled", true, 0},
		{"no kind", errors.New("what"), "airlock.model.unknown", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := classify(tt.err)
			var app *sdktemporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("classify(%v) = %T, want an ApplicationError", tt.err, err)
			}
			if app.Type() != tt.wantType || app.NonRetryable() == tt.retryable || app.NextRetryDelay() != tt.delay {
				t.Errorf("type %q, retryable %v, delay %v; want %q, %v, %v", app.Type(), !app.NonRetryable(), app.NextRetryDelay(), tt.wantType, tt.retryable, tt.delay)
			}
		})
	}
	for _, err := range []error{context.Canceled, fmt.Errorf("x: %w", context.DeadlineExceeded)} {
		if got := classify(err); got != err {
			t.Errorf("classify(%v) = %v, want the context's error as it is", err, got)
		}
	}
}
