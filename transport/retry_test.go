package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name     string
		ms, secs string
		want     time.Duration
		wantOK   bool
	}{
		{"none", "", "", 0, false},
		{"seconds", "", "2", 2 * time.Second, true},
		{"zero", "", "0", 0, true},
		{"fractional seconds", "", "1.5", 1500 * time.Millisecond, true},
		{"spaces trimmed", "", " 7 ", 7 * time.Second, true},
		{"milliseconds", "250", "", 250 * time.Millisecond, true},
		{"milliseconds win over seconds", "250", "9", 250 * time.Millisecond, true},
		{"bad milliseconds fall back", "soon", "9", 9 * time.Second, true},
		{"negative", "", "-1", 0, false},
		{"signed", "", "+5", 0, false},
		{"exponent", "", "1e3", 0, false},
		{"hex", "", "0x10", 0, false},
		{"NaN", "", "NaN", 0, false},
		{"infinity", "", "Inf", 0, false},
		{"word", "", "later", 0, false},
		{"two dots", "", "1.2.3", 0, false},
		{"only a dot", "", ".", 0, false},
		{"huge saturates", "", "99999999999999999999999", math.MaxInt64, true},
		{"huge milliseconds saturate", "1" + fmt.Sprint(uint64(math.MaxUint64)), "", math.MaxInt64, true},
		{"HTTP date ahead", "", "Fri, 02 Jan 2026 03:04:35 GMT", 30 * time.Second, true},
		{"HTTP date past means now", "", "Fri, 02 Jan 2026 03:00:00 GMT", 0, true},
		{"RFC 850 date", "", "Friday, 02-Jan-26 03:04:15 GMT", 10 * time.Second, true},
		{"asctime date", "", "Fri Jan  2 03:04:06 2026", time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.ms != "" {
				h.Set("retry-after-ms", tt.ms)
			}
			if tt.secs != "" {
				h.Set("Retry-After", tt.secs)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "1.5", "-1", "1e9", "Fri, 02 Jan 2026 03:04:35 GMT", "99999999999999999999999", "."} {
		f.Add(s, s)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ms, secs string) {
		h := http.Header{"Retry-After-Ms": {ms}, "Retry-After": {secs}}
		got, ok := retryAfter(h, now)
		if got < 0 {
			t.Fatalf("retryAfter(%q, %q) = %v: negative", ms, secs, got)
		}
		if !ok && got != 0 {
			t.Fatalf("retryAfter(%q, %q) = %v without a header", ms, secs, got)
		}
	})
}

// lowest and highest stand in for the random source to pin each end of the
// jitter range.
func lowest(int64) int64    { return 0 }
func highest(k int64) int64 { return k - 1 }

func TestBackoff(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name              string
		n                 int
		initial, maxWait  time.Duration
		wantLow, wantHigh time.Duration
	}{
		{"first", 1, 100 * ms, time.Second, 50 * ms, 100 * ms},
		{"second doubles", 2, 100 * ms, time.Second, 100 * ms, 200 * ms},
		{"fourth", 4, 100 * ms, time.Second, 400 * ms, 800 * ms},
		{"fifth is capped", 5, 100 * ms, time.Second, 500 * ms, time.Second},
		{"far out is capped", 64, 100 * ms, time.Second, 500 * ms, time.Second},
		{"initial at the cap", 1, time.Second, time.Second, 500 * ms, time.Second},
		{"zero", 3, 0, 0, 0, 0},
		{"no overflow near the top", 100, time.Nanosecond, math.MaxInt64, math.MaxInt64 / 2, math.MaxInt64},
		{"defaults, first", 1, DefaultInitialBackoff, DefaultMaxBackoff, 250 * ms, 500 * ms},
		{"defaults, second", 2, DefaultInitialBackoff, DefaultMaxBackoff, 500 * ms, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backoff(tt.n, tt.initial, tt.maxWait, lowest); got != tt.wantLow {
				t.Errorf("lowest = %v, want %v", got, tt.wantLow)
			}
			if got := backoff(tt.n, tt.initial, tt.maxWait, highest); got != tt.wantHigh {
				t.Errorf("highest = %v, want %v", got, tt.wantHigh)
			}
		})
	}
}

func TestRetryableError(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"dial", &url.Error{Op: "Post", URL: "http://x", Err: dial}, true},
		{"proxy connect", &net.OpError{Op: "proxyconnect", Err: errors.New("refused")}, true},
		{"read after sending", &net.OpError{Op: "read", Err: errors.New("reset")}, false},
		{"host not found", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", IsNotFound: true}}, false},
		{"DNS timeout", &net.OpError{Op: "dial", Err: &net.DNSError{Err: "timeout", IsTimeout: true}}, true},
		{"connect timeout", &TimeoutError{Limit: LimitConnect, After: time.Second}, true},
		{"total timeout", &TimeoutError{Limit: LimitTotal, After: time.Second}, false},
		{"context deadline", &TimeoutError{Limit: LimitContext, Err: context.DeadlineExceeded}, false},
		{"canceled", context.Canceled, false},
		{"certificate", &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, false},
		{"unknown authority inside a dial", &net.OpError{Op: "dial", Err: x509.UnknownAuthorityError{}}, false},
		{"stalled", &StalledError{}, false},
		{"other", errors.New("EOF"), false},
	}
	for _, tt := range tests {
		if got := retryableError(tt.err); got != tt.want {
			t.Errorf("%s: retryableError = %v, want %v", tt.name, got, tt.want)
		}
	}
}
