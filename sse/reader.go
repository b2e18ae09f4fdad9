package sse

import (
	"io"
	"time"
)

// minBufSize is the Reader's first buffer size; it doubles when a line does
// not fit, up to the size limit plus minBufSize.
const minBufSize = 4 << 10

// maxEmptyReads is how many reads in a row may return no bytes and no error
// before Next gives up with io.ErrNoProgress.
const maxEmptyReads = 100

// Reader reads events from an io.Reader: a pull parser. It reads only as
// much as it needs to return the next event, into one buffer that grows with
// the longest line, so in steady state Next does not allocate (a new event
// type or ID string excepted). Memory is bounded by the size limit (see
// [WithMaxEventSize]): the read buffer never grows past the limit plus 4 KiB,
// and the data of a multi-line event past the limit.
//
// A Reader is not safe for concurrent use: call its methods from one
// goroutine at a time. It starts no goroutines and does not close the
// io.Reader.
type Reader struct {
	src   io.Reader
	st    stream
	buf   []byte
	start int // the first byte not yet interpreted
	end   int // the end of the bytes read
	split splitter
	// The bytes in [start, vEnd) are known to be well-formed UTF-8. When
	// bad >= start, an ill-formed sequence starts at bad (and vEnd == bad).
	// Checking whole reads at once, rather than line by line, keeps the
	// check on the fast path for long runs of ASCII.
	vEnd, bad int
	// skipLF: the last line ended with a CR that was the last byte read,
	// so an LF that comes first in the next read belongs to that line end.
	skipLF bool
	srcErr error // what src returned, reported once the buffer is used up
	err    error // the first error Next returned; it sticks
}

// NewReader returns a Reader that reads the event stream from r, configured
// by opts. It does not read from r; the first call to [Reader.Next] does. An
// invalid option is reported by the first Next.
func NewReader(r io.Reader, opts ...Option) *Reader {
	rd := &Reader{src: r, st: newStream(opts), bad: -1}
	rd.err = rd.st.cfg.err
	return rd
}

// Next returns the next event of the stream.
//
// The event's Data aliases the Reader's buffers: it is valid until the next
// call to Next, which may overwrite it. Use [Event.Clone] to keep it. Type
// and ID are ordinary strings.
//
// At the end of the stream Next returns a zero Event and io.EOF: when r
// reports io.EOF (an unterminated final event is then discarded, as the
// standard says), or when the done sentinel arrives ([Reader.Done] then
// reports true). Every event completely received before r fails is returned
// before r's error, which Next then returns unwrapped, so errors.Is works
// on it (a cancelled context, say). Other errors: an [*EventSizeError]
// (errors.Is [ErrEventTooLarge]) past [WithMaxEventSize]; the error of a
// [WithUnknownField] callback; an [*OptionError] (errors.Is
// [ErrInvalidOption]) for a bad option; io.ErrNoProgress when r returns no
// bytes and no error 100 times in a row; [ErrBadReadCount] when r reports an
// impossible count. The first error or io.EOF sticks: every later call
// returns it again and reads nothing.
func (r *Reader) Next() (ev Event, err error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, bad, ok := r.line()
		if !ok {
			if err := r.more(); err != nil {
				r.err = err
				return Event{}, err
			}
			continue
		}
		ok, err := r.st.line(line, bad, true)
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if ok {
			r.st.event(&ev)
			return ev, nil
		}
		// Nearly every event is one data line and a blank line: dispatch
		// at once rather than going round for the blank line. A line end
		// was just passed and the data is within the limit, so this is
		// what st.line would do with it.
		if n := r.blankAt(); n > 0 {
			r.start += n
			ok, err := r.st.dispatch()
			if err != nil {
				r.err = err
				return Event{}, err
			}
			if ok {
				r.st.event(&ev)
				return ev, nil
			}
		}
	}
}

// more is called when the buffer holds no complete line: it applies the
// size limit to the partial line, reports the end of src, or reads more.
func (r *Reader) more() error {
	if err := r.st.checkPartial(r.buf[r.start:r.end]); err != nil {
		return err
	}
	if r.srcErr != nil {
		return r.srcErr
	}
	r.fill()
	return nil
}

// line returns the next complete line in the buffer, without its line end,
// and the index in it of its first ill-formed UTF-8 sequence, or -1.
func (r *Reader) line() (line []byte, bad int, ok bool) {
	if r.skipLF {
		if r.start == r.end {
			return nil, -1, false
		}
		r.skipLF = false
		if r.buf[r.start] == '\n' {
			r.start++
		}
	}
	// A blank line right after a line end, the end of nearly every event,
	// needs no search.
	if n := r.blankAt(); n > 0 {
		r.start += n
		return r.buf[r.start:r.start], -1, true
	}
	end, rest, crLast := r.split.next(r.buf, r.start, r.end)
	if end < 0 {
		return nil, -1, false
	}
	s := r.start
	r.start, r.skipLF = rest, crLast
	if end > r.vEnd {
		r.validate(s)
	}
	if end <= r.vEnd {
		return r.buf[s:end], -1, true
	}
	// The line holds an ill-formed sequence, at r.bad. Checking resumes
	// after the line.
	bad = r.bad - s
	r.vEnd, r.bad = rest, -1
	return r.buf[s:end], bad, true
}

// blankAt returns the length of the line end at r.start when the line
// there is blank: 1 for LF, or for a CR with something other than LF after
// it; 2 for CRLF. It returns 0 when the line is not blank, or is a CR that
// is the last byte read (an LF may follow in the next read; line handles
// that).
func (r *Reader) blankAt() int {
	if r.start >= r.end {
		return 0
	}
	switch r.buf[r.start] {
	case '\n':
		return 1
	case '\r':
		if r.start+1 == r.end {
			return 0
		}
		if r.buf[r.start+1] == '\n' {
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

// fill reads once more from src, making room first when the buffer is full:
// by moving the unread bytes to the front or, when they fill more than half
// the buffer, by doubling it. So every move is paid for by at least half a
// buffer of new input, and reading stays linear in the input however small
// the reads.
func (r *Reader) fill() {
	if r.end == len(r.buf) {
		// The pending data may point into the bytes about to move.
		r.st.unalias()
		if !r.grow() && r.start > 0 {
			copy(r.buf, r.buf[r.start:r.end])
			r.shift(r.start)
		}
	}
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			r.srcErr = ErrBadReadCount
			return
		}
		r.end += n
		if err != nil {
			r.srcErr = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.srcErr = io.ErrNoProgress
}

// grow replaces the buffer by one twice as large when the unread bytes fill
// more than half of it, and reports whether it did. The new size is at least
// minBufSize and at most the size limit plus minBufSize: the partial line
// never exceeds the limit (checkPartial runs before every read), so that
// always leaves room.
func (r *Reader) grow() bool {
	if r.end-r.start <= len(r.buf)/2 && len(r.buf) > 0 {
		return false
	}
	n := max(2*len(r.buf), minBufSize)
	if limit := r.st.cfg.max; limit <= maxInt-minBufSize && n > limit+minBufSize {
		n = limit + minBufSize
	}
	if n <= len(r.buf) {
		return false
	}
	buf := make([]byte, n)
	copy(buf, r.buf[r.start:r.end])
	r.shift(r.start)
	r.buf = buf
	return true
}

// shift records that the unread bytes moved d bytes to the buffer's start.
func (r *Reader) shift(d int) {
	r.split.shift(d)
	r.start -= d
	r.end -= d
	r.vEnd -= d
	if r.bad >= 0 {
		r.bad -= d
	}
}

const maxInt = int(^uint(0) >> 1)

// Done reports whether the done sentinel ended the stream (see
// [WithDoneSentinel]). It is false while events remain and after any other
// end, such as io.EOF from the underlying reader.
func (r *Reader) Done() bool { return r.st.done }

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
