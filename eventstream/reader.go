package eventstream

import "io"

// startBufSize is the first read buffer's size: a few typical frames (an
// LLM's frames are a few hundred bytes), as bufio starts.
const startBufSize = 4 << 10

// maxEmptyReads is how many reads in a row may return no bytes and no
// error before the Reader gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// Reader reads frames from an io.Reader: a pull parser. It reads only as
// much as it needs to return the next frame, and in steady state Next does
// not allocate (a header name not seen among the last 8 excepted).
//
// Memory: a Reader holds one read buffer that starts at 4 KiB and doubles
// when a frame needs more, up to the frame size limit (see
// [WithMaxFrameSize]), never beyond; and the slice of the current frame's
// headers. Once Next has returned io.EOF or an error, it holds neither.
//
// A Reader is not safe for concurrent use: call its methods from one
// goroutine at a time. It starts no goroutines and does not close the
// io.Reader.
type Reader struct {
	src    io.Reader
	cfg    config
	buf    []byte
	start  int   // the first byte of the next frame
	end    int   // the end of the bytes read
	off    int64 // the stream offset of buf[start]
	total  int   // the next frame's length once its prelude is checked, else 0
	h      int   // and its headers length
	hd     headerDecoder
	msg    Message
	srcErr error // what src returned, reported once the buffer is used up
	err    error // the first error Next returned; it sticks
}

// NewReader returns a Reader that reads frames from r, configured by opts.
// It neither reads from r nor allocates a buffer; the first call to
// [Reader.Next] does. An invalid option is reported by the first Next.
func NewReader(r io.Reader, opts ...Option) *Reader {
	rd := &Reader{src: r}
	rd.cfg, rd.err = newConfig(opts)
	return rd
}

// Next returns the next frame of the stream.
//
// The Message aliases the Reader's buffers: its Headers, their values' bytes
// and its Payload are valid until the next call to Next, which may overwrite
// them. Use [Message.Clone] to keep it.
//
// At a clean end — r reports io.EOF between two frames — Next returns a
// zero Message and io.EOF. Every frame completely received before r fails
// is returned before r's error, which Next then returns unwrapped, so
// errors.Is works on it (a cancelled context, say). A bad frame ends the
// stream with a [*FrameError] (errors.Is [ErrBadPreludeCRC],
// [ErrBadLength], [ErrHeadersTooLarge], [ErrBadMessageCRC], [ErrBadHeader],
// or [ErrTruncated] when r reports io.EOF inside a frame) or a [*FrameSizeError] (errors.Is
// [ErrFrameTooLarge]). Other errors: an [*OptionError] (errors.Is
// [ErrInvalidOption]); [ErrNoSource] for a Reader with no io.Reader;
// io.ErrNoProgress when r returns no bytes and no error 100 times in a row;
// [ErrBadReadCount] when r reports an impossible count. The first error or
// io.EOF sticks: every later call returns it again and reads nothing.
func (r *Reader) Next() (Message, error) {
	if err := r.next(); err != nil {
		return Message{}, err
	}
	return r.msg, nil
}

func (r *Reader) next() error {
	if r.err != nil {
		return r.err
	}
	if r.src == nil {
		r.stop(ErrNoSource)
		return r.err
	}
	for {
		b := r.buf[r.start:r.end]
		need := preludeLen
		if len(b) >= preludeLen {
			if r.total == 0 { // once per frame, however many reads it takes
				var err error
				if r.total, r.h, err = prelude(b, r.cfg.max, r.off); err != nil {
					r.stop(err)
					return err
				}
			}
			if len(b) >= r.total {
				if err := frame(b[:r.total], r.h, &r.hd, &r.msg, r.off); err != nil {
					r.stop(err)
					return err
				}
				r.start += r.total
				r.off += int64(r.total)
				r.total = 0
				return nil
			}
			need = r.total
		}
		if err := r.fill(need); err != nil {
			r.stop(err)
			return err
		}
	}
}

// fill reads at least one more byte, making room for a frame of need bytes
// first, or returns the error that ends the stream.
func (r *Reader) fill(need int) error {
	if r.srcErr != nil {
		if r.srcErr != io.EOF {
			return r.srcErr
		}
		if n := r.end - r.start; n > 0 {
			return truncated(n, need, r.off)
		}
		return io.EOF
	}
	if len(r.buf)-r.start < need {
		if need <= len(r.buf) {
			// Move the partial frame to the front.
			r.end = copy(r.buf, r.buf[r.start:r.end])
		} else {
			// Double, for few copies, but never past the limit: need is
			// within it, the prelude having been checked.
			size := max(startBufSize, 2*len(r.buf))
			for size < need {
				size *= 2
			}
			size = min(size, r.cfg.max)
			nb := make([]byte, size)
			r.end = copy(nb, r.buf[r.start:r.end])
			r.buf = nb
		}
		r.start = 0
	}
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			return ErrBadReadCount
		}
		r.end += n
		if err != nil {
			r.srcErr = err
			return nil // what was read first; the error when it is used up
		}
		if n > 0 {
			return nil
		}
	}
	return io.ErrNoProgress
}

// stop records the error that ends the stream and releases the buffers: no
// Message is valid after it.
func (r *Reader) stop(err error) {
	r.err = err
	r.buf, r.start, r.end = nil, 0, 0
	r.hd.hs = nil
	r.msg = Message{}
}
