package sse

import (
	"io"
	"sync"
)

// The Reader's read buffer follows how the source delivers. An LLM stream
// spends most of its life blocked in Read while the model works, then hands
// over one short event; a server holding thousands of such streams pays for
// every byte each one keeps while it waits. So a Reader reads into a small
// buffer of its own while reads come back short (the source had less ready
// than there was room for), and into a large pooled one while reads fill all
// the room they are given (the source has more ready: a recorded stream, a
// burst). It goes back to the small buffer, returning the large one to the
// pool, as soon as a read comes back short again, before the read that may
// block. A line longer than the buffer grows it by doubling, up to the size
// limit plus smallBufSize, as bufio.Scanner does.
//
// Which buffer holds a line never changes a result: lines are only ever
// moved whole, with the state that describes them (see shift), and the size
// limit is applied to the bytes pending, not to the buffer.

// smallBufSize is the size of the buffer a Reader reads into while its
// source trickles, and the most a Reader keeps while it waits in Read for a
// trickling source.
const smallBufSize = 512

// largeBufSize is the size of the pooled buffer a Reader reads into while
// its source floods. On the chat corpus, reads of 16 KiB run as fast as
// reads of 64 KiB, and 4 KiB reads are about 8% slower.
const largeBufSize = 16 << 10

// maxEmptyReads is how many reads in a row may return no bytes and no error
// before Next gives up with io.ErrNoProgress.
const maxEmptyReads = 100

// largeBufs holds large buffers between the floods of all Readers. Arrays by
// pointer, so that Get and Put do not allocate.
var largeBufs = sync.Pool{New: func() any { return new([largeBufSize]byte) }}

// fill is called when the buffer holds no complete line: it applies the size
// limit to the partial line, reports the end of src, or reads once more
// into a buffer that arrange picked. An error it returns ends the stream;
// an error from src is kept in srcErr and returned once the lines read
// before it are used up.
func (r *Reader) fill() error {
	if r.src == nil {
		return ErrNoSource // a zero Reader
	}
	if err := r.st.checkPartial(r.buf[r.start:r.end]); err != nil {
		return err
	}
	if r.srcErr != nil {
		return r.srcErr
	}
	// Only when the buffer is full, or the last read says the other kind
	// of buffer fits the source better, or the small buffer has room to
	// win back cheaply.
	if small := len(r.buf) <= smallBufSize; r.end == len(r.buf) || r.full == small || small && r.start > 0 && r.start >= r.end-r.start {
		r.arrange()
	}
	room := len(r.buf) - r.end
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		if n < 0 || n > room {
			r.srcErr = ErrBadReadCount
			return nil
		}
		r.end += n
		r.full = n == room
		if err != nil {
			r.srcErr = err
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	r.srcErr = io.ErrNoProgress
	return nil
}

// arrange picks the buffer for the next read and leaves room in it:
//   - the first read goes into the small buffer;
//   - after a read that filled the small buffer, a large one from the pool;
//   - otherwise the small buffer again, with the partial line moved to its
//     front when that wins at least as many bytes of room as it copies (in
//     a trickle the partial line is usually empty), so that the next read
//     is offered the room there is and a read that fills it says that the
//     source has more ready than the small buffer holds;
//   - after a read that came back short into a larger buffer, the small one
//     again, if the partial line fills at most half of it (a longer one
//     stays where it is: there is no point in moving it twice);
//   - a full buffer whose partial line fills more than half of it is
//     replaced by one twice as large, so that every move is paid for by at
//     least half a buffer of new input and reading stays linear in the
//     input however small the reads. Otherwise the partial line moves to
//     the front.
func (r *Reader) arrange() {
	size, unread := len(r.buf), r.end-r.start
	switch {
	case r.buf == nil:
		r.small = new([smallBufSize]byte)
		r.buf = r.small[:]
	case r.full && size == smallBufSize:
		r.move(largeBufs.Get().(*[largeBufSize]byte)[:])
	case size == smallBufSize:
		if r.start >= unread {
			r.move(r.buf)
		}
	case !r.full && size > smallBufSize && unread <= smallBufSize/2:
		r.move(r.small[:])
	case r.end < size:
		// Room left, and the right kind of buffer.
	case unread > size/2 && r.grownSize() > size:
		r.move(make([]byte, r.grownSize()))
	default:
		r.move(r.buf)
	}
}

// grownSize is the size of the buffer that replaces a full one holding a
// long partial line: twice the size, but at most the size limit plus
// smallBufSize. The partial line never exceeds the limit (fill checks it
// before every read), so that always leaves room for a read.
func (r *Reader) grownSize() int {
	n := 2 * len(r.buf)
	if limit := r.st.cfg.max; limit <= maxInt-smallBufSize && n > limit+smallBufSize {
		n = limit + smallBufSize
	}
	return n
}

// move moves the unread bytes to the start of buf, which becomes the
// buffer (buf may be the buffer itself), and returns a large buffer no
// longer used to the pool.
func (r *Reader) move(buf []byte) {
	// The pending data may point into the bytes about to move.
	r.st.unalias()
	copy(buf, r.buf[r.start:r.end])
	old := r.buf
	r.shift(r.start)
	r.buf = buf
	if len(old) != len(buf) {
		recycle(old)
	}
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

// release lets go of the buffers once the stream has ended, so that a
// finished Reader holds none: the large one goes back to the pool.
func (r *Reader) release() {
	recycle(r.buf)
	r.buf, r.small = nil, nil
	r.start, r.end, r.vEnd, r.bad = 0, 0, 0, -1
	r.split.reset()
	r.st.release()
}

// recycle returns buf to the pool if it is a large buffer. Only a buffer
// from the pool has that size: grown buffers are larger (grownSize doubles
// from largeBufSize, or stops at a size not above the current one).
func recycle(buf []byte) {
	if len(buf) == largeBufSize {
		largeBufs.Put((*[largeBufSize]byte)(buf))
	}
}

const maxInt = int(^uint(0) >> 1)
