package llmstream

import (
	"fmt"
	"slices"

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
// one pointer and its methods are small (all but outOfOrder and appendRaw
// inline), so the boundary costs nothing.
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

// eventError and apiError build the errors of a bad event and of a
// provider's in-stream error, credentials removed (see Bridge's).
func (s sink) eventError(data []byte, at int, err error) *EventError {
	return s.b.eventError(data, at, err)
}
func (s sink) apiError(raw []byte) *APIError { return s.b.apiError(raw) }

// redact removes the request's credentials from e, an error the decoder
// built itself.
func (s sink) redact(e *APIError) { e.redact(s.b.config().secrets) }

// end records the stream's proper end; ended reports it.
func (s sink) end()        { s.b.end() }
func (s sink) ended() bool { return s.b.done }

// setFinish records the raw finish reason and its meaning; finish returns
// the raw one, "" before any.
func (s sink) setFinish(raw string, stop StopReason) { s.b.setFinish(raw, stop) }
func (s sink) finish() string                        { return s.b.finish }

// text appends and delivers validated JSON string text (see Bridge.text).
func (s sink) text(k bufKind, d *jsonscan.Doc, sp jsonscan.Span) error { return s.b.text(k, d, sp) }

// buffer is text buffer k, for a decoder that decodes into it in place
// (and delivers the text itself, see delivering).
func (s sink) buffer(k bufKind) *[]byte { return s.b.buffer(k) }

// delivering reports whether deltas are wanted; deliver hands one on.
func (s sink) delivering() bool      { return s.b.onDelta != nil }
func (s sink) deliver(d Delta) error { return s.b.deliver(d) }

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
	buf := s.b.buffer(k)
	*buf = append(*buf, text...)
	if s.b.onDelta == nil {
		return nil
	}
	return s.b.deliver(Delta{Kind: k.deltaKind(), Text: text})
}

// replaceText replaces buffer k's text from byte from on with text, which
// is not delivered (the deltas it replaces were).
func (s sink) replaceText(k bufKind, from int, text []byte) {
	buf := s.b.buffer(k)
	*buf = append((*buf)[:from], text...)
}

// addFragment hands one tool-call fragment to the assembler (see
// Bridge.addFragment).
func (s sink) addFragment(f toolcall.Fragment) error { return s.b.addFragment(f) }

// assembler is the tool-call assembler, made at its first use.
func (s sink) assembler() *toolcall.Assembler { return s.b.assembler() }

// newAssembler returns an assembler with the Bridge's tool-call options.
func (s sink) newAssembler() *toolcall.Assembler { return s.b.newAssembler() }

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
	s.b.blocks = append(s.b.blocks, blk)
	return len(s.b.blocks) - 1
}

func (s sink) block(slot int) *Block { return &s.b.blocks[slot] }
func (s sink) blockCount() int       { return len(s.b.blocks) } // the next slot
func (s sink) truncateBlocks(n int)  { s.b.blocks = s.b.blocks[:n] }

// keepContinuity keeps blocks that hold only text and calls: the decoder
// knows state the neutral fields cannot show.
func (s sink) keepContinuity() { s.b.keepBlocks = true }

// setContainer keeps a copy of Anthropic's code-execution container.
func (s sink) setContainer(raw []byte) { s.b.container = slices.Clone(raw) }
