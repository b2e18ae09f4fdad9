package transport

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The tests here run in a synctest bubble, against a RoundTripper that stands
// for the network, so that every limit can be checked to the nanosecond on
// the bubble's clock.

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// newFakeClient returns a Client made with opts whose requests rt answers.
func newFakeClient(rt roundTripFunc, opts ...Option) *Client {
	c := New(opts...)
	c.hc = &http.Client{Transport: rt}
	return c
}

// script is a response body that hands out its parts at the given offsets
// from its start, and fails as net/http does once the request's context is
// done.
type script struct {
	ctx   context.Context
	start time.Time
	parts []part
	rest  string
}

type part struct {
	at   time.Duration
	data string
}

func (s *script) Read(p []byte) (int, error) {
	for s.rest == "" {
		if len(s.parts) == 0 {
			select {
			case <-s.ctx.Done():
				return 0, errors.New("fake: connection closed")
			default:
				return 0, io.EOF
			}
		}
		wait := time.NewTimer(time.Until(s.start.Add(s.parts[0].at)))
		select {
		case <-s.ctx.Done():
			wait.Stop()
			return 0, errors.New("fake: connection closed")
		case <-wait.C:
		}
		s.rest, s.parts = s.parts[0].data, s.parts[1:]
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (s *script) Close() error { return nil }

// answer returns a RoundTripper that sends headers with status after
// headersAfter and then the body parts, each at its offset from the headers.
// A zero status means the headers never come.
func answer(status int, headersAfter time.Duration, parts ...part) roundTripFunc {
	return func(r *http.Request) (*http.Response, error) {
		ctx := r.Context()
		if status == 0 {
			<-ctx.Done()
			return nil, errors.New("fake: connection closed")
		}
		select {
		case <-ctx.Done():
			return nil, errors.New("fake: connection closed")
		case <-time.After(headersAfter):
		}
		body := &script{ctx: ctx, start: time.Now(), parts: parts}
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: body, Request: r}, nil
	}
}

// trickle returns n parts of one byte, every interval from half of one, so
// that no byte comes at the same instant as a tick or a limit on a whole
// interval (the order of two things due at once is not defined).
func trickle(n int, interval time.Duration) []part {
	parts := make([]part, n)
	for i := range parts {
		parts[i] = part{interval/2 + time.Duration(i)*interval, "."}
	}
	return parts
}

func fakeRequest(t *testing.T) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://example.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// readToEnd reads body to its end and returns what it read, when the end
// came and the error it ended with.
func readToEnd(start time.Time, body io.Reader) (string, time.Duration, error) {
	got, err := io.ReadAll(body)
	return string(got), time.Since(start), err
}

func TestTimerTotalTimeoutMidBody(t *testing.T) {
	// The low-speed rule ticks every second; the total timeout falls
	// between two ticks, and must fire on time, not at the next tick.
	tests := []struct {
		name  string
		total time.Duration
	}{
		{"between ticks", 4500 * time.Millisecond},
		{"on a tick", 4 * time.Second},
		{"before the first tick", 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newFakeClient(answer(http.StatusOK, 0, trickle(1000, 100*time.Millisecond)...),
					WithTimeout(tt.total), WithLowSpeed(1, 10*time.Second))
				start := time.Now()
				resp, err := c.Do(fakeRequest(t))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				got, elapsed, err := readToEnd(start, resp.Body)
				var te *TimeoutError
				if !errors.As(err, &te) || te.Limit != LimitTotal || te.After != tt.total {
					t.Fatalf("err = %v, want the total timeout", err)
				}
				if errors.Is(err, ErrStalled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
					t.Errorf("err = %v also matches a cause it does not have", err)
				}
				if elapsed != tt.total {
					t.Errorf("timed out after %v, want exactly %v", elapsed, tt.total)
				}
				if want := int(tt.total / (100 * time.Millisecond)); len(got) != want {
					t.Errorf("read %d bytes before the timeout, want %d", len(got), want)
				}
				checkTimerStopped(t, resp.Body.(*body).x)
			})
		})
	}
}

// TestTimerLowSpeedFloor checks the low-speed rule's window through the
// exchange's timer: bytes that arrive at the start of the body, at the floor
// (1 B/s over 10 s: 10 bytes), one under and one over it.
func TestTimerLowSpeedFloor(t *testing.T) {
	tests := []struct {
		name      string
		sent      int
		wantAfter time.Duration // when the stall is reported
		wantBytes int64         // the bytes of the window it reports
	}{
		// The ticks come every second from the headers; the tenth closes
		// the first window, the one with every byte in its first tick.
		{"one under the floor", 9, 10 * time.Second, 9},
		{"at the floor", 10, 11 * time.Second, 0},
		{"one over the floor", 11, 11 * time.Second, 0},
		{"nothing", 0, 10 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parts := []part{{0, strings.Repeat("x", tt.sent)}, {time.Hour, "late"}}
				c := newFakeClient(answer(http.StatusOK, 0, parts...), WithTimeout(0), WithLowSpeed(1, 10*time.Second))
				start := time.Now()
				resp, err := c.Do(fakeRequest(t))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				got, elapsed, err := readToEnd(start, resp.Body)
				var se *StalledError
				if !errors.As(err, &se) || se.AwaitingHeaders || se.BytesPerSecond != 1 || se.Window != 10*time.Second {
					t.Fatalf("err = %#v, want a *StalledError mid-body", err)
				}
				if se.Bytes != tt.wantBytes || elapsed != tt.wantAfter {
					t.Errorf("stalled after %v with %d bytes in the window, want %v and %d", elapsed, se.Bytes, tt.wantAfter, tt.wantBytes)
				}
				if len(got) != tt.sent {
					t.Errorf("read %d bytes, want %d", len(got), tt.sent)
				}
			})
		})
	}
}

func TestTimerAwaitingHeaders(t *testing.T) {
	const window = 10 * time.Second
	tests := []struct {
		name      string
		total     time.Duration
		wantAfter time.Duration
		wantTotal bool // the total timeout, not the low-speed rule
	}{
		{"no total timeout", 0, window, false},
		{"total timeout first", 4 * time.Second, 4 * time.Second, true},
		{"window first", 25 * time.Second, window, false},
		{"both at once: the total timeout", window, window, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newFakeClient(answer(0, 0), WithTimeout(tt.total), WithLowSpeed(1, window))
				start := time.Now()
				_, err := c.Do(fakeRequest(t))
				elapsed := time.Since(start)
				var te *TimeoutError
				var se *StalledError
				switch {
				case tt.wantTotal && (!errors.As(err, &te) || te.Limit != LimitTotal):
					t.Fatalf("err = %v, want the total timeout", err)
				case !tt.wantTotal && (!errors.As(err, &se) || !se.AwaitingHeaders):
					t.Fatalf("err = %v, want a stall awaiting headers", err)
				}
				if elapsed != tt.wantAfter {
					t.Errorf("Do returned after %v, want %v", elapsed, tt.wantAfter)
				}
			})
		})
	}
}

// TestTimerHeadersJustInTime checks that headers that arrive one tick before
// the low-speed window ends are not taken for a stall, and that the body's
// watch starts from them.
func TestTimerHeadersJustInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const window = 10 * time.Second
		c := newFakeClient(answer(http.StatusOK, window-time.Nanosecond, part{5 * time.Second, "0123456789"}),
			WithTimeout(0), WithLowSpeed(1, window))
		start := time.Now()
		resp, err := c.Do(fakeRequest(t))
		if err != nil {
			t.Fatalf("headers within the window: %v", err)
		}
		defer resp.Body.Close()
		_, elapsed, err := readToEnd(start, resp.Body)
		if err != nil {
			t.Fatalf("a body at the floor: %v", err)
		}
		if want := window - time.Nanosecond + 5*time.Second; elapsed != want {
			t.Errorf("ended after %v, want %v", elapsed, want)
		}
	})
}

// TestTimerErrorBody checks the limits while an error body is read inside
// Do: a trickle runs into the total timeout, a silence into the low-speed
// rule.
func TestTimerErrorBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// One byte a second, between the ticks: every window holds
		// exactly the floor.
		c := newFakeClient(answer(http.StatusBadRequest, 0, trickle(100, time.Second)...),
			WithTimeout(30*time.Second), WithLowSpeed(1, 10*time.Second))
		start := time.Now()
		_, err := c.Do(fakeRequest(t))
		var te *TimeoutError
		if !errors.As(err, &te) || te.Limit != LimitTotal || time.Since(start) != 30*time.Second {
			t.Errorf("after %v: err = %v, want the total timeout at 30s", time.Since(start), err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		c := newFakeClient(answer(http.StatusBadRequest, 0, part{0, "{"}, part{time.Hour, "}"}),
			WithTimeout(0), WithLowSpeed(1, 5*time.Second))
		start := time.Now()
		_, err := c.Do(fakeRequest(t))
		var se *StalledError
		if !errors.As(err, &se) || se.AwaitingHeaders || se.Bytes != 1 || time.Since(start) != 5*time.Second {
			t.Errorf("after %v: err = %#v, want a stall with 1 byte at 5s", time.Since(start), err)
		}
	})
}

// TestTimerAwayCallerThenSilence checks that time the caller spends away
// from Read never counts, and that the rule still breaks a full window after
// the caller comes back to a silent server.
func TestTimerAwayCallerThenSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFakeClient(answer(http.StatusOK, 0, part{0, "x"}, part{time.Hour, "late"}),
			WithTimeout(0), WithLowSpeed(1, 10*time.Second))
		resp, err := c.Do(fakeRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// Away for six windows, coming back between two ticks.
		time.Sleep(time.Minute + 500*time.Millisecond)
		back := time.Now()
		_, elapsed, err := readToEnd(back, resp.Body)
		if !errors.Is(err, ErrStalled) {
			t.Fatalf("err = %v, want ErrStalled", err)
		}
		// The tick in progress when the caller came back counts as
		// active, so the stall comes when it is the tenth tick of a
		// window.
		if elapsed != 9500*time.Millisecond {
			t.Errorf("stalled %v after the caller came back, want 9.5s", elapsed)
		}
	})
}

// TestTimerSpuriousFire checks that a fire which comes before anything is
// due, as one racing a Reset may, counts no tick and breaks nothing.
func TestTimerSpuriousFire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFakeClient(answer(http.StatusOK, 0, part{time.Hour, "late"}), WithTimeout(time.Minute), WithLowSpeed(1, 10*time.Second))
		resp, err := c.Do(fakeRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		x := resp.Body.(*body).x
		time.Sleep(500 * time.Millisecond)
		x.onTimer()
		x.mu.Lock()
		next, due := x.watch.next, x.due
		x.mu.Unlock()
		if next != 0 || due != time.Second {
			t.Errorf("an early fire moved the watch: next bucket %d, next tick due at %v", next, due)
		}
		if err := x.ctx.Err(); err != nil {
			t.Errorf("an early fire ended the exchange: %v", context.Cause(x.ctx))
		}
	})
}

// TestTimerNoneWithoutLimits checks that an exchange with no time limit
// makes no timer at all.
func TestTimerNoneWithoutLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFakeClient(answer(http.StatusOK, time.Second, part{time.Second, "hello"}), WithTimeout(0), WithLowSpeed(0, 0))
		resp, err := c.Do(fakeRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "hello" || err != nil {
			t.Fatalf("read %q, %v", got, err)
		}
		if x := resp.Body.(*body).x; x.timer != nil {
			t.Error("an exchange without limits made a timer")
		}
	})
}

// TestTimerStopsAtEveryEnd checks that the timer is stopped for good however
// the body ends.
func TestTimerStopsAtEveryEnd(t *testing.T) {
	tests := []struct {
		name string
		read func(io.ReadCloser)
	}{
		{"read to the end", func(b io.ReadCloser) { io.ReadAll(b) }},
		{"closed before the end", func(b io.ReadCloser) { b.Read(make([]byte, 1)); b.Close() }},
		{"closed before any read", func(b io.ReadCloser) { b.Close() }},
		{"stalled", func(b io.ReadCloser) { b.Read(make([]byte, 2)); io.ReadAll(b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parts := []part{{0, "ab"}}
				if tt.name == "stalled" {
					parts = append(parts, part{time.Hour, "late"})
				}
				c := newFakeClient(answer(http.StatusOK, 0, parts...), WithTimeout(time.Minute), WithLowSpeed(1, 10*time.Second))
				resp, err := c.Do(fakeRequest(t))
				if err != nil {
					t.Fatal(err)
				}
				tt.read(resp.Body)
				resp.Body.Close()
				checkTimerStopped(t, resp.Body.(*body).x)
			})
		})
	}
}

// TestTimerFreshWatchPerBody checks that the body of a retry starts a
// window of its own: the low-speed ticks counted on the error body before it
// do not bring its stall forward.
func TestTimerFreshWatchPerBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		attempts := 0
		rt := func(r *http.Request) (*http.Response, error) {
			attempts++
			if attempts == 1 {
				// An error body read, slowly, for 8.5 of the window's 10 s.
				resp, err := answer(http.StatusServiceUnavailable, 0, part{500 * time.Millisecond, "."}, part{8500 * time.Millisecond, "."})(r)
				if err == nil {
					resp.Header.Set("Retry-After-Ms", "0")
				}
				return resp, err
			}
			return answer(http.StatusOK, 0, part{time.Hour, "late"})(r)
		}
		c := newFakeClient(rt, WithTimeout(0), WithLowSpeed(1, 10*time.Second))
		start := time.Now()
		resp, err := c.Do(fakeRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		bodyStart := time.Since(start)
		_, elapsed, err := readToEnd(start, resp.Body)
		var se *StalledError
		if !errors.As(err, &se) || se.Bytes != 0 {
			t.Fatalf("err = %#v, want a stall with no bytes", err)
		}
		if attempts != 2 || bodyStart != 8500*time.Millisecond {
			t.Fatalf("%d attempts, the body started at %v; want 2 and 8.5s", attempts, bodyStart)
		}
		if want := bodyStart + 10*time.Second; elapsed != want {
			t.Errorf("stalled at %v, want a full window after the body started, at %v", elapsed, want)
		}
	})
}

// TestTimerHugeLimits checks that limits near the largest Duration neither
// wrap around into the past nor break anything.
func TestTimerHugeLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The second attempt starts a second in, so that its wait for
		// headers would end past the largest Duration.
		attempts := 0
		rt := func(r *http.Request) (*http.Response, error) {
			attempts++
			if attempts == 1 {
				resp, err := answer(http.StatusServiceUnavailable, time.Second)(r)
				if err == nil {
					resp.Header.Set("Retry-After-Ms", "0")
				}
				return resp, err
			}
			return answer(http.StatusOK, time.Second, part{time.Second, "hello"})(r)
		}
		c := newFakeClient(rt, WithTimeout(math.MaxInt64), WithLowSpeed(1, math.MaxInt64))
		resp, err := c.Do(fakeRequest(t))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "hello" || err != nil {
			t.Fatalf("read %q, %v", got, err)
		}
	})
}
