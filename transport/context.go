package transport

import (
	"context"
	"sync"
	"time"
)

// exchangeContext is the context of an exchange's requests: done when the
// caller's context is done, or when the exchange cancels it because a
// time limit broke or the exchange is over.
//
// It stands in for context.WithCancelCause for one reason. net/http
// derives a context from every request's and keeps it for as long as the
// body is read; under a context of the context package's own kind, that
// child registers in a map the parent allocates, a few hundred bytes held
// by every open stream. Under any other context that has an AfterFunc
// method, the child registers through it, which here costs one closure.
//
// context.Cause of it reports the caller's context's cause, not the
// exchange's: the exchange reads its own cause with causeErr.
type exchangeContext struct {
	parent context.Context
	mu     sync.Mutex
	done   chan struct{} // made by the first Done or by cancel
	err    error         // nil until done
	cause  error
	afters []func()    // registered by AfterFunc; a stopped one is nil
	stop   func() bool // unregisters parentDone; nil once cancelled
}

// closedChan is the Done channel of a context cancelled before anyone
// asked for one.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func newExchangeContext(parent context.Context) *exchangeContext {
	c := &exchangeContext{parent: parent}
	if parent.Done() == nil {
		return c // never cancelled: nothing to watch
	}
	if err := parent.Err(); err != nil {
		c.err, c.cause, c.done = err, context.Cause(parent), closedChan
		return c
	}
	// The caller may cancel as soon as AfterFunc registers, and cancel
	// reads stop on another goroutine: write it under the lock, and only
	// while there is still something to stop.
	stop := context.AfterFunc(parent, c.parentDone)
	c.mu.Lock()
	if c.err == nil {
		c.stop = stop
	}
	c.mu.Unlock()
	return c
}

func (c *exchangeContext) parentDone() {
	c.cancel(c.parent.Err(), context.Cause(c.parent))
}

// cancel makes the context done with err (context.Canceled, or the
// caller's context's error) and cause, once, and runs what AfterFunc
// registered, in order, on this goroutine: the children it ends lock only
// themselves, as with the context package's own cancellation.
func (c *exchangeContext) cancel(err, cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	if cause == nil {
		cause = err
	}
	c.err, c.cause = err, cause
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	afters, stop := c.afters, c.stop
	c.afters, c.stop = nil, nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, f := range afters {
		if f != nil {
			f()
		}
	}
}

// causeErr is the cause the context was cancelled with, nil before.
func (c *exchangeContext) causeErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

func (c *exchangeContext) Deadline() (time.Time, bool) { return c.parent.Deadline() }

func (c *exchangeContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	return c.done
}

func (c *exchangeContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *exchangeContext) Value(key any) any { return c.parent.Value(key) }

// AfterFunc arranges for f to run once the context is done, as
// context.AfterFunc does; the returned stop unregisters it and reports
// whether it did so before f ran. Called when the context is already
// done, it runs f on a goroutine of its own: the context package calls it
// with a lock held that f takes.
func (c *exchangeContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	i := len(c.afters)
	c.afters = append(c.afters, f)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err != nil || c.afters[i] == nil {
			return false
		}
		c.afters[i] = nil
		return true
	}
}
