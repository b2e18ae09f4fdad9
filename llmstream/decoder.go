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
// fails b with an [*EventError] at its offset, and nothing is applied.
func readEvent[T any](b *Bridge, d *jsonscan.Doc, t T, ev *sse.Event, fn jsonscan.MemberFunc[T]) error {
	d.ValidUTF8 = b.validUTF8
	if at, err := jsonscan.WalkEvent(d, t, ev.Data, fn); err != nil {
		return b.fail(b.eventError(ev.Data, at, err))
	}
	return nil
}

// outOfOrder fails b with ev, the event that broke the dialect's sequence,
// at offset at: an [*EventError] matching [ErrOutOfOrder].
func (b *Bridge) outOfOrder(ev *sse.Event, at int, why string) error {
	return b.fail(b.eventError(ev.Data, at, fmt.Errorf("%w: %s", ErrOutOfOrder, why)))
}

// The methods below, with Bridge.text, addFragment, setFinish and end, are
// all a decoder may do to its Bridge.

// textLens is the length of each text buffer, to roll back to.
type textLens [3]int

func (b *Bridge) textLens() textLens {
	return textLens{len(b.content), len(b.reasoning), len(b.refusal)}
}

// truncateText undoes the text of an event that failed: back to l.
func (b *Bridge) truncateText(l textLens) {
	b.content, b.reasoning, b.refusal = b.content[:l[0]], b.reasoning[:l[1]], b.refusal[:l[2]]
}

// appendRaw appends text, already decoded, to buffer k and delivers it.
// Unlike [Bridge.text] it does not count as progress by itself.
func (b *Bridge) appendRaw(k bufKind, text string) error {
	buf := b.buffer(k)
	*buf = append(*buf, text...)
	if b.onDelta == nil {
		return nil
	}
	return b.deliver(Delta{Kind: k.deltaKind(), Text: text})
}

// replaceText replaces buffer k's text from byte from on with text, which
// is not delivered (the deltas it replaces were).
func (b *Bridge) replaceText(k bufKind, from int, text []byte) {
	buf := b.buffer(k)
	*buf = append((*buf)[:from], text...)
}

// newAssembler returns an assembler with the Bridge's tool-call options.
func (b *Bridge) newAssembler() *toolcall.Assembler {
	return toolcall.NewAssembler(b.config().toolOpts...)
}

// swapAssembler starts the calls over with asm's (full arguments came late).
func (b *Bridge) swapAssembler(asm *toolcall.Assembler) { b.asm = asm }

// progress marks the event as carrying content (it resets the idle
// timeout; pings and empty blocks do not); setProgress decides it last.
func (b *Bridge) progress()          { b.progressed = true }
func (b *Bridge) setProgress(p bool) { b.progressed = p }

// setUsage replaces the message's usage; nil leaves it unreported.
func (b *Bridge) setUsage(u *Usage) { b.usage = u }

// usageRef returns the message's usage to fill, made at the first report.
func (b *Bridge) usageRef() *Usage {
	if b.usage == nil {
		b.usage = new(Usage)
	}
	return b.usage
}

// addBlock appends a continuity block and returns its slot, for block.
func (b *Bridge) addBlock(blk Block) int {
	b.blocks = append(b.blocks, blk)
	return len(b.blocks) - 1
}

func (b *Bridge) block(slot int) *Block { return &b.blocks[slot] }
func (b *Bridge) blockCount() int       { return len(b.blocks) } // the next slot
func (b *Bridge) truncateBlocks(n int)  { b.blocks = b.blocks[:n] }

// keepContinuity keeps blocks that hold only text and calls: the decoder
// knows state the neutral fields cannot show.
func (b *Bridge) keepContinuity() { b.keepBlocks = true }

// setContainer keeps a copy of Anthropic's code-execution container.
func (b *Bridge) setContainer(raw []byte) { b.container = slices.Clone(raw) }
