package llmstream

import (
	"fmt"
	"slices"

	"github.com/airlock-go/airlock/internal/chunked"
	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the Responses dialect's output items: finding the item an
// event names (by output_index, or in order of arrival for servers that
// send none), opening, adding and closing them.

// respKind is what an output item is to the message.
type respKind uint8

const (
	respMessage   respKind = iota + 1 // text and refusal
	respCall                          // a function call
	respReasoning                     // reasoning, kept whole
	respRaw                           // any other item, kept whole
)

// respItem is one output item, from the first event that names its
// output_index. It is kept small: a stream may open a great many items,
// and text, which few items of such a stream have, lives in text. The
// int32s hold: an output_index is at most toolcall.MaxIndex, and a
// position, block or call index at most that plus the items, which
// maxItems bounds.
type respItem struct {
	index    int32 // output_index; -1 once another item took it
	pos      int32 // its position in responsesDecoder.items
	call     int32 // a call's index in the assembler (see callIndex)
	slot     int32 // its Block in Bridge.blocks, -1 for none yet
	took     uint8 // the kinds (1<<kind) of the items it took its output_index from
	kind     respKind
	added    bool      // output_item.added (or output_item.done) named it; false while only deltas did
	done     bool      // closed: output_item.done, or the terminal response
	deltas   bool      // a call got argument deltas
	argsEnd  bool      // a call got function_call_arguments.done
	streamed uint8     // the kinds of text deltas gave it (textKind)
	text     *respText // nil until a part of it has text
	start    string    // a call's arguments as output_item.added carried them
}

// respFind says which item an event with no output_index names.
type respFind uint8

const (
	findNewest respFind = iota // a delta's: the newest open item of its kind
	findOldest                 // a *.done event's: the oldest one
	findNew                    // output_item.added's: none, a new index
)

// eventItem reads the event's output_index and returns its item, nil when
// none has that index. Some servers (llama.cpp, and Lemonade on it) send
// no output_index at all: their items are followed by order, as find says
// for an item of kind k, and a new one takes the next index. They close
// their items in the order they opened them, at the end.
func (r *responsesDecoder) eventItem(ev *sse.Event, k respKind, find respFind) (int, *respItem, error) {
	if s := r.outIndex; s.OK() && r.doc.Data[s.Start] != 'n' { // present, not null
		n, ok := r.index(r.outIndex)
		if !ok {
			return 0, nil, r.b.outOfOrder(ev, 0, "an item event without a usable output_index")
		}
		return n, r.lookup(n), nil
	}
	var it *respItem
	switch q := &r.byKind[k]; find {
	case findNewest:
		it = q.newest(&r.items)
	case findOldest:
		it = r.doneMatch(q)
	}
	if it == nil {
		return r.next, nil, nil
	}
	return int(it.index), it, nil
}

// doneMatch is the open item of q that output_item.done names: the one
// with its call_id or id among the maxDoneMatch oldest, else the oldest.
func (r *responsesDecoder) doneMatch(q *respQueue) *respItem {
	oldest := q.oldest(&r.items)
	if oldest == nil || !r.item.OK() {
		return oldest
	}
	callID, id := r.doc.Text(r.inItem.callID), r.itemID()
	if callID == "" && id == "" {
		return oldest
	}
	for _, pos := range q.pos[q.head:min(len(q.pos), q.head+maxDoneMatch)] {
		it := r.items.At(int(pos))
		switch {
		case it.done || it.index < 0:
		case it.slot >= 0 && id != "" && r.b.block(int(it.slot)).ID == id:
			return it
		case it.kind == respCall && callID != "":
			if p, _ := r.b.assembler().Preview(int(it.call)); p.ID == callID {
				return it
			}
		}
	}
	return oldest
}

// maxDoneMatch bounds how many open items an output_item.done with no
// output_index is matched against, so that a stream opening many items
// stays linear; more than a few at once are rare.
const maxDoneMatch = 64

// respQueue is the positions of the items of one kind, in order of
// arrival, from the oldest that may still be open: the items leave it
// done, so that finding the newest or the oldest open one is linear in
// the stream.
type respQueue struct {
	pos  []int32
	head int
}

func (q *respQueue) newest(items *chunked.Slice[respItem]) *respItem {
	for len(q.pos) > q.head {
		if it := items.At(int(q.pos[len(q.pos)-1])); !it.done && it.index >= 0 {
			return it
		}
		q.pos = q.pos[:len(q.pos)-1]
	}
	return nil
}

func (q *respQueue) oldest(items *chunked.Slice[respItem]) *respItem {
	for ; q.head < len(q.pos); q.head++ {
		if it := items.At(int(q.pos[q.head])); !it.done && it.index >= 0 {
			return it
		}
	}
	return nil
}

// lookup returns the item at output_index n, nil when there is none.
// Items nearly always arrive with output_index equal to their position.
func (r *responsesDecoder) lookup(n int) *respItem {
	if n < r.items.Len() && int(r.items.At(n).index) == n {
		return r.items.At(n)
	}
	if pos, ok := r.byIndex[int32(n)]; ok {
		return r.items.At(int(pos))
	}
	return nil
}

// open starts the item at output_index n, of kind k, as named by a delta
// (not added): begin adds it. A message or a call has its block from the
// start, a reasoning item where it is known (adopt, close). It fails the
// stream, changing nothing, past maxItems items (an item's int32s could
// overflow) or when a call would need an index past toolcall.MaxIndex.
func (r *responsesDecoder) open(n int, k respKind) (*respItem, error) {
	if r.items.Len() >= maxItems {
		return nil, r.tooManyItems()
	}
	call, slot := 0, -1
	if k == respCall {
		if call = r.callIndex(n); call < 0 {
			return nil, r.b.fail(r.b.eventError(r.doc.Data, 0, fmt.Errorf("%w: a function call at output_index %d, which calls hold up to %d", ErrOutOfOrder, n, toolcall.MaxIndex)))
		}
	}
	pos := int32(r.items.Len())
	if int(pos) != n && r.byIndex == nil {
		r.byIndex = make(map[int32]int32)
		for p := range r.items.Len() {
			r.byIndex[r.items.At(p).index] = int32(p)
		}
	}
	if r.byIndex != nil {
		r.byIndex[int32(n)] = pos
	}
	switch k {
	case respMessage:
		slot = r.b.addBlock(Block{Type: BlockText})
	case respCall:
		slot = r.b.addBlock(Block{Type: BlockToolCall, Call: call})
	}
	r.next = max(r.next, n+1)
	r.byKind[k].pos = append(roomForOne(r.byKind[k].pos), pos)
	it := r.items.Grow()
	*it = respItem{index: int32(n), pos: pos, kind: k, call: int32(call), slot: int32(slot)}
	return it, nil
}

// tooManyItems fails the stream at an event that would open items past
// maxItems.
func (r *responsesDecoder) tooManyItems() error {
	return r.b.fail(r.b.eventError(r.doc.Data, 0, fmt.Errorf("%w: more than %d output items", ErrOutOfOrder, maxItems)))
}

// outputRoom fails the stream, changing nothing, when the terminal
// response's output would add items past maxItems: the walk that adds
// them applies each as it comes, so it must not begin. The items it would
// add are counted only near the bound (an element takes two bytes of
// the array at least), with the walk's own tests (lookup, streamedID).
func (r *responsesDecoder) outputRoom() error {
	out := r.inResp.output
	if !out.OK() || r.doc.Data[out.Start] != '[' || r.items.Len()+(out.End-out.Start)/2 <= maxItems {
		return nil
	}
	seen := r.seenIDs
	added := 0
	elements(r, out, &added, func(added *int, pos, i, depth int) (int, error) {
		if r.doc.Data[i] != '{' {
			return jsonscan.SkipValue(r.doc.Data, i, depth)
		}
		r.resetItem()
		end, err := jsonscan.WalkObject(&r.doc, r, i, depth, (*responsesDecoder).itemMember)
		if err == nil && r.lookup(pos) == nil && !r.streamedID() {
			*added++
		}
		return end, err
	}) // an error is the walk's to report
	r.seenIDs = seen
	if r.items.Len()+added > maxItems {
		return r.tooManyItems()
	}
	return nil
}

// maxItems bounds the output items of one stream, 2^30, as
// toolcall.MaxIndex bounds an output_index. A variable only so that a test
// can reach it.
var maxItems = toolcall.MaxIndex + 1

// callIndex is the assembler index of a new call at output_index n: n, so
// that the calls come out in output order, unless an earlier call had n
// (a server gave two items one output_index); then one past the highest.
// -1, changing nothing, when that is past toolcall.MaxIndex. Calls in
// rising order need no lookup; from the first that is not, callTaken
// holds every index a call has, so each lookup is one.
func (r *responsesDecoder) callIndex(n int) int {
	c := n
	if n <= r.callMax {
		if r.callTaken == nil {
			r.callTaken = make(map[int32]struct{})
			for i := range r.items.Len() {
				if it := r.items.At(i); it.kind == respCall {
					r.callTaken[it.call] = struct{}{}
				}
			}
		}
		if _, ok := r.callTaken[int32(n)]; ok {
			c = r.callMax + 1
		}
	}
	if c > toolcall.MaxIndex {
		return -1
	}
	r.callMax = max(r.callMax, c)
	if r.callTaken != nil {
		r.callTaken[int32(c)] = struct{}{}
	}
	return c
}

// itemKind is the kind of an item of type typ.
func (r *responsesDecoder) itemKind(typ jsonscan.Span) respKind {
	switch {
	case r.doc.Is(typ, "message"):
		return respMessage
	case r.doc.Is(typ, "function_call"):
		return respCall
	case r.doc.Is(typ, "reasoning"):
		return respReasoning
	}
	return respRaw
}

// String names a kind in errors.
func (k respKind) String() string {
	switch k {
	case respMessage:
		return "message"
	case respCall:
		return "function_call"
	case respReasoning:
		return "reasoning"
	}
	return "other"
}

// addItem is output_item.added.
func (r *responsesDecoder) addItem(ev *sse.Event) error {
	k := r.itemKind(r.inItem.typ)
	n, it, err := r.eventItem(ev, k, findNew)
	switch {
	case err != nil:
		return err
	case !r.item.OK():
		return r.b.outOfOrder(ev, 0, "output_item.added without an item")
	}
	// An empty message or reasoning item carries nothing yet: it is no
	// progress for the idle timeout. A call's header is (addFragment), and
	// so is another item: a server tool at work.
	r.b.setProgress(k == respRaw)
	if it != nil {
		switch {
		case !it.added && !it.done && it.kind == k:
			return r.adopt(it) // its deltas came first
		case it.kind == respCall && !it.done:
			return r.b.outOfOrder(ev, 0, fmt.Sprintf("output item %d added again while its call is open", n))
		}
		// Another item at the same output_index: Ollama gives a call the
		// index of the message before it, older vLLM a message the index
		// of the reasoning before it. The old item ends as it stands.
		if !it.done {
			if err := r.closeBare(it); err != nil {
				return err
			}
		}
		it.index = -1
		took := it.took | 1<<it.kind
		it, err = r.begin(n)
		if it != nil {
			it.took = took
		}
		return err
	}
	_, err = r.begin(n)
	return err
}

// adopt completes item it, which deltas (or begin) opened, with the item
// output_item.added gives for it.
func (r *responsesDecoder) adopt(it *respItem) error {
	it.added = true
	id := r.itemID()
	switch {
	case it.slot < 0: // reasoning
		it.slot = int32(r.b.addBlock(Block{Type: "reasoning", ID: id, Raw: slices.Clone(r.doc.Data[r.item.Start:r.item.End])}))
	case r.b.block(int(it.slot)).ID == "":
		r.b.block(int(it.slot)).ID = id
	}
	if it.kind == respCall {
		return r.header(it, r.inItem.callID, r.inItem.name)
	}
	return nil
}

// begin opens item n from the item members just read.
func (r *responsesDecoder) begin(n int) (*respItem, error) {
	it, err := r.open(n, r.itemKind(r.inItem.typ))
	if err != nil {
		return nil, err
	}
	switch {
	case it.kind == respCall && r.doc.IsString(r.inItem.args):
		it.start = string(r.doc.Str(r.arena[:0], r.inItem.args))
	case it.kind == respRaw:
		t := "item"
		if r.doc.IsString(r.inItem.typ) {
			t = string(r.doc.Str(nil, r.inItem.typ))
		}
		it.slot = int32(r.b.addBlock(Block{Type: t, ID: r.itemID(), Raw: slices.Clone(r.doc.Data[r.item.Start:r.item.End])}))
	}
	if err := r.adopt(it); err != nil {
		return nil, err
	}
	return it, nil
}

// itemID is the id of the item just read, "" for none.
func (r *responsesDecoder) itemID() string { return r.doc.Text(r.inItem.id) }

// doneItem is output_item.done.
func (r *responsesDecoder) doneItem(ev *sse.Event) error {
	k := r.itemKind(r.inItem.typ)
	n, it, err := r.eventItem(ev, k, findOldest)
	other := it != nil && r.inItem.typ.OK() && k != it.kind // another item's type
	switch {
	case err != nil:
		return err
	case !r.item.OK():
		return r.b.outOfOrder(ev, 0, "output_item.done without an item")
	case it != nil && (it.done || other) && it.took&(1<<k) != 0:
		return nil // late, for the item that gave up its index: it stands as it was ended
	case it != nil && it.done:
		return r.b.outOfOrder(ev, 0, fmt.Sprintf("output item %d done twice", n))
	case other:
		return r.b.outOfOrder(ev, 0, fmt.Sprintf("output item %d added as %v, done as another type", n, it.kind))
	}
	// As for output_item.added: text or arguments it fills in count
	// (sink.text, addFragment), an empty message or reasoning item not.
	r.b.setProgress(k == respRaw)
	return r.close(n, it)
}

// close ends item n (it, nil when it was never opened) with the item whose
// members were just read, at r.item: its text fills the parts no delta
// did, its full arguments win, its whole JSON is the state kept.
func (r *responsesDecoder) close(n int, it *respItem) error {
	if it == nil {
		var err error
		if it, err = r.begin(n); err != nil {
			return err
		}
	}
	it.done, it.added = true, true
	switch it.kind {
	case respMessage:
		if blk := r.b.block(int(it.slot)); blk.ID == "" {
			blk.ID = r.itemID() // opened by a delta
		}
		return elements(r, r.inItem.content, respParts{r, it, false}, respParts.part)
	case respCall:
		if err := r.header(it, r.inItem.callID, r.inItem.name); err != nil {
			return err
		}
		if r.doc.IsString(r.inItem.args) && r.inItem.args.End-r.inItem.args.Start > 2 {
			return r.fullArguments(it, r.inItem.args)
		}
		return r.startArguments(it)
	case respReasoning:
		summary, content := r.inItem.summary, r.inItem.content
		if err := elements(r, summary, respParts{r, it, true}, respParts.part); err != nil {
			return err
		}
		if err := elements(r, content, respParts{r, it, false}, respParts.part); err != nil {
			return err
		}
	}
	raw := slices.Clone(r.doc.Data[r.item.Start:r.item.End])
	if it.slot < 0 {
		// Opened by a delta: its block goes where the item is known.
		it.slot = int32(r.b.addBlock(Block{Type: "reasoning", ID: r.itemID()}))
	}
	r.b.block(int(it.slot)).Raw = raw
	return nil
}

// closeBare ends an item the terminal event found still open and had
// nothing more for: a call keeps the arguments it has, another item the
// state its output_item.added gave.
func (r *responsesDecoder) closeBare(it *respItem) error {
	it.done = true
	return r.startArguments(it) // none but a call's
}

// elements walks the validated array at s, if it is one, with fn.
func elements[T any](r *responsesDecoder, s jsonscan.Span, t T, fn jsonscan.ElemFunc[T]) error {
	if !s.OK() || r.doc.Data[s.Start] != '[' {
		return nil
	}
	_, err := jsonscan.WalkArray(&r.doc, t, s.Start, 0, fn)
	return err
}

// respParts is the content (or summary) elements of item it, which close
// walks: each element is a part of its own.
type respParts struct {
	r       *responsesDecoder
	it      *respItem
	summary bool
}

// part fills part pos of the item from its element: a message's
// output_text (or untyped) or refusal element, a reasoning item's text.
func (e respParts) part(pos, i, depth int) (int, error) {
	r := e.r
	r.inPart.typ, r.inPart.text, r.inPart.refusal = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	var end int
	var err error
	if r.doc.Data[i] == '{' {
		end, err = jsonscan.WalkObject(&r.doc, r, i, depth, (*responsesDecoder).partMember)
	} else {
		end, err = jsonscan.SkipValue(r.doc.Data, i, depth)
	}
	k, s := inContent, r.inPart.text
	switch {
	case err != nil:
		return end, err
	case e.it.kind == respReasoning:
		r.reasonBreak = true
		k = inReasoning
	case r.doc.Is(r.inPart.typ, "refusal"):
		k, s = inRefusal, r.inPart.refusal
	case r.doc.Is(r.inPart.typ, "output_text"), !r.inPart.typ.OK():
	default:
		return end, nil
	}
	if !r.unfilled(e.it, k, e.summary, pos, s) {
		return end, nil
	}
	return end, r.appendText(e.it, k, e.summary, pos, s)
}
