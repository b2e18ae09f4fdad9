package transport

import (
	"io"
	"sync"
)

// body is the response body [Client.Do] hands out. It enforces the stream
// cap and, through its exchange's watch, the low-speed rule as the caller
// reads, turns failures into this package's errors, and, at its end,
// releases everything the exchange holds. It lives inside its exchange.
//
// Read is for one goroutine at a time, as for any io.Reader; Close may be
// called from any goroutine, also during a Read, which it ends.
type body struct {
	x      *exchange
	rc     io.ReadCloser
	status int // the response's, for the end event

	// n and err are guarded by x.mu.
	n       int64 // bytes handed to the caller
	err     error // the first terminal error; io.EOF for a clean end
	once    sync.Once
	scratch [1]byte // for the probe past the cap, so that no byte past it lands in the caller's buffer
}

// Read reads the next bytes of the body. At the end it returns io.EOF; after
// any failure it returns that same error on every later call.
func (b *body) Read(p []byte) (int, error) {
	x := b.x
	x.mu.Lock()
	if err := b.err; err != nil || len(p) == 0 {
		x.mu.Unlock()
		return 0, err
	}
	probe := false
	if limit := x.c.cfg.maxStream; limit > 0 {
		switch remaining := limit - b.n; {
		case remaining == 0:
			// The body of exactly the cap is allowed, so only a
			// byte that really exists past it is an error.
			p, probe = b.scratch[:], true
		case int64(len(p)) > remaining:
			p = p[:remaining]
		}
	}
	x.watch.begin()
	x.mu.Unlock()

	n, err := b.rc.Read(p)

	x.mu.Lock()
	x.watch.end(n)
	if !probe {
		b.n += int64(n)
	}
	x.mu.Unlock()
	switch {
	case probe && n > 0:
		return 0, b.finish(&StreamTooLargeError{Max: x.c.cfg.maxStream, ContentLength: -1})
	case probe:
		n = 0
	}
	if err != nil {
		err = b.finish(x.bodyError(err))
	}
	return n, err
}

// Close ends the body, releasing its connection and every timer of the
// exchange. It always returns nil and may be called more than once; a Read
// after it returns [ErrBodyClosed] (or the end it had already reached).
func (b *body) Close() error {
	b.finish(ErrBodyClosed)
	return nil
}

// finish makes err the body's end unless it already has one, and returns the
// end in effect: a Read racing a Close reports the Close.
func (b *body) finish(err error) error {
	x := b.x
	b.once.Do(func() {
		x.mu.Lock()
		b.err = err
		n := b.n
		x.stopTimer()
		x.mu.Unlock()
		b.rc.Close()
		x.release()
		if err == io.EOF {
			err = nil
		}
		x.emit(Event{Kind: EventEnd, StatusCode: b.status, Bytes: n, Err: err})
	})
	x.mu.Lock()
	defer x.mu.Unlock()
	return b.err
}
