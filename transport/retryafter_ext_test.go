package transport_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// TestStatusErrorRetryAfter checks the wait a StatusError reports: each
// source, the order between them, and none.
func TestStatusErrorRetryAfter(t *testing.T) {
	retryInfo := []byte(`{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`)
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		want   time.Duration
		ok     bool
	}{
		{"none", http.Header{}, nil, 0, false},
		{"seconds", http.Header{"Retry-After": {"3"}}, nil, 3 * time.Second, true},
		{"zero", http.Header{"Retry-After": {"0"}}, nil, 0, true},
		{"milliseconds first", http.Header{"Retry-After": {"3"}, "Retry-After-Ms": {"250"}}, nil, 250 * time.Millisecond, true},
		{"date in the past", http.Header{"Retry-After": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, nil, 0, true},
		{"garbage ignored", http.Header{"Retry-After": {"soon"}}, nil, 0, false},
		{"retry info in the body", http.Header{}, retryInfo, 7 * time.Second, true},
		{"header before the body", http.Header{"Retry-After": {"1"}}, retryInfo, time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			se := &transport.StatusError{StatusCode: 429, Header: tt.header, Body: tt.body}
			got, ok := se.RetryAfter()
			if got != tt.want || ok != tt.ok {
				t.Errorf("RetryAfter() = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
