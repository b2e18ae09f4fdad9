package transport_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// fastRetry keeps retry waits short so the fault matrix runs quickly.
var fastRetry = transport.WithRetry(2, time.Millisecond, 5*time.Millisecond)

func mustRequest(tb testing.TB, ctx context.Context, method, url string, body io.Reader) *http.Request {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		tb.Fatal(err)
	}
	return req
}

func TestDoStatusErrorNotRetried(t *testing.T) {
	const body = `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`
	var hits counter
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.next()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, body)
	})
	rec := &recorder{}
	c := newClient(t, fastRetry, transport.WithObserver(rec.observe))

	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodPost, srv.URL, strings.NewReader("{}")))
	if resp != nil {
		t.Fatalf("Do returned a response for a 401: %v", resp.Status)
	}
	var se *transport.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("Do error = %v, want *StatusError", err)
	}
	if se.StatusCode != 401 || string(se.Body) != body || se.Header.Get("Content-Type") != "application/json" || se.Truncated {
		t.Errorf("StatusError = %d %q %v truncated=%v", se.StatusCode, se.Body, se.Header, se.Truncated)
	}
	const wantText = `transport: HTTP 401 Unauthorized: {"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`
	if err.Error() != wantText {
		t.Errorf("Error() = %q, want %q", err.Error(), wantText)
	}
	if hits.get() != 1 {
		t.Errorf("server saw %d requests, want 1 (a 401 is not retried)", hits.get())
	}
	if got := rec.kinds(); got != "attempt response end" {
		t.Errorf("events = %q", got)
	}
}

// TestDoRetryAfterZeroThenSuccess runs on the fake clock of a synctest
// bubble: Retry-After: 0 must retry at once, with no time passing at all.
func TestDoRetryAfterZeroThenSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var hits counter
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) {
			if hits.next() == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, "ok")
		})
		rec := &recorder{}
		// Default backoff bounds: Retry-After: 0 must mean "now", not 250 ms+.
		c := newPipeClient(t, l, transport.WithObserver(rec.observe))
		start := time.Now()
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(got) != "ok" {
			t.Fatalf("body = %q, %v", got, err)
		}
		if hits.get() != 2 {
			t.Errorf("attempts = %d, want 2", hits.get())
		}
		if got := rec.kinds(); got != "attempt retry attempt response end" {
			t.Errorf("events = %q", got)
		}
		retry := rec.last(t, transport.EventRetry)
		if retry.Wait != 0 || retry.StatusCode != 429 || retry.Attempt != 1 {
			t.Errorf("retry event = %v, want wait 0 status 429 attempt 1", retry)
		}
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("took %v, want no wait", elapsed)
		}
	})
}

// onlyReader hides every method but Read, so http.NewRequest sets no GetBody
// and the Client must buffer the body to replay it.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestDoReplaysBodyAfter503(t *testing.T) {
	const payload = `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`
	tests := []struct {
		name string
		body func() io.Reader
	}{
		{"with GetBody", func() io.Reader { return strings.NewReader(payload) }},
		{"buffered", func() io.Reader { return onlyReader{strings.NewReader(payload)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits counter
			seen := make(chan string, 3)
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				seen <- string(b)
				if hits.next() == 1 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				io.WriteString(w, "done")
			})
			c := newClient(t, fastRetry)
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodPost, srv.URL, tt.body()))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if hits.get() != 2 {
				t.Fatalf("attempts = %d, want 2", hits.get())
			}
			for i := range 2 {
				if got := <-seen; got != payload {
					t.Errorf("attempt %d body = %q, want %q", i+1, got, payload)
				}
			}
		})
	}
}

func TestDoRetryCount(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		wantHits   int
	}{
		{"no retries", 0, 1},
		{"one retry", 1, 2},
		{"default two", 2, 3},
		{"three", 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits counter
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				hits.next()
				w.WriteHeader(http.StatusBadGateway)
			})
			c := newClient(t, transport.WithRetry(tt.maxRetries, 0, time.Millisecond))
			_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			var se *transport.StatusError
			if !errors.As(err, &se) || se.StatusCode != 502 {
				t.Fatalf("err = %v, want a 502 StatusError", err)
			}
			if hits.get() != tt.wantHits {
				t.Errorf("attempts = %d, want %d", hits.get(), tt.wantHits)
			}
		})
	}
}

// TestDoShouldRetryHeader: the server's x-should-retry decides over the
// status, both ways.
func TestDoShouldRetryHeader(t *testing.T) {
	tests := []struct {
		status   int
		header   string
		wantHits int
	}{
		{529, "", 2}, {529, "false", 1}, {503, "false", 1}, {400, "true", 2}, {429, "true", 2}, {400, "maybe", 1},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status)+"/"+tt.header, func(t *testing.T) {
			var hits counter
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				hits.next()
				if tt.header != "" {
					w.Header().Set("X-Should-Retry", tt.header)
				}
				w.WriteHeader(tt.status)
			})
			c := newClient(t, transport.WithRetry(1, 0, 0))
			_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			var se *transport.StatusError
			if !errors.As(err, &se) || se.StatusCode != tt.status || hits.get() != tt.wantHits {
				t.Errorf("err = %v, attempts = %d, want %d", err, hits.get(), tt.wantHits)
			}
		})
	}
}

func TestDoRetryableStatuses(t *testing.T) {
	tests := []struct {
		status   int
		wantHits int
	}{
		{400, 1}, {401, 1}, {403, 1}, {404, 1}, {407, 1},
		{408, 2}, {409, 2}, {410, 1}, {422, 1}, {429, 2},
		{499, 1}, {500, 2}, {502, 2}, {503, 2}, {504, 2}, {599, 2},
		{304, 1},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			var hits counter
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				hits.next()
				w.WriteHeader(tt.status)
			})
			c := newClient(t, transport.WithRetry(1, 0, 0))
			_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			var se *transport.StatusError
			if !errors.As(err, &se) || se.StatusCode != tt.status {
				t.Fatalf("err = %v, want StatusError %d", err, tt.status)
			}
			if hits.get() != tt.wantHits {
				t.Errorf("attempts = %d, want %d", hits.get(), tt.wantHits)
			}
		})
	}
}

// TestDoServerWaits checks the waits a server asks for, at the cap, one
// under and one over. It runs on the fake clock of a synctest bubble, so the
// retry must come exactly when the server said.
func TestDoServerWaits(t *testing.T) {
	tests := []struct {
		name     string
		header   string
		value    string
		maxWait  time.Duration
		wantWait time.Duration // 0 with wantHits 1: not retried
		wantHits int
	}{
		{"retry-after-ms", "retry-after-ms", "30", time.Second, 30 * time.Millisecond, 2},
		{"retry-after-ms fraction", "retry-after-ms", "1.5", time.Second, 1500 * time.Microsecond, 2},
		{"seconds at the cap", "Retry-After", "1", time.Second, time.Second, 2},
		{"seconds over the cap", "Retry-After", "2", time.Second, 0, 1},
		{"ms one over the cap", "retry-after-ms", "1001", time.Second, 0, 1},
		{"ms one under the cap", "retry-after-ms", "999", time.Second, 999 * time.Millisecond, 2},
		{"zero cap honours now", "Retry-After", "0", 0, 0, 2},
		{"zero cap refuses any wait", "retry-after-ms", "1", 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var hits counter
				var second time.Time // when the retry arrived
				srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) {
					if hits.next() == 1 {
						w.Header().Set(tt.header, tt.value)
						w.WriteHeader(http.StatusTooManyRequests)
						return
					}
					second = time.Now()
					w.WriteHeader(http.StatusNoContent)
				})
				rec := &recorder{}
				c := newPipeClient(t, l, transport.WithMaxRetryAfter(tt.maxWait), transport.WithObserver(rec.observe))
				start := time.Now()
				resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
				if resp != nil {
					resp.Body.Close()
				}
				if hits.get() != tt.wantHits {
					t.Fatalf("attempts = %d, want %d (err %v)", hits.get(), tt.wantHits, err)
				}
				if tt.wantHits == 1 {
					var se *transport.StatusError
					if !errors.As(err, &se) || se.Header.Get(tt.header) != tt.value {
						t.Fatalf("err = %v, want the 429 with its %s header", err, tt.header)
					}
					if elapsed := time.Since(start); elapsed != 0 {
						t.Errorf("gave up after %v, want at once", elapsed)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if w := rec.last(t, transport.EventRetry).Wait; w != tt.wantWait {
					t.Errorf("wait = %v, want %v", w, tt.wantWait)
				}
				if got := second.Sub(start); got != tt.wantWait {
					t.Errorf("retried after %v, want the server's %v", got, tt.wantWait)
				}
			})
		})
	}
}

func TestDoWaitPastDeadlineNotBegun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var hits counter
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) {
			hits.next()
			w.Header().Set("Retry-After", "20")
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		c := newPipeClient(t, l, transport.WithTimeout(2*time.Second))
		start := time.Now()
		_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		var se *transport.StatusError
		if !errors.As(err, &se) || se.StatusCode != 503 {
			t.Fatalf("err = %v, want the 503", err)
		}
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("took %v; a wait longer than the time left must not begin", elapsed)
		}
		if hits.get() != 1 {
			t.Errorf("attempts = %d, want 1", hits.get())
		}
	})
}

func TestDoCancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := &recorder{}
		c := newPipeClient(t, l, transport.WithRetry(2, time.Hour, time.Hour), transport.WithTimeout(0),
			transport.WithObserver(func(e transport.Event) {
				rec.observe(e)
				if e.Kind == transport.EventRetry {
					cancel()
				}
			}))
		start := time.Now()
		_, err := c.Do(mustRequest(t, ctx, http.MethodGet, srv.URL, nil))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("cancel took %v to end the wait", elapsed)
		}
		if got := rec.kinds(); got != "attempt retry end" {
			t.Errorf("events = %q", got)
		}
	})
}

func TestDoStreamCutMidBody(t *testing.T) {
	var hits counter
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.next()
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, strings.Repeat("x", 50))
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	rec := &recorder{}
	c := newClient(t, fastRetry, transport.WithObserver(rec.observe))
	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	if len(got) != 50 {
		t.Errorf("read %d bytes, want 50", len(got))
	}
	if hits.get() != 1 {
		t.Errorf("attempts = %d; a failure after streaming began must not be retried", hits.get())
	}
	if end := rec.last(t, transport.EventEnd); end.Bytes != 50 || !errors.Is(end.Err, io.ErrUnexpectedEOF) {
		t.Errorf("end event = %v", end)
	}
	// The error sticks.
	if _, err2 := resp.Body.Read(make([]byte, 1)); err2 != err {
		t.Errorf("second Read error = %v, want the first %v", err2, err)
	}
}

// streamN writes n bytes in chunks of 100, flushing each, so that no
// Content-Length is declared and the cap is met while streaming.
func streamN(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("abcdefghij", 10))
		for left := n; left > 0; {
			k := min(left, len(chunk))
			w.Write(chunk[:k])
			w.(http.Flusher).Flush()
			left -= k
		}
	}
}

func TestDoStreamCap(t *testing.T) {
	const limit = 1000
	tests := []struct {
		name    string
		size    int
		wantLen int
		wantErr error
	}{
		{"one under the cap", limit - 1, limit - 1, nil},
		{"exactly the cap", limit, limit, nil},
		{"one over the cap", limit + 1, limit, transport.ErrStreamTooLarge},
		{"far over the cap", 10 * limit, limit, transport.ErrStreamTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, streamN(tt.size))
			rec := &recorder{}
			c := newClient(t, transport.WithMaxStreamBytes(limit), transport.WithObserver(rec.observe))
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			if err != nil {
				t.Fatal(err)
			}
			// A large buffer, so the cap and not the buffer shapes the reads.
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(got) != tt.wantLen {
				t.Errorf("handed %d bytes, want %d", len(got), tt.wantLen)
			}
			var tooLarge *transport.StreamTooLargeError
			if tt.wantErr != nil && (!errors.As(err, &tooLarge) || tooLarge.Max != limit) {
				t.Errorf("err = %#v, want *StreamTooLargeError{Max: %d}", err, limit)
			}
			end := rec.last(t, transport.EventEnd)
			if end.Bytes != int64(tt.wantLen) || !errors.Is(end.Err, tt.wantErr) {
				t.Errorf("end event = %v", end)
			}
		})
	}
}

func TestDoDeclaredLengthOverCap(t *testing.T) {
	tests := []struct {
		name    string
		length  int
		wantErr bool
	}{
		{"one under", 63, false},
		{"at the cap", 64, false},
		{"one over", 65, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", strconv.Itoa(tt.length))
				w.Write(bytes.Repeat([]byte("y"), tt.length))
			})
			c := newClient(t, transport.WithMaxStreamBytes(64))
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			if !tt.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || len(got) != tt.length {
					t.Fatalf("read %d, %v", len(got), err)
				}
				return
			}
			var tooLarge *transport.StreamTooLargeError
			if resp != nil || !errors.As(err, &tooLarge) || tooLarge.ContentLength != int64(tt.length) || tooLarge.Max != 64 {
				t.Fatalf("Do = %v, %v; want *StreamTooLargeError for the declared length", resp, err)
			}
			const want = "transport: response body of 65 bytes exceeds the cap of 64 bytes"
			if err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// stallAfterFirstEvent sends one SSE event, then nothing until the client
// goes away.
func stallAfterFirstEvent(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"x\":1}\n\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestDoStallAfterFirstEvent runs on the fake clock of a synctest bubble, so
// it holds the detection to its documented bound: a window, and at most a
// tenth of one more.
func TestDoStallAfterFirstEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window = 200 * time.Millisecond
		srv, l := newPipeServer(t, stallAfterFirstEvent)
		c := newPipeClient(t, l, transport.WithLowSpeed(1, window))
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		first := make([]byte, 64)
		n, err := resp.Body.Read(first)
		if err != nil || n == 0 {
			t.Fatalf("first read = %d, %v", n, err)
		}
		start := time.Now()
		_, err = io.ReadAll(resp.Body)
		elapsed := time.Since(start)
		if !errors.Is(err, transport.ErrStalled) {
			t.Fatalf("err = %v, want ErrStalled", err)
		}
		var stalled *transport.StalledError
		if !errors.As(err, &stalled) || stalled.Window != window || stalled.BytesPerSecond != 1 || stalled.Bytes != 0 || stalled.AwaitingHeaders {
			t.Errorf("err = %#v", err)
		}
		if elapsed < window || elapsed > window+window/10 {
			t.Errorf("stall detected after %v, window %v", elapsed, window)
		}
	})
}

func TestDoStallAwaitingHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window = 200 * time.Millisecond
		var hits counter
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) {
			hits.next()
			<-r.Context().Done()
		})
		c := newPipeClient(t, l, transport.WithLowSpeed(1, window), fastRetry)
		start := time.Now()
		_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		elapsed := time.Since(start)
		var stalled *transport.StalledError
		if !errors.As(err, &stalled) || !stalled.AwaitingHeaders {
			t.Fatalf("err = %v, want *StalledError awaiting headers", err)
		}
		if elapsed != window {
			t.Errorf("took %v, want the window, %v", elapsed, window)
		}
		if hits.get() != 1 {
			t.Errorf("attempts = %d; a stall is not retried", hits.get())
		}
	})
}

func TestDoSlowConsumerIsNotAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window = 100 * time.Millisecond
		srv, l := newPipeServer(t, streamN(300))
		c := newPipeClient(t, l, transport.WithLowSpeed(1, window))
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var total int
		buf := make([]byte, 100)
		for {
			// The caller is away for three windows between reads, and the
			// server is ready to send whenever it reads.
			time.Sleep(3 * window)
			n, err := resp.Body.Read(buf)
			total += n
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("after %d bytes: %v", total, err)
			}
		}
		if total != 300 {
			t.Errorf("read %d bytes, want 300", total)
		}
	})
}

func TestDoTrickleHitsTotalTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const total = 900 * time.Millisecond
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) {
			// 50 B/s: far above the low-speed floor, but never done.
			for {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
				w.Write([]byte("."))
				w.(http.Flusher).Flush()
			}
		})
		c := newPipeClient(t, l, transport.WithTimeout(total), transport.WithLowSpeed(1, 300*time.Millisecond))
		start := time.Now()
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		elapsed := time.Since(start)
		var te *transport.TimeoutError
		if !errors.Is(err, transport.ErrTimeout) || !errors.As(err, &te) || te.Limit != transport.LimitTotal || te.After != total {
			t.Fatalf("err = %v, want the total timeout", err)
		}
		if errors.Is(err, transport.ErrStalled) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v also matches a cause it does not have", err)
		}
		if len(got) == 0 {
			t.Error("the trickle delivered nothing before the timeout")
		}
		if elapsed != total {
			t.Errorf("timed out after %v, limit %v", elapsed, total)
		}
	})
}

func TestDoCallerDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const deadline = 200 * time.Millisecond
		srv, l := newPipeServer(t, stallAfterFirstEvent)
		c := newPipeClient(t, l, transport.WithLowSpeed(0, 0))
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		start := time.Now()
		resp, err := c.Do(mustRequest(t, ctx, http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		if !errors.Is(err, transport.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want ErrTimeout and context.DeadlineExceeded", err)
		}
		var te *transport.TimeoutError
		if !errors.As(err, &te) || te.Limit != transport.LimitContext {
			t.Errorf("err = %#v, want Limit %q", err, transport.LimitContext)
		}
		if elapsed := time.Since(start); elapsed != deadline {
			t.Errorf("ended after %v, want the deadline, %v", elapsed, deadline)
		}
	})
}

// TestDoCancelMidStream cancels the context while a Read waits for the
// network, which must end that Read at once.
func TestDoCancelMidStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newPipeServer(t, stallAfterFirstEvent)
		rec := &recorder{}
		c := newPipeClient(t, l, transport.WithObserver(rec.observe))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp, err := c.Do(mustRequest(t, ctx, http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 5)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := io.ReadAll(resp.Body)
			done <- err
		}()
		synctest.Wait() // the reader waits for the network, as does everything else
		select {
		case err = <-done:
			t.Fatalf("Read ended before the cancel: %v", err)
		default:
		}
		start := time.Now()
		cancel()
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Read did not end after cancel")
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		// The clock of the bubble moved only if a timer ended the Read.
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("cancel took %v", elapsed)
		}
		end := rec.last(t, transport.EventEnd)
		if !errors.Is(end.Err, context.Canceled) || end.Bytes < 5 {
			t.Errorf("end event = %v", end)
		}
	})
}

func TestDoCancelBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		c := newPipeClient(t, l)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel) // once Do waits for the headers
		_, err := c.Do(mustRequest(t, ctx, http.MethodGet, srv.URL, nil))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestDoCancelCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newPipeServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		c := newPipeClient(t, l)
		errUser := errors.New("user pressed stop")
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(50*time.Millisecond, func() { cancel(errUser) }) // once Do waits for the headers
		_, err := c.Do(mustRequest(t, ctx, http.MethodGet, srv.URL, nil))
		if !errors.Is(err, context.Canceled) || !errors.Is(err, errUser) {
			t.Fatalf("err = %v, want context.Canceled and the cause", err)
		}
	})
}

// refusedURL returns a loopback address where nothing listens.
func refusedURL(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestDoRefusedConnectionKeepsSecrets(t *testing.T) {
	secrets := []string{"sk-header-0123456789", "query-key-0123456789", "query-token-0123456789", "userinfo-pass-0123456789", "sig-0123456789"}
	target := strings.Replace(refusedURL(t), "http://", "http://alice:"+secrets[3]+"@", 1) +
		"/v1/chat/completions?api-version=2024-06-01&api-key=" + secrets[1] + "&access_token=" + secrets[2] + "&sig=" + secrets[4]
	rec := &recorder{}
	c := newClient(t, transport.WithRetry(1, time.Millisecond, time.Millisecond), transport.WithObserver(rec.observe))
	req := mustRequest(t, context.Background(), http.MethodPost, target, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+secrets[0])
	_, err := c.Do(req)
	if err == nil {
		t.Fatal("Do succeeded against a closed port")
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) || opErr.Op != "dial" {
		t.Errorf("err = %v; the dial error must stay in the chain", err)
	}
	texts := []string{err.Error()}
	for _, e := range rec.all() {
		texts = append(texts, e.String())
	}
	for _, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("secret %q in %q", s, text)
			}
		}
	}
	if !strings.Contains(err.Error(), "api-version=2024-06-01") || !strings.Contains(err.Error(), "api-key=REDACTED") {
		t.Errorf("err = %q; want harmless parameters kept and secret ones redacted", err)
	}
	if got := rec.kinds(); got != "attempt retry attempt end" {
		t.Errorf("events = %q; a refused connection is retried", got)
	}
}

func TestStatusErrorBlanksEchoedSecret(t *testing.T) {
	const key = "sk-live-abcdefghijklmnop"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"error":"key `+r.Header.Get("Authorization")+` is revoked"}`)
	})
	c := newClient(t)
	req := mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	_, err := c.Do(req)
	var se *transport.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("Error() = %q holds the key", err)
	}
	const want = `transport: HTTP 403 Forbidden: {"error":"key REDACTED is revoked"}`
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

// TestStatusErrorCutSecret: an error body cut at the bound, or by a
// broken connection, in the middle of an echoed key shows no part of it.
func TestStatusErrorCutSecret(t *testing.T) {
	const key = "sk-live-cut-abcdefghijklmnop"
	for _, tt := range []struct {
		name  string
		serve func(w http.ResponseWriter)
	}{
		{"cut at the bound", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, strings.Repeat("e", transport.MaxErrorBodyBytes-20)+"Bearer "+key)
		}},
		{"connection broken", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "bad key: Bearer "+key[:12])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { tt.serve(w) })
			check := func(t *testing.T, err error) {
				var se *transport.StatusError
				if !errors.As(err, &se) {
					t.Fatalf("err = %v", err)
				}
				for i := 4; i < len(key); i++ {
					if bytes.HasSuffix(se.Body, []byte(key[:i])) {
						t.Fatalf("the body ends with %q, the start of the key", key[:i])
					}
				}
			}
			req := mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			_, err := newClient(t, transport.WithRetry(0, 0, 0)).Do(req)
			check(t, err)
			// The same for the answer of an HTTP client of the caller's.
			req = mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			check(t, transport.ReadStatusError(req, resp))
		})
	}
}

func TestDoErrorBodyBound(t *testing.T) {
	tests := []struct {
		name          string
		size          int
		wantLen       int
		wantTruncated bool
	}{
		{"one under", transport.MaxErrorBodyBytes - 1, transport.MaxErrorBodyBytes - 1, false},
		{"at the bound", transport.MaxErrorBodyBytes, transport.MaxErrorBodyBytes, false},
		{"one over", transport.MaxErrorBodyBytes + 1, transport.MaxErrorBodyBytes, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				w.Write(bytes.Repeat([]byte("e"), tt.size))
			})
			c := newClient(t)
			_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			var se *transport.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v", err)
			}
			if len(se.Body) != tt.wantLen || se.Truncated != tt.wantTruncated {
				t.Errorf("body %d bytes truncated=%v, want %d %v", len(se.Body), se.Truncated, tt.wantLen, tt.wantTruncated)
			}
			if len(err.Error()) > 400 {
				t.Errorf("Error() is %d bytes long; the excerpt must be short", len(err.Error()))
			}
		})
	}
}

func TestDoByteAccounting(t *testing.T) {
	t.Run("normal", func(t *testing.T) {
		srv := newServer(t, streamN(2500))
		rec := &recorder{}
		c := newClient(t, transport.WithObserver(rec.observe))
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		end := rec.last(t, transport.EventEnd)
		if err != nil || n != 2500 || end.Bytes != 2500 || end.Err != nil || end.StatusCode != 200 {
			t.Errorf("copied %d (%v); end event = %v", n, err, end)
		}
		if got := rec.kinds(); got != "attempt response end" {
			t.Errorf("events = %q; Close after the end must not report twice", got)
		}
	})
	t.Run("over the cap", func(t *testing.T) {
		srv := newServer(t, streamN(2500))
		rec := &recorder{}
		c := newClient(t, transport.WithObserver(rec.observe), transport.WithMaxStreamBytes(1234))
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		end := rec.last(t, transport.EventEnd)
		if !errors.Is(err, transport.ErrStreamTooLarge) || n != 1234 || end.Bytes != 1234 || !errors.Is(end.Err, transport.ErrStreamTooLarge) {
			t.Errorf("copied %d (%v); end event = %v", n, err, end)
		}
	})
	t.Run("abort counted", func(t *testing.T) {
		srv := newServer(t, stallAfterFirstEvent)
		rec := &recorder{}
		c := newClient(t, transport.WithObserver(rec.observe))
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 7)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		end := rec.last(t, transport.EventEnd)
		if end.Bytes != 7 || !errors.Is(end.Err, transport.ErrBodyClosed) {
			t.Errorf("end event = %v, want 7 bytes and ErrBodyClosed", end)
		}
		if _, err := resp.Body.Read(buf); !errors.Is(err, transport.ErrBodyClosed) {
			t.Errorf("Read after Close = %v, want ErrBodyClosed", err)
		}
	})
}

func TestCloseReleasesConnection(t *testing.T) {
	serverDone := make(chan struct{})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(serverDone)
		stallAfterFirstEvent(w, r)
	})
	c := newClient(t)
	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Read(make([]byte, 4))
	resp.Body.Close()
	select {
	case <-serverDone:
	case <-time.After(5 * time.Second):
		t.Fatal("the server still holds the request after Close")
	}
}

// TestCloseDuringRead closes the body while a Read of it waits for the
// network, which must end that Read with ErrBodyClosed.
func TestCloseDuringRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newPipeServer(t, stallAfterFirstEvent)
		c := newPipeClient(t, l)
		resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Read(make([]byte, 64))
		done := make(chan error, 1)
		go func() {
			_, err := resp.Body.Read(make([]byte, 64))
			done <- err
		}()
		synctest.Wait() // the reader waits for the network, as does everything else
		select {
		case err = <-done:
			t.Fatalf("Read ended before the Close: %v", err)
		default:
		}
		start := time.Now()
		resp.Body.Close()
		select {
		case err := <-done:
			if !errors.Is(err, transport.ErrBodyClosed) {
				t.Errorf("Read = %v, want ErrBodyClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not end the Read")
		}
		if elapsed := time.Since(start); elapsed != 0 {
			t.Errorf("Close took %v to end the Read", elapsed)
		}
	})
}

func TestConnectionReuseAndCloseIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newTrackedServer(t)
		c := newPipeClient(t, srv.pipe)
		for range 3 {
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.url, nil))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if n := srv.count(http.StateNew); n != 1 {
			t.Errorf("%d connections for 3 sequential requests, want 1", n)
		}
		c.CloseIdleConnections()
		synctest.Wait() // the server has seen the close, if there was one
		if n := srv.count(http.StateClosed); n != 1 {
			t.Errorf("%d connections closed after CloseIdleConnections, want 1", n)
		}
	})
}

func TestDoConcurrent(t *testing.T) {
	srv := newServer(t, streamN(1000))
	c := newClient(t)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			if err != nil {
				errs <- err
				return
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err == nil && n != 1000 {
				err = errors.New("short body: " + strconv.FormatInt(n, 10))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestDoProxy(t *testing.T) {
	proxy := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		// A forward proxy receives the absolute URL of the target.
		io.WriteString(w, "via proxy for "+r.URL.String())
	})
	c := newClient(t, transport.WithProxy(func(*http.Request) (*url.URL, error) { return url.Parse(proxy.URL) }))
	target := refusedURL(t) + "/v1/models"
	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, target, nil))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "via proxy for " + target; string(got) != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

// closeRecorder notes whether Close was called on a request body.
type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error {
	c.closed = true
	return nil
}

func TestDoBadOptionSendsNothing(t *testing.T) {
	var hits counter
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { hits.next() })
	c := newClient(t, transport.WithMaxStreamBytes(-1))
	body := &closeRecorder{Reader: strings.NewReader("{}")}
	for range 2 { // every Do reports it, not only the first
		_, err := c.Do(mustRequest(t, context.Background(), http.MethodPost, srv.URL, body))
		var oe *transport.OptionError
		if !errors.Is(err, transport.ErrInvalidOption) || !errors.As(err, &oe) || oe.Option != "transport.WithMaxStreamBytes(-1)" {
			t.Fatalf("err = %v, want the OptionError", err)
		}
	}
	if hits.get() != 0 {
		t.Errorf("%d requests sent", hits.get())
	}
	if !body.closed {
		t.Error("the request body was not closed")
	}
}

func TestDoMisuse(t *testing.T) {
	var zero transport.Client
	body := &closeRecorder{Reader: strings.NewReader("{}")}
	req := mustRequest(t, context.Background(), http.MethodPost, "http://127.0.0.1:1/", body)
	if _, err := zero.Do(req); !errors.Is(err, transport.ErrMisuse) || err.Error() != "transport: misuse: Client not made by New" {
		t.Errorf("zero Client: %v", err)
	}
	if !body.closed {
		t.Error("the request body was not closed")
	}
	zero.CloseIdleConnections() // must not panic
	c := newClient(t)
	if _, err := c.Do(nil); !errors.Is(err, transport.ErrMisuse) || err.Error() != "transport: misuse: nil Request" {
		t.Errorf("nil request: %v", err)
	}
	if _, err := c.Do(&http.Request{Method: http.MethodGet}); !errors.Is(err, transport.ErrMisuse) || err.Error() != "transport: misuse: Request without a URL" {
		t.Errorf("nil URL: %v", err)
	}
}

// TestDoBufferedBodyBound: a request body without GetBody is buffered for
// replay up to MaxBufferedRequestBytes; a longer one is sent once, whole,
// and its exchange is not retried.
func TestDoBufferedBodyBound(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		wantHits int
	}{
		{"one under", transport.MaxBufferedRequestBytes - 1, 2},
		{"at the bound", transport.MaxBufferedRequestBytes, 2},
		{"one over", transport.MaxBufferedRequestBytes + 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits counter
			received := make(chan int64, 3)
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				n, _ := io.Copy(io.Discard, r.Body)
				received <- n
				if hits.next() == 1 {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.WriteHeader(http.StatusNoContent)
			})
			c := newClient(t, fastRetry)
			body := onlyReader{io.LimitReader(zeros{}, int64(tt.size))}
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodPost, srv.URL, body))
			if tt.wantHits == 1 {
				var se *transport.StatusError
				if !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("err = %v, want the 503, not retried", err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if hits.get() != tt.wantHits {
				t.Fatalf("attempts = %d, want %d", hits.get(), tt.wantHits)
			}
			for i := range tt.wantHits {
				if n := <-received; n != int64(tt.size) {
					t.Errorf("attempt %d sent %d bytes, want %d", i+1, n, tt.size)
				}
			}
		})
	}
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestLoggerAndObserver: WithLogger logs every event at debug level beside
// the observer, the URL redacted; a logger above debug level gets nothing.
func TestLoggerAndObserver(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	var logged bytes.Buffer
	var events []transport.Event
	l := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newClient(t, transport.WithLogger(l), transport.WithObserver(func(e transport.Event) { events = append(events, e) }))
	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL+"/p?token=tok-secret-123&x=1", nil))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	text := logged.String()
	for _, want := range []string{`msg="transport: attempt"`, `msg="transport: response"`, "status=200", `msg="transport: end"`, "bytes=2", "token=REDACTED&x=1"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "tok-secret-123") || len(events) != 3 {
		t.Errorf("log %s; %d events", text, len(events))
	}
	var quiet bytes.Buffer
	c = newClient(t, transport.WithLogger(slog.New(slog.NewTextHandler(&quiet, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	resp, err = c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if quiet.Len() != 0 {
		t.Errorf("logged above debug level: %s", quiet.String())
	}
}
