package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
)

// errReleased is the cancellation cause once an exchange is over; nothing
// reads it, since every path has taken its error by then.
var errReleased = errors.New("transport: exchange released")

// exchange is one call of Client.Do: its attempts, the waits between them,
// and the body it hands out. It owns a context derived from the request's,
// which carries the total timeout and which the low-speed watch cancels;
// releasing it stops every timer the exchange started.
type exchange struct {
	c         *Client
	req       *http.Request
	parent    context.Context
	ctx       context.Context
	cancel    context.CancelCauseFunc
	stopTotal context.CancelFunc
	start     time.Time
	attempt   int
	url       string // redacted; set only when there is an observer
}

func newExchange(c *Client, req *http.Request) *exchange {
	x := &exchange{c: c, req: req, parent: req.Context(), start: time.Now(), stopTotal: func() {}}
	ctx := x.parent
	if c.cfg.timeout > 0 {
		ctx, x.stopTotal = context.WithTimeoutCause(ctx, c.cfg.timeout,
			&TimeoutError{Limit: LimitTotal, After: c.cfg.timeout})
	}
	x.ctx, x.cancel = context.WithCancelCause(ctx)
	if c.cfg.observer != nil {
		x.url = redact.URL(req.URL.String())
	}
	return x
}

func (x *exchange) run() (*http.Response, error) {
	getBody, body, replayable, err := x.prepareBody()
	if err != nil {
		return nil, x.fail(err, 0)
	}
	for {
		x.attempt++
		r := x.req.WithContext(x.ctx)
		r.GetBody = getBody
		if x.attempt == 1 {
			r.Body = body
		} else if getBody != nil {
			if r.Body, err = getBody(); err != nil {
				return nil, x.fail(fmt.Errorf("transport: replaying the request body: %w", err), 0)
			}
		}
		x.emit(Event{Kind: EventAttempt})
		resp, err := x.send(r)
		status := 0
		var wait time.Duration
		var serverWait, retryable bool
		if err == nil {
			status = resp.StatusCode
			if status >= 200 && status <= 299 {
				return x.accept(resp)
			}
			wait, serverWait = retryAfter(resp.Header, time.Now())
			err = x.readStatusError(resp)
			var se *StatusError
			retryable = errors.As(err, &se) && retryableStatus(status)
		} else {
			retryable = retryableError(err)
		}
		if !retryable || !replayable || x.attempt > x.c.cfg.maxRetries {
			return nil, x.fail(err, status)
		}
		if serverWait && wait > x.c.cfg.maxRetryAfter {
			return nil, x.fail(err, status)
		}
		if !serverWait {
			wait = backoff(x.attempt, x.c.cfg.initialBackoff, x.c.cfg.maxBackoff, rand.Int64N)
		}
		if dl, ok := x.ctx.Deadline(); ok && time.Until(dl) < wait {
			// The next attempt could not finish in time: the answer we
			// have says more than the timeout would.
			return nil, x.fail(err, status)
		}
		x.emit(Event{Kind: EventRetry, StatusCode: status, Wait: wait, Err: err})
		if err := x.sleep(wait); err != nil {
			return nil, x.fail(err, 0)
		}
	}
}

// prepareBody returns how to make the request body again for a retry (nil
// when there is no body or no retry), the body for the first attempt, and
// whether the request may be sent more than once.
func (x *exchange) prepareBody() (getBody func() (io.ReadCloser, error), first io.ReadCloser, replayable bool, err error) {
	req := x.req
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		return nil, req.Body, true, nil
	case req.GetBody != nil:
		return req.GetBody, req.Body, true, nil
	case x.c.cfg.maxRetries == 0:
		return nil, req.Body, false, nil
	}
	buf, err := io.ReadAll(io.LimitReader(req.Body, MaxBufferedRequestBytes+1))
	if err != nil {
		req.Body.Close()
		return nil, nil, false, fmt.Errorf("transport: reading the request body: %w", err)
	}
	if len(buf) > MaxBufferedRequestBytes {
		// Too long to hold: send what we read, then the rest as it comes,
		// once.
		return nil, readCloser{io.MultiReader(bytes.NewReader(buf), req.Body), req.Body}, false, nil
	}
	req.Body.Close()
	getBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }
	first, _ = getBody()
	return getBody, first, true, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// send makes one attempt and waits for its response headers, under the
// low-speed rule's bound on that wait.
func (x *exchange) send(r *http.Request) (*http.Response, error) {
	cfg := &x.c.cfg
	var headerWatch *time.Timer
	if cfg.lowSpeedBytes > 0 && cfg.lowSpeedWindow > 0 {
		headerWatch = time.AfterFunc(cfg.lowSpeedWindow, func() {
			x.cancel(&StalledError{BytesPerSecond: cfg.lowSpeedBytes, Window: cfg.lowSpeedWindow, AwaitingHeaders: true})
		})
	}
	resp, err := x.c.hc.Do(r)
	if headerWatch != nil {
		headerWatch.Stop()
	}
	if err != nil {
		return nil, x.attemptError(err)
	}
	return resp, nil
}

// attemptError turns an error from http.Client.Do into ours.
func (x *exchange) attemptError(err error) error {
	if x.ctx.Err() != nil {
		return x.contextError()
	}
	err = redact.Error(err, redact.FromRequest(x.req))
	var t interface{ Timeout() bool }
	if x.c.cfg.connectTimeout > 0 && errors.As(err, &t) && t.Timeout() {
		// Before the response, only the dial and the TLS handshake have
		// timeouts of their own; ours come through the context.
		return &TimeoutError{Limit: LimitConnect, After: x.c.cfg.connectTimeout, Err: err}
	}
	return err
}

// bodyError turns an error from reading the response body into ours.
func (x *exchange) bodyError(err error) error {
	switch {
	case err == io.EOF:
		return err
	case x.ctx.Err() != nil:
		return x.contextError()
	}
	return redact.Error(fmt.Errorf("transport: reading the response body: %w", err), redact.FromRequest(x.req))
}

// contextError says why the exchange's context is done: the caller's context
// (cancelled, or its deadline passed), else our total timeout or low-speed
// rule, whose errors are the cancellation causes.
func (x *exchange) contextError() error {
	if perr := x.parent.Err(); perr != nil {
		cause := context.Cause(x.parent)
		if cause != perr {
			perr = fmt.Errorf("%w: %w", perr, cause)
		}
		if errors.Is(perr, context.DeadlineExceeded) {
			return &TimeoutError{Limit: LimitContext, Err: perr}
		}
		return fmt.Errorf("transport: %w", perr)
	}
	return context.Cause(x.ctx)
}

// readStatusError reads and closes the body of a non-2xx answer, under the
// low-speed rule, and returns it as a *StatusError — or the error that ended
// the exchange while reading it.
func (x *exchange) readStatusError(resp *http.Response) error {
	defer resp.Body.Close()
	watch := newStallWatch(x.c.cfg.lowSpeedBytes, x.c.cfg.lowSpeedWindow, x.stalled)
	body, err := io.ReadAll(io.LimitReader(watchedReader{resp.Body, watch}, MaxErrorBodyBytes+1))
	watch.stop()
	if err != nil && x.ctx.Err() != nil {
		return x.contextError()
	}
	// Another read error leaves a partial body; the status is the news.
	return newStatusError(resp, body, redact.FromRequest(x.req))
}

func (x *exchange) stalled(e *StalledError) { x.cancel(e) }

// accept wraps a 2xx response's body in the limits and hands it on.
func (x *exchange) accept(resp *http.Response) (*http.Response, error) {
	maxBytes := x.c.cfg.maxStream
	if maxBytes > 0 && resp.ContentLength > maxBytes && x.req.Method != http.MethodHead {
		resp.Body.Close()
		return nil, x.fail(&StreamTooLargeError{Max: maxBytes, ContentLength: resp.ContentLength}, resp.StatusCode)
	}
	x.emit(Event{Kind: EventResponse, StatusCode: resp.StatusCode})
	status := resp.StatusCode
	resp.Body = &body{
		rc:     resp.Body,
		max:    maxBytes,
		watch:  newStallWatch(x.c.cfg.lowSpeedBytes, x.c.cfg.lowSpeedWindow, x.stalled),
		mapErr: x.bodyError,
		onEnd: func(n int64, err error) {
			x.release()
			x.emit(Event{Kind: EventEnd, StatusCode: status, Bytes: n, Err: err})
		},
	}
	return resp, nil
}

// sleep waits d, or until the exchange's context is done.
func (x *exchange) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-x.ctx.Done():
		return x.contextError()
	}
}

// fail ends an exchange that produced no body.
func (x *exchange) fail(err error, status int) error {
	x.release()
	if status != 0 {
		x.emit(Event{Kind: EventResponse, StatusCode: status})
	}
	x.emit(Event{Kind: EventEnd, StatusCode: status, Err: err})
	return err
}

// release stops the total timeout and cancels the context, which ends the
// transport's watch on the request.
func (x *exchange) release() {
	x.cancel(errReleased)
	x.stopTotal()
}

func (x *exchange) emit(e Event) {
	fn := x.c.cfg.observer
	if fn == nil {
		return
	}
	e.Method, e.URL, e.Attempt, e.Elapsed = x.req.Method, x.url, x.attempt, time.Since(x.start)
	if e.Method == "" {
		e.Method = http.MethodGet
	}
	fn(e)
}
