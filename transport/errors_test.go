package transport

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestErrorTextsAndChains(t *testing.T) {
	cause := errors.New("dial tcp 127.0.0.1:1: i/o timeout")
	tests := []struct {
		name    string
		err     error
		want    string
		matches []error
		misses  []error
	}{
		{"total", &TimeoutError{Limit: LimitTotal, After: time.Minute},
			"transport: total timeout (1m0s) expired (raise it with WithTimeout, or WithTimeout(0) for no total limit)", []error{ErrTimeout}, []error{context.DeadlineExceeded, ErrStalled}},
		{"connect", &TimeoutError{Limit: LimitConnect, After: 10 * time.Second, Err: cause},
			"transport: connect timeout (10s) expired: dial tcp 127.0.0.1:1: i/o timeout", []error{ErrTimeout, cause}, nil},
		{"context", &TimeoutError{Limit: LimitContext, Err: context.DeadlineExceeded},
			"transport: request context deadline exceeded", []error{ErrTimeout, context.DeadlineExceeded}, []error{context.Canceled}},
		{"too large while reading", &StreamTooLargeError{Max: 100, ContentLength: -1},
			"transport: response body exceeds the cap of 100 bytes", []error{ErrStreamTooLarge}, []error{ErrTimeout}},
		{"option", &OptionError{Option: "transport.WithTimeout(-1ns)", Reason: "negative duration"},
			"transport: invalid option transport.WithTimeout(-1ns): negative duration", []error{ErrInvalidOption}, nil},
		{"status built by hand", &StatusError{StatusCode: 503, Body: []byte("upstream\nbusy")},
			"transport: HTTP 503 Service Unavailable: upstream busy", nil, []error{ErrTimeout}},
		{"status without body", &StatusError{StatusCode: 404},
			"transport: HTTP 404 Not Found", nil, nil},
		{"unknown status", &StatusError{StatusCode: 599, Header: http.Header{"Authorization": {"Bearer sk-x"}}},
			"transport: HTTP 599", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			for _, m := range tt.matches {
				if !errors.Is(tt.err, m) {
					t.Errorf("errors.Is(err, %v) = false", m)
				}
			}
			for _, m := range tt.misses {
				if errors.Is(tt.err, m) {
					t.Errorf("errors.Is(err, %v) = true", m)
				}
			}
		})
	}
}

func TestTimeoutErrorIsANetTimeout(t *testing.T) {
	var err error = &TimeoutError{Limit: LimitTotal, After: time.Second}
	var nt interface{ Timeout() bool }
	if !errors.As(err, &nt) || !nt.Timeout() {
		t.Error("TimeoutError does not report Timeout() true")
	}
}

// TestStatusErrorRetryable: a caller deciding whether to send the request
// again later (a proxy's 502 page, say, which no provider error shape
// explains) has the rule Do retries by.
func TestStatusErrorRetryable(t *testing.T) {
	tests := []struct {
		code   int
		should string // x-should-retry
		want   bool
	}{
		{400, "", false}, {401, "", false}, {404, "", false}, {407, "", false},
		{408, "", true}, {409, "", true}, {410, "", false}, {428, "", false},
		{429, "", true}, {430, "", false},
		{499, "", false}, {500, "", true}, {502, "", true}, {529, "", true}, {599, "", true}, {600, "", false},
		{500, "false", false}, {400, "true", true},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.should != "" {
			h.Set("X-Should-Retry", tt.should)
		}
		if got := (&StatusError{StatusCode: tt.code, Header: h}).Retryable(); got != tt.want {
			t.Errorf("HTTP %d, x-should-retry %q: Retryable = %v, want %v", tt.code, tt.should, got, tt.want)
		}
	}
}
