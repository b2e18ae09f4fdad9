package sse

import (
	"io"
	"time"
)

// Reader reads events from an io.Reader: a pull parser. It reads only as
// much as it needs to return the next event, and in steady state Next does
// not allocate (a new event type or ID string excepted).
//
// Memory: while its source trickles (reads come back short, as they do from
// a live stream between events) a Reader keeps a 512-byte read buffer;
// while reads come back full it reads into a 16 KiB buffer shared through a
// pool, and hands it back when a read comes back short again, so a stream
// waiting for its next event never holds it. A line longer than the buffer
// grows it, but never past the size limit (see [WithMaxEventSize]) plus
// 512 bytes; the data of a multi-line event never grows past the limit.
// Once Next has returned io.EOF or an error, the Reader holds no buffer.
//
// A Reader is not safe for concurrent use: call its methods from one
// goroutine at a time. It starts no goroutines and does not close the
// io.Reader.
type Reader struct {
	src   io.Reader
	buf   []byte // the read buffer: small, a pooled large one, or grown
	start int    // the first byte not yet interpreted
	end   int    // the end of the bytes read
	// The bytes in [start, vEnd) are known to be well-formed UTF-8. When
	// bad >= start, an ill-formed sequence starts at bad (and vEnd == bad).
	// Checking whole reads at once, rather than line by line, keeps the
	// check on the fast path for long runs of ASCII.
	vEnd, bad int
	split     splitter
	small     *[smallBufSize]byte // this Reader's small buffer, once it has read
	// skipLF: the last line ended with a CR that was the last byte read,
	// so an LF that comes first in the next read belongs to that line end.
	skipLF bool
	full   bool  // the last read filled all the room it was given
	srcErr error // what src returned, reported once the buffer is used up
	err    error // the first error Next returned; it sticks
	st     stream
}

// NewReader returns a Reader that reads the event stream from r, configured
// by opts. It does not read from r, nor allocate a buffer; the first call to
// [Reader.Next] does. An invalid option is reported by the first Next.
func NewReader(r io.Reader, opts ...Option) *Reader {
	rd := &Reader{src: r, bad: -1} // a nil r fails in fill, as the zero Reader does
	rd.err = rd.st.init(opts)
	return rd
}

// Next returns the next event of the stream.
//
// The event's Data aliases the Reader's buffers: it is valid until the next
// call to Next or [Reader.NextRef], which may overwrite it, or hand the
// bytes to another Reader (large read buffers are pooled). Use
// [Event.Clone] to keep it. Type and ID are ordinary strings.
//
// At the end of the stream Next returns a zero Event and io.EOF: when r
// reports io.EOF (an unterminated final event is then discarded, as the
// standard says), or when the done sentinel arrives ([Reader.Done] then
// reports true). Every event completely received before r fails is returned
// before r's error, which Next then returns unwrapped, so errors.Is works
// on it (a cancelled context, say). Other errors: an [*EventSizeError]
// (errors.Is [ErrEventTooLarge]) past [WithMaxEventSize]; the error of a
// [WithUnknownField] callback; an [*OptionError] (errors.Is
// [ErrInvalidOption]) for a bad option; [ErrNoSource] for a Reader with
// no io.Reader (the zero Reader); io.ErrNoProgress when r returns no
// bytes and no error 100 times in a row; [ErrBadReadCount] when r reports an
// impossible count. The first error or io.EOF sticks: every later call
// returns it again and reads nothing.
func (r *Reader) Next() (Event, error) {
	// Small enough to be inlined. After an error r.st.ev is the zero Event
	// (stop clears it), so it needs no branch.
	err := r.next()
	return r.st.ev, err
}

// NextRef is [Reader.Next] without the copy of the Event: it returns a
// pointer to an Event that the Reader owns, holding what Next would have
// returned. A caller that handles millions of events, such as a bridge that
// decodes each one's JSON, saves the copy of its fields per event.
//
// The pointer is valid until the next call to Next or NextRef, which
// overwrites the Event it points to; the Event's Data lives exactly as long
// as one from Next. Changing the Event changes nothing in the Reader. At the
// end of the stream and on error, NextRef returns nil and the error Next
// would have returned (io.EOF at the end); it sticks in the same way.
func (r *Reader) NextRef() (*Event, error) {
	if err := r.next(); err != nil {
		return nil, err
	}
	return &r.st.ev, nil
}

// next reads up to the end of the next event, which it leaves in r.st.ev,
// or returns the error that ends the stream. It alternates between parse,
// which interprets the bytes buffered, and fill, which reads more; so while
// a Reader waits in Read, only next's small frame and fill's are on the
// stack under it, not parse's.
func (r *Reader) next() error {
	for r.err == nil {
		more, err := r.parse()
		if err == nil && !more {
			return nil
		}
		if err == nil {
			err = r.fill()
		}
		if err != nil {
			r.stop(err)
		}
	}
	return r.err
}

// parse interprets the lines buffered up to the end of the next event,
// which it leaves in r.st.ev. It reports more when the buffer holds no
// complete line, or the error that ends the stream.
func (r *Reader) parse() (more bool, err error) {
	st := &r.st
	for {
		if r.skipLF {
			if r.start == r.end {
				return true, nil
			}
			r.skipLF = false
			if r.buf[r.start] == '\n' {
				r.start++
			}
		}
		// A blank line after a line that did not dispatch by itself (see
		// below) needs no search.
		if n := blankAt(r.buf, r.start, r.end); n > 0 {
			r.start += n
			st.started = true
			ok, err := st.dispatch()
			if err != nil || ok {
				return false, err
			}
			continue
		}
		s := r.start
		end, rest, crLast := r.split.next(r.buf, s, r.end)
		if end < 0 {
			return true, nil
		}
		if end > r.vEnd {
			r.validate(s)
		}
		// Nearly every event is one "data:" line and a blank line: when
		// both are here, nothing is pending and the line is well-formed
		// and within the limit, dispatch its value at once, without going
		// through the general field handling or round the loop for the
		// blank line.
		if end <= r.vEnd && !st.hasData && st.started && end-s <= st.cfg.max &&
			end-s >= len("data:") && string(r.buf[s:s+len("data:")]) == "data:" {
			if n := blankAt(r.buf, rest, r.end); n > 0 {
				v := r.buf[s+len("data:") : end]
				if len(v) > 0 && v[0] == ' ' {
					v = v[1:]
				}
				r.start = rest + n
				return false, st.dispatchValue(v)
			}
		}
		r.start, r.skipLF = rest, crLast
		bad := -1
		if end > r.vEnd {
			// The line holds an ill-formed sequence, at r.bad. Checking
			// resumes after the line.
			bad = r.bad - s
			r.vEnd, r.bad = rest, -1
		}
		ok, err := st.line(r.buf[s:end], bad, true)
		if err != nil || ok {
			return false, err
		}
	}
}

// stop records the error that ends the stream and releases the buffers: no
// event is valid after it.
func (r *Reader) stop(err error) {
	r.err = err
	r.release()
}

// blankAt returns the length of the line end at b[i] when the line that
// starts there, in b[:e], is blank: 1 for LF, or for a CR with something
// other than LF after it; 2 for CRLF. It returns 0 when the line is not
// blank, or is a CR that is the last byte read (an LF may follow in the
// next read; the line end search handles that).
func blankAt(b []byte, i, e int) int {
	if i >= e {
		return 0
	}
	switch b[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 == e {
			return 0
		}
		if b[i+1] == '\n' {
			return 2
		}
		return 1
	}
	return 0
}

// validate extends the checked region [s, vEnd) over the bytes read so far,
// up to the first ill-formed sequence, which it records in bad. A sequence
// cut off by the end of the bytes read is left unchecked: the next read may
// complete it.
func (r *Reader) validate(s int) {
	if r.bad >= s {
		return
	}
	from := max(r.vEnd, s)
	r.vEnd = from + validPrefix(r.buf[from:r.end])
	if r.vEnd < r.end && !incomplete(r.buf[r.vEnd:r.end]) {
		r.bad = r.vEnd
	}
}

// Done reports whether the done sentinel ended the stream (see
// [WithDoneSentinel]). It is false while events remain and after any other
// end, such as io.EOF from the underlying reader.
func (r *Reader) Done() bool { return r.st.done }

// MaxEventSize returns the event size limit, in bytes, that r applies:
// the last valid [WithMaxEventSize] among its options (0 meaning the
// default), else [DefaultMaxEventSize]. An invalid option is left out of
// it; Next reports that option's error.
func (r *Reader) MaxEventSize() int { return r.st.cfg.max }

// LastEventID returns the stream's last event ID: the value of the most
// recent "id" field, taken over at each blank line, as a reconnecting client
// would send it in Last-Event-ID. It is "" until an ID is set and after an
// empty "id" field resets it; an "id" whose value contains NUL is ignored.
func (r *Reader) LastEventID() string { return r.st.lastID }

// Retry returns the reconnection time the stream asked for in its most recent
// valid "retry" field (ASCII digits only, in milliseconds), and true; or 0 and
// false if there was none. A retry field takes effect when its line is read,
// not at the next dispatch. A value too large for a time.Duration (more than
// 9,223,372,036,854 ms, about 292 years) is clamped to that many
// milliseconds rather than ignored or wrapped around.
func (r *Reader) Retry() (time.Duration, bool) { return r.st.retry, r.st.hasRetry }
