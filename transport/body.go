package transport

import (
	"io"
	"sync"
	"sync/atomic"
)

// body is the response body [Client.Do] hands out. It enforces the stream
// cap and the low-speed rule as the caller reads, turns failures into this
// package's errors, and, at its end, releases everything the exchange holds.
//
// Read is for one goroutine at a time, as for any io.Reader; Close may be
// called from any goroutine, also during a Read, which it ends.
type body struct {
	rc    io.ReadCloser
	max   int64 // the cap; 0 means none
	watch *stallWatch
	// mapErr turns an error from rc into the one the caller sees.
	mapErr func(error) error
	// onEnd runs once, when the body ends for any reason, with the bytes
	// handed on and how it ended (nil for a clean end).
	onEnd func(n int64, err error)

	n       atomic.Int64 // bytes handed to the caller
	once    sync.Once
	mu      sync.Mutex
	err     error   // the first terminal error; io.EOF for a clean end
	scratch [1]byte // for the probe past the cap, so that no byte past it lands in the caller's buffer
}

// Read reads the next bytes of the body. At the end it returns io.EOF; after
// any failure it returns that same error on every later call.
func (b *body) Read(p []byte) (int, error) {
	if err := b.terminal(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.max > 0 {
		remaining := b.max - b.n.Load()
		if remaining == 0 {
			return 0, b.probe()
		}
		if int64(len(p)) > remaining {
			p = p[:remaining]
		}
	}
	b.watch.begin()
	n, err := b.rc.Read(p)
	b.watch.end(n)
	b.n.Add(int64(n))
	if err != nil {
		err = b.finish(b.mapErr(err))
	}
	return n, err
}

// probe looks for one more byte once the cap is reached: the body of exactly
// the cap is allowed, so only a byte that really exists past it is an error.
func (b *body) probe() error {
	b.watch.begin()
	n, err := b.rc.Read(b.scratch[:])
	b.watch.end(n)
	switch {
	case n > 0:
		return b.finish(&StreamTooLargeError{Max: b.max, ContentLength: -1})
	case err != nil:
		return b.finish(b.mapErr(err))
	}
	return nil
}

// Close ends the body, releasing its connection and every timer of the
// exchange. It always returns nil and may be called more than once; a Read
// after it returns [ErrBodyClosed] (or the end it had already reached).
func (b *body) Close() error {
	b.finish(ErrBodyClosed)
	return nil
}

func (b *body) terminal() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// finish makes err the body's end unless it already has one, and returns the
// end in effect: a Read racing a Close reports the Close.
func (b *body) finish(err error) error {
	b.once.Do(func() {
		b.mu.Lock()
		b.err = err
		b.mu.Unlock()
		b.watch.stop()
		b.rc.Close()
		reported := err
		if err == io.EOF {
			reported = nil
		}
		b.onEnd(b.n.Load(), reported)
	})
	return b.terminal()
}
