package transport

import (
	"io"
	"sync"
	"time"
)

// stallBuckets is how many ticks one low-speed window is cut into. The rule
// is checked at every tick over the last stallBuckets ticks, so a stall is
// seen within a window and one tick of its start, and the timer fires only
// ten times per window (three times a second at most with the default 30 s).
const stallBuckets = 10

// stallWatch enforces the low-speed rule on the reads of one body. It counts
// bytes per tick and, so that a caller who is busy elsewhere is not mistaken
// for a silent server, marks a tick active only when a Read was in progress
// at some point in it. The rule breaks when the last stallBuckets ticks were
// all active and together saw fewer bytes than the window needs.
//
// A nil *stallWatch is valid and watches nothing. begin/end are called by the
// reading goroutine, stop by any goroutine, and the tick by the timer; mu
// orders them all.
type stallWatch struct {
	mu      sync.Mutex
	timer   *time.Timer
	tick    time.Duration
	bps     int64
	window  time.Duration
	need    float64 // bytes a full window must see
	ring    [stallBuckets]stallBucket
	next    int   // where the next finished tick goes
	filled  int   // finished ticks in ring, at most stallBuckets
	cur     int64 // bytes so far in the current tick
	reading bool  // a Read is in progress
	touched bool  // a Read was in progress at some point in this tick
	stopped bool
	onStall func(*StalledError)
}

type stallBucket struct {
	bytes  int64
	active bool
}

// newStallWatch starts watching; onStall is called at most once, from the
// timer's goroutine, with no lock held. It returns nil when the rule is off.
func newStallWatch(bps int64, window time.Duration, onStall func(*StalledError)) *stallWatch {
	if bps <= 0 || window <= 0 {
		return nil
	}
	w := &stallWatch{
		tick:    max(window/stallBuckets, 1),
		bps:     bps,
		window:  window,
		need:    float64(bps) * window.Seconds(),
		onStall: onStall,
	}
	w.mu.Lock()
	w.timer = time.AfterFunc(w.tick, w.onTick)
	w.mu.Unlock()
	return w
}

// begin marks the start of a Read.
func (w *stallWatch) begin() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.reading, w.touched = true, true
	w.mu.Unlock()
}

// end marks the end of a Read that received n bytes.
func (w *stallWatch) end(n int) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.reading = false
	w.cur += int64(n)
	w.mu.Unlock()
}

// stop ends the watch; after it returns no tick will call onStall. A tick
// already past its lock may still be finishing, which takes microseconds and
// touches nothing of the caller's.
func (w *stallWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.stopped = true
	w.timer.Stop()
	w.mu.Unlock()
}

func (w *stallWatch) onTick() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	w.ring[w.next] = stallBucket{bytes: w.cur, active: w.touched || w.reading}
	w.next = (w.next + 1) % stallBuckets
	w.filled = min(w.filled+1, stallBuckets)
	w.cur, w.touched = 0, w.reading
	if stall := w.check(); stall != nil {
		w.stopped = true
		w.mu.Unlock()
		w.onStall(stall)
		return
	}
	w.timer.Reset(w.tick)
	w.mu.Unlock()
}

// check returns the breach, if the last full window shows one. mu is held.
func (w *stallWatch) check() *StalledError {
	if w.filled < stallBuckets {
		return nil
	}
	var sum int64
	for _, b := range w.ring {
		if !b.active {
			return nil
		}
		sum += b.bytes
	}
	if float64(sum) >= w.need {
		return nil
	}
	return &StalledError{BytesPerSecond: w.bps, Window: w.window, Bytes: sum}
}

// watchedReader reports each Read of r to w, for bodies read inside the
// Client (error bodies) rather than by the caller.
type watchedReader struct {
	r io.Reader
	w *stallWatch
}

func (wr watchedReader) Read(p []byte) (int, error) {
	wr.w.begin()
	n, err := wr.r.Read(p)
	wr.w.end(n)
	return n, err
}
