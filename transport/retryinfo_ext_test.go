package transport_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// TestDoRetryInfoWait: a 429 whose JSON body carries a google.rpc.RetryInfo
// (Gemini's) is retried after its retryDelay, within the same cap as
// Retry-After: at the cap, one below, one above; a header wins over it.
func TestDoRetryInfoWait(t *testing.T) {
	body := func(delay string) string {
		return `{"error":{"code":429,"message":"Resource exhausted.","status":"RESOURCE_EXHAUSTED","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"PerMinute"}]},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"` + delay + `"}]}}`
	}
	tests := []struct {
		name     string
		delay    string
		header   string // Retry-After, if any
		maxWait  time.Duration
		wantWait time.Duration // with wantHits 1: not retried
		wantHits int
	}{
		{"at the cap", "0.2s", "", 200 * time.Millisecond, 200 * time.Millisecond, 2},
		{"one below the cap", "0.199s", "", 200 * time.Millisecond, 199 * time.Millisecond, 2},
		{"one above the cap", "0.201s", "", 200 * time.Millisecond, 0, 1},
		{"zero cap honours now", "0s", "", 0, 0, 2},
		{"the header wins", "30s", "0", time.Second, 0, 2},
		{"a bad delay is no wait", "soon", "", 0, -1, 2}, // backoff: any wait
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits counter
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if hits.next() == 1 {
					if tt.header != "" {
						w.Header().Set("Retry-After", tt.header)
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusTooManyRequests)
					io.WriteString(w, body(tt.delay))
					return
				}
				w.WriteHeader(http.StatusNoContent)
			})
			rec := &recorder{}
			c := newClient(t, transport.WithMaxRetryAfter(tt.maxWait), transport.WithRetry(2, time.Millisecond, time.Millisecond), transport.WithObserver(rec.observe))
			start := time.Now()
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodPost, srv.URL, strings.NewReader("{}")))
			if resp != nil {
				resp.Body.Close()
			}
			if hits.get() != tt.wantHits {
				t.Fatalf("attempts = %d, want %d (err %v)", hits.get(), tt.wantHits, err)
			}
			if tt.wantHits == 1 {
				var se *transport.StatusError
				if !errors.As(err, &se) || se.StatusCode != 429 || !strings.Contains(string(se.Body), tt.delay) {
					t.Fatalf("err = %v, want the 429 with its body", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantWait < 0 {
				return
			}
			if w := rec.last(t, transport.EventRetry).Wait; w != tt.wantWait {
				t.Errorf("wait = %v, want %v", w, tt.wantWait)
			}
			if elapsed := time.Since(start); elapsed < tt.wantWait {
				t.Errorf("retried after %v, before the server's %v", elapsed, tt.wantWait)
			}
		})
	}
}
