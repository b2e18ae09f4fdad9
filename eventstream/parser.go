package eventstream

// Parser is a push parser for callers that own the bytes: they hand it each
// chunk as it arrives with [Parser.Feed], and it calls back with every frame
// the chunk completes, then [Parser.Close] at the end of the input. It gives
// exactly the frames and errors a [Reader] gives for the same bytes, however
// they are split. Frames that arrive whole within one chunk are decoded in
// place; only a frame split across chunks is copied, into a buffer that
// never grows past the frame size limit (see [WithMaxFrameSize]).
//
// A Parser is not safe for concurrent use: call its methods from one
// goroutine at a time. It starts no goroutines.
type Parser struct {
	cfg     config
	partial []byte // the start of a frame split across chunks
	total   int    // that frame's length once its prelude is checked, else 0
	h       int    // and its headers length
	off     int64  // the stream offset of the next frame's first byte
	hd      headerDecoder
	msg     Message
	closed  bool
	ready   bool  // cfg is set: by NewParser, or by the first Feed of a zero Parser
	err     error // the first error Feed returned; it sticks
}

// NewParser returns a Parser configured by opts. An invalid option is
// reported by the first [Parser.Feed]. The zero Parser is ready to use, with
// the defaults.
func NewParser(opts ...Option) *Parser {
	p := &Parser{ready: true}
	p.cfg, p.err = newConfig(opts)
	return p
}

// Feed decodes the next bytes of the stream and calls emit, in order, with
// each frame they complete; emit may be nil to drop frames. Feed does not
// keep b: it may be reused once Feed returns. A Message is valid only
// during its emit call (it may point into b); use [Message.Clone] to keep
// it.
//
// If emit returns an error, Feed stops and returns it unwrapped; the bytes
// after that frame are not decoded. A bad frame is a [*FrameError] or a
// [*FrameSizeError], as from [Reader.Next] (but never [ErrTruncated]: only
// Close knows the input has ended); a bad option an [*OptionError]. The
// first error sticks: every later call returns it again and decodes
// nothing. Otherwise, after Close, Feed returns [ErrClosed].
func (p *Parser) Feed(b []byte, emit func(Message) error) error {
	if !p.ready {
		p.ready = true
		p.cfg, p.err = newConfig(nil)
	}
	if p.err != nil {
		return p.err
	}
	if p.closed {
		return ErrClosed
	}
	if err := p.feed(b, emit); err != nil {
		p.fail(err)
		return err
	}
	return nil
}

func (p *Parser) feed(b []byte, emit func(Message) error) error {
	if len(p.partial) > 0 {
		// Complete the prelude, then the frame, from b. The prelude is
		// checked once, however many chunks the frame takes.
		if p.total == 0 {
			n := min(preludeLen-len(p.partial), len(b))
			p.partial = append(p.partial, b[:n]...)
			b = b[n:]
			if len(p.partial) < preludeLen {
				return nil
			}
			var err error
			if p.total, p.h, err = prelude(p.partial, p.cfg.max, p.off); err != nil {
				return err
			}
			p.reserve(p.total)
		}
		n := min(p.total-len(p.partial), len(b))
		p.partial = append(p.partial, b[:n]...)
		b = b[n:]
		if len(p.partial) < p.total {
			return nil
		}
		// The frame is in p.partial, which the next split frame reuses:
		// emit before that, as the doc says.
		err := p.emit(p.partial, p.h, emit)
		p.partial, p.total = p.partial[:0], 0
		if err != nil {
			return err
		}
	}
	for len(b) >= preludeLen {
		total, h, err := prelude(b, p.cfg.max, p.off)
		if err != nil {
			return err
		}
		if len(b) < total {
			p.total, p.h = total, h
			break
		}
		if err := p.emit(b[:total], h, emit); err != nil {
			return err
		}
		b = b[total:]
	}
	// What is left is less than a frame, and a frame is within the limit
	// once its prelude passed; so is p.partial.
	p.reserve(max(p.total, preludeLen))
	p.partial = append(p.partial, b...)
	return nil
}

// reserve makes p.partial's capacity at least n, exactly n when it must
// grow: n is within the limit, and append's rounding up could pass it.
func (p *Parser) reserve(n int) {
	if cap(p.partial) < n {
		np := make([]byte, len(p.partial), n)
		copy(np, p.partial)
		p.partial = np
	}
}

// emit decodes the complete frame f and hands it to fn.
func (p *Parser) emit(f []byte, h int, fn func(Message) error) error {
	if err := frame(f, h, &p.hd, &p.msg, p.off); err != nil {
		return err
	}
	p.off += int64(len(f))
	if fn == nil {
		return nil
	}
	err := fn(p.msg)
	p.msg = Message{} // no reference into b outlives Feed
	return err
}

// Close tells the Parser that the input has ended. It returns the error Feed
// returned first, if any; otherwise a [*FrameError] (errors.Is
// [ErrTruncated]) when the input ended inside a frame; otherwise nil. Close
// releases the Parser's buffers and may be called more than once, returning
// the same; afterwards Feed returns that error, or [ErrClosed].
func (p *Parser) Close() error {
	if !p.closed && p.err == nil && len(p.partial) > 0 {
		need := max(p.total, preludeLen) // p.total is set once the prelude is in
		p.err = truncated(len(p.partial), need, p.off)
	}
	p.closed = true
	p.fail(p.err)
	return p.err
}

// fail records err and releases the buffers.
func (p *Parser) fail(err error) {
	p.err = err
	p.partial, p.total = nil, 0
	p.hd.hs = nil
	p.msg = Message{}
}
