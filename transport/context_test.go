package transport

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

var errTestCause = errors.New("test cause")

func isDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// TestExchangeContextCancel: cancelled by the exchange, the context is done
// with context.Canceled and the exchange's cause, ends what was derived
// from it (as net/http derives a context from each request's), leaves the
// caller's context alone, and stops watching it.
func TestExchangeContextCancel(t *testing.T) {
	parent, cancelParent := context.WithCancelCause(context.Background())
	defer cancelParent(nil)
	c := newExchangeContext(parent)
	child, cancelChild := context.WithCancel(c)
	defer cancelChild()
	if c.Err() != nil || isDone(c) || isDone(child) {
		t.Fatal("done before any cancel")
	}
	c.cancel(context.Canceled, errTestCause)
	if c.Err() != context.Canceled || c.causeErr() != errTestCause || !isDone(c) {
		t.Errorf("after cancel: Err %v, cause %v, done %v", c.Err(), c.causeErr(), isDone(c))
	}
	if !isDone(child) || child.Err() != context.Canceled {
		t.Errorf("the derived context: done %v, Err %v", isDone(child), child.Err())
	}
	if parent.Err() != nil {
		t.Error("cancelling the exchange's context cancelled the caller's")
	}
	cancelParent(errors.New("later"))
	if c.causeErr() != errTestCause {
		t.Errorf("the caller's later cancel changed the cause to %v", c.causeErr())
	}
	c.cancel(context.Canceled, errors.New("again"))
	if c.causeErr() != errTestCause {
		t.Error("a second cancel changed the cause")
	}
}

// TestExchangeContextParent: the caller's cancellation reaches the context
// with the caller's error and cause, and through it what was derived from
// it; a deadline and values are the caller's.
func TestExchangeContextParent(t *testing.T) {
	type key struct{}
	dl := time.Now().Add(time.Hour)
	base, cancelBase := context.WithDeadline(context.WithValue(context.Background(), key{}, "v"), dl)
	defer cancelBase()
	parent, cancelParent := context.WithCancelCause(base)
	c := newExchangeContext(parent)
	child, cancelChild := context.WithCancel(c)
	defer cancelChild()
	if got, ok := c.Deadline(); !ok || !got.Equal(dl) {
		t.Errorf("Deadline %v %v, want %v", got, ok, dl)
	}
	if c.Value(key{}) != "v" {
		t.Error("the caller's value is lost")
	}
	cancelParent(errTestCause)
	<-c.Done()
	<-child.Done()
	if c.Err() != context.Canceled || c.causeErr() != errTestCause {
		t.Errorf("Err %v, cause %v", c.Err(), c.causeErr())
	}

	// Already done when made: done at once, with the caller's cause.
	c = newExchangeContext(parent)
	if !isDone(c) || c.causeErr() != errTestCause {
		t.Errorf("made under a done context: done %v, cause %v", isDone(c), c.causeErr())
	}
	// Under a context that is never done, no watch at all.
	if c := newExchangeContext(context.Background()); c.stop != nil || c.Done() == nil {
		t.Error("a context under Background watches it, or has no Done channel")
	}
}

// TestExchangeContextAfterFunc: what AfterFunc registers runs once, at the
// cancel, unless stopped first; stop reports which happened; registered on
// a done context, it runs anyway.
func TestExchangeContextAfterFunc(t *testing.T) {
	c := newExchangeContext(context.Background())
	ran := make([]int, 3)
	stops := make([]func() bool, 3)
	for i := range ran {
		stops[i] = c.AfterFunc(func() { ran[i]++ })
	}
	if !stops[1]() || stops[1]() {
		t.Error("stop before the cancel: want true, then false")
	}
	c.cancel(context.Canceled, errTestCause)
	if ran[0] != 1 || ran[1] != 0 || ran[2] != 1 {
		t.Errorf("runs after cancel: %v, want [1 0 1]", ran)
	}
	if stops[0]() {
		t.Error("stop after the run reports true")
	}
	c.cancel(context.Canceled, errTestCause)
	if ran[0] != 1 || ran[2] != 1 {
		t.Errorf("a second cancel ran them again: %v", ran)
	}
	late := make(chan struct{})
	if c.AfterFunc(func() { close(late) })() {
		t.Error("stop of a func registered after the cancel reports true")
	}
	<-late

	// A derived context that ends first unregisters itself.
	c = newExchangeContext(context.Background())
	_, cancelChild := context.WithCancel(c)
	cancelChild()
	c.mu.Lock()
	live := 0
	for _, f := range c.afters {
		if f != nil {
			live++
		}
	}
	n := len(c.afters)
	c.mu.Unlock()
	if n != 1 || live != 0 {
		t.Errorf("after the derived context ended: %d registered, %d live; want 1 and 0", n, live)
	}
}

// TestExchangeContextNoGoroutine: holding the context under a cancellable
// caller's context, with a context derived from it, starts no goroutine:
// thousands of streams may be open at once, each with one.
func TestExchangeContextNoGoroutine(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := runtime.NumGoroutine()
	cs := make([]*exchangeContext, 100)
	for i := range cs {
		cs[i] = newExchangeContext(parent)
		_, cancelChild := context.WithCancel(cs[i])
		defer cancelChild()
	}
	if n := runtime.NumGoroutine() - before; n > 0 {
		t.Errorf("%d goroutines for 100 open exchange contexts", n)
	}
	for _, c := range cs {
		c.cancel(context.Canceled, errReleased)
	}
}
