package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// attemptContexts records the context of every attempt, which is the
// exchange's own context: the proxy function is handed each attempt's
// request.
type attemptContexts struct {
	mu   sync.Mutex
	ctxs []context.Context
}

func (a *attemptContexts) proxy(r *http.Request) (*url.URL, error) {
	a.mu.Lock()
	a.ctxs = append(a.ctxs, r.Context())
	a.mu.Unlock()
	return nil, nil
}

// checkReleased fails unless every attempt's context is done — which is how
// the exchange ends the transport's watch on the request — and, for a body,
// the exchange's timer is stopped.
func (a *attemptContexts) checkReleased(t *testing.T, b *body) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.ctxs) == 0 {
		t.Fatal("no attempt was made")
	}
	for i, ctx := range a.ctxs {
		if ctx.Err() == nil {
			t.Errorf("attempt %d: the exchange's context is still live after the end", i+1)
		}
	}
	if b != nil {
		checkTimerStopped(t, b.x)
	}
}

// checkTimerStopped fails unless x's timer is stopped for good: no fire
// pending, and none that would act.
func checkTimerStopped(t *testing.T, x *exchange) {
	t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.phase != phaseDone {
		t.Errorf("the exchange's timer watches phase %d after the end", x.phase)
	}
	if x.timer != nil && x.timer.Stop() {
		t.Error("the exchange's timer was still pending after the end")
	}
}

// TestExchangeReleasedAtEveryEnd checks that each way an exchange can end —
// without the caller calling Close where the end is reached by Read — stops
// every timer the exchange started. goleak cannot see a timer that is armed
// but has not fired, so this is checked from the inside.
func TestExchangeReleasedAtEveryEnd(t *testing.T) {
	stream := func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 100))
		w.(http.Flusher).Flush()
		if r.URL.Query().Has("stall") {
			<-r.Context().Done()
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/401" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"no"}`)
			return
		}
		stream(w, r)
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String()
	l.Close()

	tests := []struct {
		name    string
		url     string
		opts    []Option
		cancel  bool  // cancel the request's context after the first Read
		closeAt int   // Close the body after this many reads; 0 reads to the end
		doFails bool  // Do returns an error and no body
		wantEnd error // the error that ends the reading
	}{
		{"read to the end", srv.URL, nil, false, 0, false, io.EOF},
		{"closed before the end", srv.URL + "?stall", nil, false, 1, false, ErrBodyClosed},
		{"cancelled mid-stream", srv.URL + "?stall", nil, true, 0, false, context.Canceled},
		{"stalled mid-stream", srv.URL + "?stall", []Option{WithLowSpeed(1, 100*time.Millisecond)}, false, 0, false, ErrStalled},
		{"total timeout mid-stream", srv.URL + "?stall", []Option{WithTimeout(200 * time.Millisecond)}, false, 0, false, ErrTimeout},
		{"over the cap", srv.URL, []Option{WithMaxStreamBytes(10)}, false, 0, false, ErrStreamTooLarge},
		{"status error", srv.URL + "/401", nil, false, 0, true, nil},
		{"connection refused after retries", refused, []Option{WithRetry(1, time.Millisecond, time.Millisecond)}, false, 0, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var attempts attemptContexts
			c := New(append([]Option{WithProxy(attempts.proxy)}, tt.opts...)...)
			defer c.CloseIdleConnections()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if tt.doFails {
				if err == nil {
					resp.Body.Close()
					t.Fatal("Do succeeded, want an error")
				}
				attempts.checkReleased(t, nil)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := resp.Body.(*body)
			buf := make([]byte, 32)
			for reads := 1; ; reads++ {
				_, err = b.Read(buf)
				if err != nil {
					break
				}
				if reads == tt.closeAt {
					b.Close()
				}
				if tt.cancel && reads == 1 {
					cancel()
				}
			}
			if !errors.Is(err, tt.wantEnd) {
				t.Fatalf("the reading ended with %v, want %v", err, tt.wantEnd)
			}
			attempts.checkReleased(t, b)
		})
	}
}

// TestExchangeSize guards the bytes each held stream costs. An exchange is
// one allocation, net/http's Request included; with Go 1.26's 304-byte
// Request, the rest must stay within 208 bytes for the whole to fit the
// 512-byte size class. A field that breaks this budget costs 64 bytes per
// stream (the next class is 576).
func TestExchangeSize(t *testing.T) {
	const budget = 208
	if own := unsafe.Sizeof(exchange{}) - unsafe.Sizeof(http.Request{}); own > budget {
		t.Errorf("exchange without its Request is %d bytes, over the budget of %d", own, budget)
	}
}
