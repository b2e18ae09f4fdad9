package sse

import (
	"io"
	"time"
)

// Parser is a push parser for callers that own the bytes: they hand it each
// chunk as it arrives with [Parser.Feed], and it calls back with every event
// the chunk completes. It gives exactly the events a [Reader] gives for the
// same bytes, however they are split. Lines that arrive whole within one
// chunk are interpreted in place; only the incomplete line at the end of a
// chunk (and pending data, when an event spans chunks) is copied.
//
// A Parser is not safe for concurrent use: call its methods from one
// goroutine at a time. It starts no goroutines.
type Parser struct {
	st      stream
	split   splitter
	partial []byte // the incomplete line at the end of the input so far
	skipLF  bool   // the input so far ended with a CR that ended a line
	closed  bool
	ready   bool  // st is configured: by NewParser, or by the first Feed of a zero Parser
	err     error // the first error Feed returned; it sticks
}

// NewParser returns a Parser configured by opts. An invalid option is
// reported by the first [Parser.Feed]. The zero Parser is ready to use,
// with the defaults.
func NewParser(opts ...Option) *Parser {
	p := &Parser{ready: true}
	p.err = p.st.init(opts)
	return p
}

// Feed parses the next bytes of the stream and calls emit, in order, with
// each event they complete; emit may be nil to drop events. Feed does not
// keep b: it may be reused once Feed returns. An event's Data is valid only
// during its emit call (it may point into b); use [Event.Clone] to keep it.
//
// If emit returns an error, Feed stops and returns it unwrapped; the bytes
// after that event are not parsed.
//
// When the done sentinel arrives (see [WithDoneSentinel]), Feed returns
// io.EOF, [Parser.Done] reports true, and nothing after the sentinel is
// parsed. The other errors are those of [Reader.Next] that do not come from
// an io.Reader: an [*EventSizeError] (errors.Is [ErrEventTooLarge]), a
// [WithUnknownField] callback's error, an [*OptionError] (errors.Is
// [ErrInvalidOption]). The first error or io.EOF sticks: every later call
// returns it again and parses nothing. Otherwise, after [Parser.Close], Feed
// returns [ErrClosed].
func (p *Parser) Feed(b []byte, emit func(Event) error) error {
	if !p.ready {
		p.ready = true
		p.err = p.st.init(nil)
	}
	if p.err != nil {
		return p.err
	}
	if p.closed {
		return ErrClosed
	}
	if err := p.feed(b, emit); err != nil {
		p.err = err
		p.partial = nil
		return err
	}
	return nil
}

func (p *Parser) feed(b []byte, emit func(Event) error) error {
	s := 0
	if p.skipLF && len(b) > 0 {
		p.skipLF = false
		if b[0] == '\n' {
			s = 1
		}
	}
	p.split.reset()
	if len(p.partial) > 0 {
		end, rest, crLast := p.split.next(b, s, len(b))
		if end < 0 {
			p.partial = append(p.partial, b[s:]...)
			return p.st.checkPartial(p.partial)
		}
		p.partial = append(p.partial, b[s:end]...)
		s, p.skipLF = rest, crLast
		// The line is in p.partial, which the next partial line reuses,
		// so its data must be copied: not aliasable.
		err := p.handle(p.partial, false, emit)
		p.partial = p.partial[:0]
		if err != nil {
			return err
		}
	}
	for {
		end, rest, crLast := p.split.next(b, s, len(b))
		if end < 0 {
			break
		}
		line := b[s:end]
		s, p.skipLF = rest, crLast
		if err := p.handle(line, true, emit); err != nil {
			return err
		}
	}
	// b is the caller's and may change once Feed returns.
	p.st.unalias()
	if err := p.st.checkPartial(b[s:]); err != nil {
		return err
	}
	p.partial = append(p.partial, b[s:]...)
	return nil
}

// handle interprets one line and emits the event it dispatches, if any.
func (p *Parser) handle(line []byte, aliasable bool, emit func(Event) error) error {
	bad := validPrefix(line)
	if bad == len(line) {
		bad = -1
	}
	ok, err := p.st.line(line, bad, aliasable)
	if err != nil || !ok || emit == nil {
		return err
	}
	return emit(p.st.ev)
}

// Close tells the Parser that the input has ended. As the standard says, an
// event not yet ended by a blank line is discarded, and so is an incomplete
// final line (a line ended by a final CR is complete and was interpreted).
// Close returns the error Feed returned first, if it was not io.EOF from the
// done sentinel; otherwise nil. Close releases the Parser's buffers and may
// be called more than once; afterwards Feed returns [ErrClosed], while
// [Parser.Done], [Parser.LastEventID] and [Parser.Retry] keep their values.
func (p *Parser) Close() error {
	p.closed = true
	p.partial = nil
	p.st.release()
	if p.err == io.EOF {
		return nil
	}
	return p.err
}

// Done reports whether the done sentinel ended the stream (see
// [WithDoneSentinel]).
func (p *Parser) Done() bool { return p.st.done }

// LastEventID returns the stream's last event ID, as [Reader.LastEventID]
// does.
func (p *Parser) LastEventID() string { return p.st.lastID }

// Retry returns the reconnection time the stream asked for, as
// [Reader.Retry] does.
func (p *Parser) Retry() (time.Duration, bool) { return p.st.retry, p.st.hasRetry }
