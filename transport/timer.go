package transport

import (
	"context"
	"math"
	"time"
)

// phase is what an exchange's timer watches besides the total timeout.
type phase uint8

const (
	phaseIdle    phase = iota // between attempts: the total timeout alone
	phaseHeaders              // an attempt waits for its response headers
	phaseBody                 // a body is being read: the low-speed rule ticks
	phaseDone                 // the exchange is over; the timer never fires again
)

// An exchange has one timer for all of its time limits: the total timeout,
// the low-speed rule's bound on the wait for headers, and the rule's ticks
// while a body is read. It points at whichever of them comes first. A limit
// that breaks cancels the exchange's context with its error as the cause,
// which ends what the exchange is doing, in net/http or in a Read.
//
// The timer is made at the first arm, so an exchange with no limit on has
// none. The methods below that say so need x.mu held; the timer's callback
// may run at any time, and takes it.

// enter switches the timer to watch p, starting now: the wait for headers
// and the first tick of a body are due a window or a tick from now. A body
// starts with a fresh low-speed watch.
func (x *exchange) enter(p phase) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.phase == phaseDone {
		return
	}
	x.phase = p
	if p == phaseIdle || !x.lowSpeedOn() {
		// A fire due for the last phase finds nothing to do and aims
		// the timer at the total timeout.
		return
	}
	now := time.Since(x.start)
	x.due = later(now, x.c.cfg.lowSpeedWindow)
	if p == phaseBody {
		x.watch = stallWatch{}
		x.due = later(now, x.stallTick())
	}
	x.arm(now)
}

// later returns now+d, saturated rather than wrapped into the past for a
// window near the largest Duration.
func later(now, d time.Duration) time.Duration {
	if d > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + d
}

// arm points the timer at the first limit still ahead of now, if any. mu is
// held.
func (x *exchange) arm(now time.Duration) {
	next, ok := x.nextLimit()
	if !ok {
		if x.timer != nil {
			x.timer.Stop()
		}
		return
	}
	d := max(next-now, 0)
	if x.timer == nil {
		x.timer = time.AfterFunc(d, x.onTimer)
		return
	}
	x.timer.Reset(d)
}

// nextLimit returns when, measured from the start, the next limit falls
// due. mu is held.
func (x *exchange) nextLimit() (time.Duration, bool) {
	next, ok := x.c.cfg.timeout, x.c.cfg.timeout > 0
	if (x.phase == phaseHeaders || x.phase == phaseBody) && x.lowSpeedOn() && (!ok || x.due < next) {
		next, ok = x.due, true
	}
	return next, ok
}

// onTimer runs on the timer's goroutine. A fire may come late, or early for
// a phase that has changed since the timer was aimed (a Reset does not wait
// for a callback already running); so it acts only on what is due by the
// clock, and aims the timer again.
func (x *exchange) onTimer() {
	x.mu.Lock()
	now := time.Since(x.start)
	cause := x.expired(now)
	if cause != nil {
		x.phase = phaseDone
	} else if x.phase != phaseDone {
		x.arm(now)
	}
	x.mu.Unlock()
	if cause != nil {
		x.ctx.cancel(context.Canceled, cause)
	}
}

// expired returns the error of a limit broken by now, and counts a
// low-speed tick that has come due. mu is held.
func (x *exchange) expired(now time.Duration) error {
	cfg := &x.c.cfg
	switch {
	case x.phase == phaseDone:
		return nil
	case cfg.timeout > 0 && now >= cfg.timeout:
		return &TimeoutError{Limit: LimitTotal, After: cfg.timeout}
	case !x.lowSpeedOn() || now < x.due:
		return nil
	case x.phase == phaseHeaders:
		return &StalledError{BytesPerSecond: cfg.lowSpeedBytes, Window: cfg.lowSpeedWindow, AwaitingHeaders: true}
	case x.phase == phaseBody:
		x.due = later(now, x.stallTick())
		need := float64(cfg.lowSpeedBytes) * cfg.lowSpeedWindow.Seconds()
		if n, stalled := x.watch.tick(need); stalled {
			return &StalledError{BytesPerSecond: cfg.lowSpeedBytes, Window: cfg.lowSpeedWindow, Bytes: n}
		}
	}
	return nil
}

// stopTimer ends the timer for good: after it returns, no fire acts. A fire
// already past its lock may still be finishing, which touches nothing of the
// caller's. mu is held.
func (x *exchange) stopTimer() {
	x.phase = phaseDone
	if x.timer != nil {
		x.timer.Stop()
	}
}

func (x *exchange) lowSpeedOn() bool {
	return x.c.cfg.lowSpeedBytes > 0 && x.c.cfg.lowSpeedWindow > 0
}

// stallTick is the length of one low-speed tick.
func (x *exchange) stallTick() time.Duration {
	return max(x.c.cfg.lowSpeedWindow/stallBuckets, 1)
}
