package llmstream

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file holds what the decoders of JSON events share (each dialect's
// own decoding is in its dialect_X.go).

// readEvent walks ev's data, one JSON object, into d with fn, which records
// the members t reads; every value is validated on the way. A failure
// fails the stream with an [*EventError] at its offset, and nothing is
// applied.
func readEvent[T any](s sink, d *jsonscan.Doc, t T, ev *sse.Event, fn jsonscan.MemberFunc[T]) error {
	d.ValidUTF8 = s.validUTF8()
	if at, err := jsonscan.WalkEvent(d, t, ev.Data, fn); err != nil {
		return s.fail(s.eventError(ev.Data, at, err))
	}
	return nil
}

// sink is what a decoder writes its stream into: the Bridge, seen through
// the methods below, which are all a decoder may do to it. A decoder holds
// a sink, never the *Bridge, so it cannot reach the Bridge's fields. It is
// one pointer and its accessors inline, so the boundary costs nothing.
type sink struct{ b *Bridge }

// outOfOrder fails the stream with ev, the event that broke the dialect's
// sequence, at offset at: an [*EventError] matching [ErrOutOfOrder].
func (s sink) outOfOrder(ev *sse.Event, at int, why string) error {
	return s.fail(s.eventError(ev.Data, at, fmt.Errorf("%w: %s", ErrOutOfOrder, why)))
}

// validUTF8 reports whether event data is known to be valid UTF-8 (it
// came through an sse.Reader), so decoding need not check it again.
func (s sink) validUTF8() bool { return s.b.validUTF8 }

// fail ends the stream with err, unless it already failed; it returns the
// stream's error.
func (s sink) fail(err error) error { return s.b.fail(err) }

// failed reports whether the stream has failed.
func (s sink) failed() bool { return s.b.err != nil }

// eventError is the error for the event data that failed to decode at
// offset at: a copy of the data with the request's credentials replaced.
func (s sink) eventError(data []byte, at int, err error) *EventError {
	cp := append([]byte(nil), data...)
	return &EventError{Data: s.b.config().secrets.Bytes(cp), Offset: at, Err: err}
}

// apiError is the provider error an event reported, its text cleaned of
// the request's credentials.
func (s sink) apiError(raw []byte) *APIError {
	e, ok := s.b.config().dialect.protocol().parseError(raw, 0)
	if !ok {
		// Of no known shape, JSON or not: the message as it is.
		e = &APIError{Message: string(raw)}
		e.classify()
	}
	s.redact(e)
	return e
}

// redact removes the request's credentials from e, an error the decoder
// built itself.
func (s sink) redact(e *APIError) { e.redact(s.b.config().secrets) }

// end records the stream's proper end, by the dialect's rule: later
// events are ignored; ended reports it.
func (s sink) end()        { s.b.done = true }
func (s sink) ended() bool { return s.b.done }

// setFinish records the provider's raw finish reason and what the
// dialect's own map says it means; finish returns the raw one, "" before
// any.
func (s sink) setFinish(raw string, stop StopReason) { s.b.finish, s.b.stop = raw, stop }
func (s sink) finish() string                        { return s.b.finish }

// text appends the validated JSON string at sp of d to buffer k and
// delivers it: the way a decoder applies text once its event has proved
// valid.
func (s sink) text(k bufKind, d *jsonscan.Doc, sp jsonscan.Span) error {
	buf := s.buffer(k)
	if room := sp.End - sp.Start; cap(*buf)-len(*buf) < room {
		// The span bounds the decoded text. Double the buffer: append
		// grows a large slice by 1.25x, which copies a long answer often.
		*buf = slices.Grow(*buf, max(len(*buf), room))
	}
	start := len(*buf)
	*buf = d.Str(*buf, sp)
	if len(*buf) == start {
		return nil
	}
	s.b.progressed = true
	if s.b.onDelta == nil {
		return nil
	}
	return s.deliver(Delta{Kind: k.deltaKind(), Text: string((*buf)[start:])})
}

// buffer is text buffer k, for a decoder that decodes into it in place
// (and delivers the text itself, see delivering).
func (s sink) buffer(k bufKind) *[]byte {
	switch k {
	case inReasoning:
		return &s.b.reasoning
	case inRefusal:
		return &s.b.refusal
	}
	return &s.b.content
}

// delivering reports whether deltas are wanted; deliver hands one on, and
// fails the stream with [ErrAborted] when the callback says stop.
func (s sink) delivering() bool { return s.b.onDelta != nil }
func (s sink) deliver(d Delta) error {
	if err := s.b.onDelta(d); err != nil {
		return s.fail(fmt.Errorf("%w: %w", ErrAborted, err))
	}
	return nil
}

// content and reasoning are the answer and reasoning text so far, to read.
func (s sink) content() []byte   { return s.b.content }
func (s sink) reasoning() []byte { return s.b.reasoning }

// textLens is the length of each text buffer, to roll back to.
type textLens [3]int

func (s sink) textLens() textLens {
	return textLens{len(s.b.content), len(s.b.reasoning), len(s.b.refusal)}
}

// truncateText undoes the text of an event that failed: back to l.
func (s sink) truncateText(l textLens) {
	b := s.b
	b.content, b.reasoning, b.refusal = b.content[:l[0]], b.reasoning[:l[1]], b.refusal[:l[2]]
}

// appendRaw appends text, already decoded, to buffer k and delivers it.
// Unlike text it does not count as progress by itself.
func (s sink) appendRaw(k bufKind, text string) error {
	buf := s.buffer(k)
	*buf = append(*buf, text...)
	if s.b.onDelta == nil {
		return nil
	}
	return s.deliver(Delta{Kind: k.deltaKind(), Text: text})
}

// replaceText replaces buffer k's text from byte from on with text, which
// is not delivered (the deltas it replaces were).
func (s sink) replaceText(k bufKind, from int, text []byte) {
	buf := s.buffer(k)
	*buf = append((*buf)[:from], text...)
}

// addFragment hands one tool-call fragment to the assembler and reports
// the call's progress to the callback; an error fails the stream.
func (s sink) addFragment(f toolcall.Fragment) error {
	asm := s.assembler()
	if err := asm.Add(f); err != nil {
		return s.fail(err)
	}
	s.b.progressed = true
	if s.b.onDelta == nil {
		return nil
	}
	p, ok := asm.Preview(asm.LastIndex())
	if !ok {
		return nil
	}
	return s.deliver(Delta{Kind: DeltaToolCall, Text: strings.Clone(f.Arguments), Call: p})
}

// assembler is the tool-call assembler, made at the first fragment: most
// responses carry no tool call.
func (s sink) assembler() *toolcall.Assembler {
	if s.b.asm == nil {
		s.b.asm = s.newAssembler()
	}
	return s.b.asm
}

// newAssembler returns an assembler with the Bridge's tool-call options.
func (s sink) newAssembler() *toolcall.Assembler {
	return toolcall.NewAssembler(s.b.config().toolOpts...)
}

// swapAssembler starts the calls over with asm's (full arguments came late).
func (s sink) swapAssembler(asm *toolcall.Assembler) { s.b.asm = asm }

// progress marks the event as carrying content (it resets the idle
// timeout; pings and empty blocks do not); setProgress decides it last.
func (s sink) progress()          { s.b.progressed = true }
func (s sink) setProgress(p bool) { s.b.progressed = p }

// setUsage replaces the message's usage; nil leaves it unreported.
func (s sink) setUsage(u *Usage) { s.b.usage = u }

// usageRef returns the message's usage to fill, made at the first report.
func (s sink) usageRef() *Usage {
	if s.b.usage == nil {
		s.b.usage = new(Usage)
	}
	return s.b.usage
}

// maxModelBytes is the longest model name a stream may give: a longer one
// is not a model's name, and is not kept.
const maxModelBytes = 256

// setModel records the model the stream names at sp of d, a JSON string:
// the first non-empty name stands, so once one has, nothing is decoded
// and a stream costs one string at most. Anything else (null, a number)
// names nothing.
func (s sink) setModel(d *jsonscan.Doc, sp jsonscan.Span) {
	// A byte of the name is at most 6 in JSON (\u0041).
	if s.b.model == "" && d.IsString(sp) && sp.End-sp.Start-2 <= 6*maxModelBytes {
		s.setModelName(jsonscan.DecodedString(d.Data, sp))
	}
}

// setModelName is setModel for a name already decoded. A credential of the
// request is masked in it: the name reaches spans and logs.
func (s sink) setModelName(name string) {
	if s.b.model == "" && len(name) <= maxModelBytes {
		s.b.model = s.b.config().secrets.String(name)
	}
}

// addBlock appends a continuity block and returns its slot, for block.
func (s sink) addBlock(blk Block) int {
	s.b.blocks = append(roomForOne(s.b.blocks), blk)
	return len(s.b.blocks) - 1
}

// roomForOne makes room for one more element, doubling a full slice's
// capacity: append's own growth slows to 1.25× for large slices, which
// allocates a stream of many blocks or items five times over.
func roomForOne[S ~[]E, E any](s S) S {
	if len(s) == cap(s) {
		return slices.Grow(s, len(s)+1)
	}
	return s
}

func (s sink) block(slot int) *Block { return &s.b.blocks[slot] }
func (s sink) blockCount() int       { return len(s.b.blocks) } // the next slot
func (s sink) truncateBlocks(n int)  { s.b.blocks = s.b.blocks[:n] }

// keepContinuity keeps blocks that hold only text and calls: the decoder
// knows state the neutral fields cannot show.
func (s sink) keepContinuity() { s.b.keepBlocks = true }

// setContainer keeps a copy of Anthropic's code-execution container.
func (s sink) setContainer(raw []byte) { s.b.container = slices.Clone(raw) }
