package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
)

// errReleased is the cancellation cause once an exchange is over; nothing
// reads it, since every path has taken its error by then.
var errReleased = errors.New("transport: exchange released")

// exchange is one call of Client.Do: its attempts, the waits between them,
// and the body it hands out. It owns a context derived from the request's,
// which its one timer cancels when a time limit breaks; releasing it stops
// the timer and cancels the context, which ends the transport's watch on the
// request.
//
// Everything an exchange keeps while its body is read is in this one
// allocation, the first attempt's copy of the request and the body included,
// and in its context's (see exchangeContext): thousands of streams may be
// held open at once.
type exchange struct {
	c       *Client
	req     *http.Request // the caller's; its context is the parent
	ctx     *exchangeContext
	start   time.Time
	attempt int

	// mu orders the timer with the attempts and the body's reads. It
	// guards timer, phase, due, watch and the body's count and end.
	mu    sync.Mutex
	timer *time.Timer
	phase phase
	due   time.Duration // since start: the end of the wait for headers, or the next low-speed tick
	watch stallWatch

	body body
	// first is the first attempt's request. Its context is the exchange's,
	// which is kept nowhere else.
	first http.Request
}

func newExchange(c *Client, req *http.Request) *exchange {
	x := &exchange{c: c, req: req, start: time.Now()}
	x.ctx = newExchangeContext(req.Context())
	x.first = *req.WithContext(x.ctx)
	if c.cfg.timeout > 0 { // the timer starts with the total timeout
		x.mu.Lock()
		x.arm(time.Since(x.start))
		x.mu.Unlock()
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
		r := x.request()
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
			retryable = errors.As(err, &se) && retryableAnswer(status, resp.Header)
			if retryable && !serverWait {
				wait, serverWait = retryInfoDelay(se.Body)
			}
		} else {
			retryable = retryableError(err)
		}
		if !retryable || !replayable || x.attempt > x.c.cfg.maxRetries || serverWait && wait > x.c.cfg.maxRetryAfter {
			return nil, x.fail(err, status)
		}
		if !serverWait {
			wait = backoff(x.attempt, x.c.cfg.initialBackoff, x.c.cfg.maxBackoff, rand.Int64N)
		}
		if dl, ok := x.deadline(); ok && time.Until(dl) < wait {
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

// request returns the request for the next attempt, carrying the exchange's
// context. The first attempt's lives in the exchange; a later attempt gets a
// new one, since net/http may still be closing the body of the last.
func (x *exchange) request() *http.Request {
	if x.attempt > 1 {
		return x.req.WithContext(x.ctx)
	}
	return &x.first
}

// deadline is the end of the exchange: the total timeout or the request
// context's deadline, whichever comes first.
func (x *exchange) deadline() (time.Time, bool) {
	dl, ok := x.req.Context().Deadline()
	if t := x.c.cfg.timeout; t > 0 && (!ok || x.start.Add(t).Before(dl)) {
		dl, ok = x.start.Add(t), true
	}
	return dl, ok
}

type readCloser struct {
	io.Reader
	io.Closer
}

// send makes one attempt and waits for its response headers, under the
// low-speed rule's bound on that wait.
func (x *exchange) send(r *http.Request) (*http.Response, error) {
	x.enter(phaseHeaders)
	resp, err := x.c.hc.Do(r)
	x.enter(phaseIdle)
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
	parent := x.req.Context()
	if perr := parent.Err(); perr != nil {
		cause := context.Cause(parent)
		if cause != perr {
			perr = fmt.Errorf("%w: %w", perr, cause)
		}
		if errors.Is(perr, context.DeadlineExceeded) {
			return &TimeoutError{Limit: LimitContext, Err: perr}
		}
		return fmt.Errorf("transport: %w", perr)
	}
	return x.ctx.causeErr()
}

// readStatusError reads and closes the body of a non-2xx answer, under the
// low-speed rule, and returns it as a *StatusError — or the error that ended
// the exchange while reading it.
func (x *exchange) readStatusError(resp *http.Response) error {
	defer resp.Body.Close()
	x.enter(phaseBody)
	body, err := io.ReadAll(io.LimitReader(watchedReader{resp.Body, x}, MaxErrorBodyBytes+1))
	x.enter(phaseIdle)
	if err != nil && x.ctx.Err() != nil {
		return x.contextError()
	}
	// Another read error leaves a partial body; the status is the news.
	return newStatusError(resp, body, err != nil, redact.FromRequest(x.req))
}

// accept wraps a 2xx response's body in the limits and hands it on.
func (x *exchange) accept(resp *http.Response) (*http.Response, error) {
	maxBytes := x.c.cfg.maxStream
	if maxBytes > 0 && resp.ContentLength > maxBytes && x.req.Method != http.MethodHead {
		resp.Body.Close()
		return nil, x.fail(&StreamTooLargeError{Max: maxBytes, ContentLength: resp.ContentLength}, resp.StatusCode)
	}
	x.emit(Event{Kind: EventResponse, StatusCode: resp.StatusCode})
	x.body = body{x: x, rc: resp.Body, status: resp.StatusCode}
	x.enter(phaseBody)
	resp.Body = &x.body
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

// release stops the timer and cancels the context, which ends the
// transport's watch on the request.
func (x *exchange) release() {
	x.mu.Lock()
	x.stopTimer()
	x.mu.Unlock()
	x.ctx.cancel(context.Canceled, errReleased)
}

func (x *exchange) emit(e Event) {
	fn, l := x.c.cfg.observer, x.c.cfg.logger
	ctx := x.req.Context()
	logging := l != nil && l.Enabled(ctx, slog.LevelDebug)
	if fn == nil && !logging {
		return
	}
	// The URL is redacted for each event rather than kept: most exchanges
	// have no observer, and an exchange's few events are not worth its bytes.
	e.Method, e.URL, e.Attempt, e.Elapsed = x.req.Method, redact.URL(x.req.URL.String()), x.attempt, time.Since(x.start)
	if e.Method == "" {
		e.Method = http.MethodGet
	}
	if fn != nil {
		fn(e)
	}
	if logging {
		l.LogAttrs(ctx, slog.LevelDebug, "transport: "+e.Kind.String(), e.attrs()...)
	}
}
