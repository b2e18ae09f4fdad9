package transport

import (
	"math"
	"testing"
	"time"
)

func TestRetryInfoDelay(t *testing.T) {
	const info = `"@type":"type.googleapis.com/google.rpc.RetryInfo"`
	for _, tc := range []struct {
		name   string
		body   string
		want   time.Duration
		wantOK bool
	}{
		{"seconds", `{"error":{"code":429,"details":[{` + info + `,"retryDelay":"7s"}]}}`, 7 * time.Second, true},
		{"fraction", `{"error":{"details":[{` + info + `,"retryDelay":"0.250s"}]}}`, 250 * time.Millisecond, true},
		{"zero", `{"error":{"details":[{` + info + `,"retryDelay":"0s"}]}}`, 0, true},
		{"after other details", `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},{` + info + `,"retryDelay":"40s"}]}}`, 40 * time.Second, true},
		{"in an array", `[{"error":{"details":[{` + info + `,"retryDelay":"3s"}]}}]`, 3 * time.Second, true},
		{"huge saturates", `{"error":{"details":[{` + info + `,"retryDelay":"99999999999999999999s"}]}}`, math.MaxInt64, true},
		{"no body", ``, 0, false},
		{"no details", `{"error":{"code":429,"message":"quota"}}`, 0, false},
		{"no unit", `{"error":{"details":[{` + info + `,"retryDelay":"7"}]}}`, 0, false},
		{"negative", `{"error":{"details":[{` + info + `,"retryDelay":"-7s"}]}}`, 0, false},
		{"minutes", `{"error":{"details":[{` + info + `,"retryDelay":"1m"}]}}`, 0, false},
		{"not a string", `{"error":{"details":[{` + info + `,"retryDelay":7}]}}`, 0, false},
		{"another type", `{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfoX","retryDelay":"7s"}]}} google.rpc.RetryInfo`, 0, false},
		{"two elements", `[{"error":{"details":[{` + info + `,"retryDelay":"3s"}]}},{}]`, 0, false},
		{"not JSON", `google.rpc.RetryInfo retryDelay 7s`, 0, false},
	} {
		got, ok := retryInfoDelay([]byte(tc.body))
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: retryInfoDelay = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
}

func FuzzRetryInfoDelay(f *testing.F) {
	f.Add([]byte(`{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}`))
	f.Add([]byte(`[{"error":{"details":[{"@type":"google.rpc.RetryInfo","retryDelay":"1.5s"}]}}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := retryInfoDelay(body)
		if got < 0 || (!ok && got != 0) {
			t.Fatalf("retryInfoDelay(%q) = %v, %v", body, got, ok)
		}
	})
}
