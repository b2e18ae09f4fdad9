package llmstream

import (
	"fmt"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
)

// This file is the Responses dialect's text: deltas and the full text of
// *.done events, for answer text, refusals and reasoning, by part.

// respRun is where the deltas of one part of an item sit in a buffer.
type respRun struct {
	buf        bufKind
	part       respPart
	start, end int
	ok         bool
}

// textKind is the bit, in respItem.streamed, of the text buffer k holds:
// 1<<k, summary parts apart.
func textKind(k bufKind, summary bool) uint8 {
	if summary {
		return 1 << 7 // above every buffer's bit
	}
	return 1 << k
}

// respPart names a part of an item that has text: a content part
// (content_index) or a reasoning summary part (summary_index), at most
// toolcall.MaxIndex.
type respPart struct {
	summary bool
	index   int32
}

// respText is what an item keeps of its text, once a part of it has some.
type respText struct {
	parts [maxListedParts]respPart // the parts that have text, the first nparts of them
	many  map[respPart]struct{}    // all of them, past maxListedParts
	// The text the deltas of one part last appended, while nothing else
	// came after it in its buffer: a *.done with more text completes it.
	run    respRun
	nparts uint8
}

// maxListedParts is how many parts of an item are looked up in a list:
// items have one or two; past it a map keeps a stream that opens a part
// per delta linear.
const maxListedParts = 8

// texts is the item's text, made on first use.
func (it *respItem) texts() *respText {
	if it.text == nil {
		it.text = new(respText)
	}
	return it.text
}

// claim marks a part of it as having text and reports whether it had none
// before.
func (it *respItem) claim(summary bool, index int) bool {
	if it.has(summary, index) {
		return false
	}
	t, p := it.texts(), respPart{summary, int32(index)}
	switch {
	case t.many != nil:
		t.many[p] = struct{}{}
	case t.nparts == maxListedParts:
		t.many = make(map[respPart]struct{}, 2*maxListedParts)
		for _, q := range t.parts {
			t.many[q] = struct{}{}
		}
		t.many[p] = struct{}{}
	default:
		t.parts[t.nparts] = p
		t.nparts++
	}
	return true
}

// has reports whether a part of it has text.
func (it *respItem) has(summary bool, index int) bool {
	t, p := it.text, respPart{summary, int32(index)}
	switch {
	case t == nil:
		return false
	case t.many != nil:
		_, ok := t.many[p]
		return ok
	}
	for _, q := range t.parts[:t.nparts] {
		if q == p {
			return true
		}
	}
	return false
}

// deltaItem is the open item of kind k that a text or argument event
// names. An event for an output_index nothing named yet opens an item
// there (one server's deltas may overtake their output_item.added; a call
// opened so must be named before the end). nil with the error when the
// event is out of order.
func (r *responsesDecoder) deltaItem(ev *sse.Event, k respKind, find respFind) (*respItem, error) {
	n, it, err := r.eventItem(ev, k, find)
	switch {
	case err != nil:
		return nil, err
	case it == nil:
		return r.open(n, k)
	case it.kind == k && !it.done:
		return it, nil
	}
	switch {
	case k == respCall && it.kind != k:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("function-call arguments for output item %d, a %v item", n, it.kind))
	case k == respCall:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("function-call arguments for output item %d after its output_item.done", n))
	case it.done:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("a text event for output item %d after its output_item.done", n))
	}
	return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("%s text for output item %d, a %v item", k, n, it.kind))
}

// textDelta appends a text, refusal or reasoning delta.
func (r *responsesDecoder) textDelta(ev *sse.Event, k respKind, buf bufKind, summary bool, part jsonscan.Span) error {
	p, err := r.partIndex(ev, part)
	if err != nil {
		return err
	}
	it, err := r.deltaItem(ev, k, findNewest)
	if err != nil {
		return err
	}
	if !r.doc.IsString(r.delta) || r.delta.End-r.delta.Start == 2 {
		return nil // no text
	}
	it.streamed |= textKind(buf, summary)
	before := len(*r.b.buffer(buf))
	run, rp := &it.texts().run, respPart{summary, int32(p)}
	if !(run.ok && run.buf == buf && run.part == rp && run.end == before) {
		*run = respRun{buf: buf, part: rp, start: before, ok: true}
	}
	r.broke = false
	if err := r.appendText(it, buf, summary, p, r.delta); err != nil {
		return err
	}
	if r.broke && run.start == before {
		run.start += len("\n\n") // the paragraph break is not the part's text
	}
	run.end = len(*r.b.buffer(buf))
	return nil
}

// partIndex reads a content or summary index; absent means 0.
func (r *responsesDecoder) partIndex(ev *sse.Event, s jsonscan.Span) (int, error) {
	if !s.OK() {
		return 0, nil
	}
	p, ok := r.index(s)
	if !ok {
		return 0, r.b.outOfOrder(ev, 0, "a content or summary index that is not a small integer")
	}
	return p, nil
}

// appendText appends the non-empty JSON string at s, part p of item it, to
// buffer k.
func (r *responsesDecoder) appendText(it *respItem, k bufKind, summary bool, p int, s jsonscan.Span) error {
	b := r.b
	// A new reasoning part reads as a new paragraph: one of another item,
	// or one a part event announced or closed its predecessor for. A new
	// part index alone is not enough: one server numbers every delta as a
	// part of its own.
	if it.claim(summary, p) && k == inReasoning && len(b.reasoning()) > 0 && (r.reasonAt != int(it.pos) || r.reasonBreak) {
		r.broke = true
		if err := b.appendRaw(inReasoning, "\n\n"); err != nil {
			return err
		}
	}
	if k == inReasoning {
		r.reasonAt, r.reasonBreak = int(it.pos), false
	}
	before := len(b.content())
	if err := b.text(k, &r.doc, s); err != nil {
		return err
	}
	if it.slot >= 0 && k == inContent {
		b.block(int(it.slot)).Bytes += len(b.content()) - before
	}
	return nil
}

// doneText takes the full text of a *.done event for a part that has no
// text yet, of an item no delta gave text of this kind to. A server may
// number each delta as a part of its own and close the item with yet
// another part index, so the parts of a streamed item are not trusted.
func (r *responsesDecoder) doneText(ev *sse.Event, k respKind, buf bufKind, summary bool, part, text jsonscan.Span) error {
	p, err := r.partIndex(ev, part)
	if err != nil {
		return err
	}
	it, err := r.deltaItem(ev, k, findOldest)
	if err != nil {
		return err
	}
	if r.unfilled(it, buf, summary, p, text) {
		err = r.appendText(it, buf, summary, p, text)
	} else if r.doc.IsString(text) {
		err = r.completeText(it, buf, respPart{summary, int32(p)}, text)
	}
	if buf == inReasoning {
		r.reasonBreak = true // the part is closed
	}
	return err
}

// unfilled reports whether the text at s, a non-empty string, may fill
// part p of it: the part has no text, and no delta gave the item text of
// this kind.
func (r *responsesDecoder) unfilled(it *respItem, k bufKind, summary bool, p int, s jsonscan.Span) bool {
	return it.streamed&textKind(k, summary) == 0 && !it.has(summary, p) && r.doc.IsString(s) && s.End-s.Start > 2
}

// completeText makes the text the deltas of part gave the *.done's full text
// when they were the last thing in their buffer: where the deltas are a
// prefix of it, only the rest is appended (and delivered); where they are
// not, the done text takes their place (the deltas went to OnDelta
// already; the Message has the done text). Deltas that other text
// followed in the buffer stand as they are: the done text cannot be put
// in their place without moving that text.
func (r *responsesDecoder) completeText(it *respItem, k bufKind, part respPart, text jsonscan.Span) error {
	b := r.b
	buf := b.buffer(k)
	if it.text == nil {
		return nil // no delta ran
	}
	run := it.text.run
	if !run.ok || run.buf != k || run.part != part || run.end != len(*buf) {
		return nil
	}
	r.arena = r.doc.Str(r.arena[:0], text)
	full, got := r.arena, (*buf)[run.start:run.end]
	if len(full) <= len(got) && string(full) == string(got[:len(full)]) {
		return nil // nothing more (or a done shorter than its deltas: they stand)
	}
	before := len(*buf)
	if len(full) > len(got) && string(full[:len(got)]) == string(got) {
		if err := b.appendRaw(k, string(full[len(got):])); err != nil {
			return err
		}
	} else {
		b.replaceText(k, run.start, full)
	}
	if it.slot >= 0 && k == inContent {
		b.block(int(it.slot)).Bytes += len(*buf) - before
	}
	it.text.run.end = len(*buf)
	b.progress()
	return nil
}

// donePart is content_part.done: an output_text or refusal part of a
// message, or a reasoning_text part of a reasoning item.
func (r *responsesDecoder) donePart(ev *sse.Event) error {
	k := respMessage
	if r.doc.Is(r.inPart.typ, "reasoning_text") {
		k = respReasoning
	}
	_, it, err := r.eventItem(ev, k, findOldest)
	if err != nil {
		return err
	}
	switch {
	case r.doc.Is(r.inPart.typ, "refusal"):
		return r.doneText(ev, respMessage, inRefusal, false, r.contentIndex, r.inPart.refusal)
	case r.doc.Is(r.inPart.typ, "reasoning_text"), it != nil && it.kind == respReasoning:
		return r.doneText(ev, respReasoning, inReasoning, false, r.contentIndex, r.inPart.text)
	case it != nil && it.kind != respMessage:
		return nil // a part of another item's content: kept with the item
	}
	return r.doneText(ev, respMessage, inContent, false, r.contentIndex, r.inPart.text)
}
