package transport

import (
	"io"
	"math"
)

// stallBuckets is how many ticks one low-speed window is cut into. The rule
// is checked at every tick over the last stallBuckets ticks, so a stall is
// seen within a window and one tick of its start, and the timer fires only
// ten times per window (three times a second at most with the default 30 s).
const stallBuckets = 10

// stallWatch is the low-speed rule's bookkeeping for the reads of one body.
// It counts bytes per tick and, so that a caller who is busy elsewhere is not
// mistaken for a silent server, marks a tick active only when a Read was in
// progress at some point in it. The rule breaks when the last stallBuckets
// ticks were all active and together saw fewer bytes than the window needs.
//
// It has no clock and no lock: the exchange's one timer calls tick every
// window/stallBuckets, and the exchange's mutex orders that with begin and
// end. The zero value is a watch that has seen nothing.
//
// Counts are kept in 32 bits, which keeps one per held stream small: a tick
// that saw 4 GiB or more is taken to meet any floor. That is exact for floors
// up to 4 GiB per window; above that, a stall right after such a burst is
// seen once the burst has left the window, one window later at most.
type stallWatch struct {
	ring    [stallBuckets]uint32 // bytes of the last finished ticks, saturated
	cur     uint32               // bytes so far in the current tick, saturated
	next    uint8                // where the next finished tick goes
	active  uint8                // finished ticks in a row that were active, at most stallBuckets
	reading bool                 // a Read is in progress
	touched bool                 // a Read was in progress at some point in this tick
}

// begin marks the start of a Read.
func (w *stallWatch) begin() { w.reading, w.touched = true, true }

// end marks the end of a Read that received n bytes.
func (w *stallWatch) end(n int) {
	w.reading = false
	w.cur = saturatingAdd(w.cur, n)
}

// tick finishes the current tick and checks the rule over the last
// stallBuckets ticks: it reports whether they were all active and saw fewer
// than need bytes, and how many they saw.
func (w *stallWatch) tick(need float64) (bytes int64, stalled bool) {
	w.ring[w.next] = w.cur
	w.next = (w.next + 1) % stallBuckets
	if w.touched || w.reading {
		w.active = min(w.active+1, stallBuckets)
	} else {
		w.active = 0
	}
	w.cur, w.touched = 0, w.reading
	if w.active < stallBuckets {
		return 0, false
	}
	var sum int64
	for _, b := range w.ring {
		if b == math.MaxUint32 {
			return 0, false
		}
		sum += int64(b)
	}
	return sum, float64(sum) < need
}

func saturatingAdd(c uint32, n int) uint32 {
	if uint64(n) >= uint64(math.MaxUint32-c) {
		return math.MaxUint32
	}
	return c + uint32(n)
}

// watchedReader reports each Read of r to the exchange's low-speed watch, for
// bodies read inside the Client (error bodies) rather than by the caller.
type watchedReader struct {
	r io.Reader
	x *exchange
}

func (wr watchedReader) Read(p []byte) (int, error) {
	wr.x.mu.Lock()
	wr.x.watch.begin()
	wr.x.mu.Unlock()
	n, err := wr.r.Read(p)
	wr.x.mu.Lock()
	wr.x.watch.end(n)
	wr.x.mu.Unlock()
	return n, err
}
