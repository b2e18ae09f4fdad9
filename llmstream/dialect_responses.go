package llmstream

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"unsafe"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the OpenAI Responses dialect (DialectResponses): the decoder
// of its event stream and its error bodies. The request encoder is in
// encode_responses.go.
//
// A stream is response.created and response.in_progress, then output items
// — each opened by response.output_item.added and closed by
// response.output_item.done, with its deltas and *.done events between,
// all naming the item by output_index — then one terminal event:
// response.completed, response.incomplete (a length or content-filter stop,
// not an error) or response.failed; an "error" event fails the stream too,
// in either of its two shapes. There is no [DONE]: the end of the body
// before a terminal event is a truncation.
//
// The rules this decoder keeps:
//   - Items are followed by output_index, never by item_id, which one proxy
//     rotates on every event. Where a server sends no output_index
//     (llama.cpp), by order: see eventItem.
//   - message items give Content (output_text parts) and Refusal (refusal
//     parts); their phase and annotations change nothing.
//   - function_call items are the calls: call_id is the call's ID, the name
//     comes with the item, the arguments with the deltas. When
//     function_call_arguments.done or output_item.done carries the full
//     arguments (non-empty), they win over the deltas (one server dropped
//     streamed deltas).
//   - reasoning items give Reasoning (summary and reasoning text; a part
//     after a part event — *_part.added, or a *.done closing the one
//     before — or of another item starts with a blank line) and are kept
//     whole — id, summary, encrypted_content — as continuity state, in
//     their place. A new part index alone starts no paragraph: vLLM
//     numbered every delta as a part of its own.
//   - Every other item (web_search_call, custom_tool_call, shell_call,
//     apply_patch_call, mcp_call, ...) is kept whole as continuity state; it
//     is never a call: never run, never counted.
//   - The full text of *.done events (output_text.done, content_part.done,
//     reasoning_summary_text.done, output_item.done, ...) is used only for
//     an item no delta gave text of that kind (answer, refusal, summary,
//     reasoning text) to, one part once: the part indexes of a streamed
//     item are not trusted (vLLM closed its parts under yet other
//     indexes, and the text came out four times).
//   - The terminal response's output closes what the stream left open, and
//     adds the items it never streamed, by the same rules as
//     output_item.done.
//   - A delta for an item that was never added opens it; its
//     output_item.added, when it comes, names it. A call opened so must be
//     named (added, done, or in the terminal output) by the end.
//   - An item added at an output_index another item has ends that item as
//     it stands and takes the index (Ollama gives its first call the
//     index of the message before it; older vLLM its message the index of
//     the reasoning before it). The calls go to the assembler by
//     output_index, a reused one by the next free index.
//   - These fail with [ErrOutOfOrder]: an item added over a call still
//     open, a call never named, anything for an item after its
//     output_item.done, a delta of the wrong kind for its item, and a
//     second function_call_arguments.done for a call.
//   - obfuscation, sequence_number, logprobs and unknown members and events
//     are ignored; data "[DONE]", which some proxies append, is skipped.

// DefaultResponsesBaseURL is the base URL of a Responses [Client] when none
// is set.
const DefaultResponsesBaseURL = "https://api.openai.com/v1"

type responsesProtocol struct{}

func (responsesProtocol) defaultBase() string  { return DefaultResponsesBaseURL }
func (responsesProtocol) providerName() string { return "openai" }
func (responsesProtocol) emptyPath() string    { return "/v1" }
func (responsesProtocol) doneSentinel() string { return "" }

func (responsesProtocol) endpoint(base *url.URL, _ string) (string, error) {
	return withSuffix(base, "/responses"), nil
}

func (responsesProtocol) header(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
}

func (responsesProtocol) newDecoder(b *Bridge) decoder {
	return &responsesDecoder{b: b, callMax: -1, reasonAt: -1}
}

// parseError reads OpenAI's error body {"error":{"message","type","param",
// "code"}} and both shapes of the in-stream error event: the documented
// flat one, {"type":"error","code","message","param"}, and the nested one
// the API sends in practice, {"type":"error","error":{"type","code",
// "message","param"}}. The flat event's "type" names the event, not the
// error, so it is not kept.
func (responsesProtocol) parseError(raw []byte, status int) (*APIError, bool) {
	e, ok := parseProviderError(raw, status)
	if !ok {
		return nil, false
	}
	if e.Type == "error" {
		e.Type = ""
	}
	e.classify()
	return e, true
}

// respKind is what an output item is to the message.
type respKind uint8

const (
	respMessage   respKind = iota + 1 // text and refusal
	respCall                          // a function call
	respReasoning                     // reasoning, kept whole
	respRaw                           // any other item, kept whole
)

// respItem is one output item, from the first event that names its
// output_index.
type respItem struct {
	index    int   // output_index; -1 once another item took it
	pos      int   // its position in responsesDecoder.items
	took     uint8 // the kinds (1<<kind) of the items it took its output_index from
	kind     respKind
	call     int                   // a call's index in the assembler (see callIndex)
	slot     int                   // its Block in Bridge.blocks, -1 for none yet
	added    bool                  // output_item.added (or output_item.done) named it; false while only deltas did
	done     bool                  // closed: output_item.done, or the terminal response
	deltas   bool                  // a call got argument deltas
	argsEnd  bool                  // a call got function_call_arguments.done
	streamed respText              // the kinds of text deltas gave it
	parts    []respPart            // the parts that have text, up to maxListedParts
	many     map[respPart]struct{} // all of them, past that
	start    []byte                // a call's arguments as output_item.added carried them

	// The text the deltas of one part last appended, while nothing else
	// came after it in its buffer: a *.done with more text completes it.
	run respRun
}

// respRun is where the deltas of one part of an item sit in a buffer.
type respRun struct {
	buf        bufKind
	part       respPart
	start, end int
	ok         bool
}

// respText is a kind of an item's text, as a bit: its answer text,
// refusal, reasoning summary, or reasoning text.
type respText uint8

const (
	respTextContent respText = 1 << iota
	respTextRefusal
	respTextSummary
	respTextReasoning
)

// textKind is the kind of text buffer k holds, summary parts apart.
func textKind(k bufKind, summary bool) respText {
	switch {
	case k == inRefusal:
		return respTextRefusal
	case k == inReasoning && summary:
		return respTextSummary
	case k == inReasoning:
		return respTextReasoning
	}
	return respTextContent
}

// respPart names a part of an item that has text: a content part
// (content_index) or a reasoning summary part (summary_index).
type respPart struct {
	summary bool
	index   int
}

// responsesDecoder reads Responses events into a Bridge.
type responsesDecoder struct {
	b         *Bridge
	doc       jsonscan.Doc
	items     []respItem
	byIndex   map[int]int      // output_index → position in items, once they stop being equal
	callMax   int              // the highest index a call has in the assembler, -1 for none
	callTaken map[int]struct{} // the indices calls have, once one came out of order (see callIndex)
	next      int              // one past the highest output_index so far

	// The items of each kind in order of arrival, for the servers that
	// send no output_index (see eventItem).
	byKind [respRaw + 1]respQueue

	// The reasoning text last appended came from items[reasonAt]; a
	// reasoning part after it starts a new paragraph only when it is of
	// another item, or a part event (added or done) came between them.
	reasonAt    int
	reasonBreak bool
	arena       []byte // decoded strings of the current event
	name        string // the SSE event name, for data without "type"

	// The current event's members, as spans of doc.data, read in the one
	// walk that validates it: the top level, then inside "item" (inItem),
	// "part" (inPart) and "response" (inResp). Content and summary elements of
	// an item are read later (inElem), from data already validated.
	typ, outIndex, contentIndex, summaryIndex, delta, text, args, refusal, callName jsonscan.Span
	item, part, resp                                                                jsonscan.Span
	inItem                                                                          struct{ typ, id, callID, name, args, content, summary jsonscan.Span }
	inPart                                                                          struct{ typ, text, refusal jsonscan.Span }
	inResp                                                                          struct{ status, reason, usage, err, output jsonscan.Span }
	inElem                                                                          struct{ typ, text, refusal jsonscan.Span }

	cur   *respItem // the item close is filling, for the element walkers
	broke bool      // appendText began a new paragraph of reasoning
}

func (r *responsesDecoder) complete() bool { return r.b.done }

func (r *responsesDecoder) event(ev *sse.Event) error {
	b := r.b
	if len(ev.Data) == 0 || string(ev.Data) == "[DONE]" {
		return nil
	}
	r.typ, r.outIndex, r.contentIndex, r.summaryIndex, r.delta, r.text, r.args, r.refusal, r.callName = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	r.item, r.part, r.resp = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	r.resetItem()
	r.inPart.typ, r.inPart.text, r.inPart.refusal = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	r.inResp.status, r.inResp.reason, r.inResp.usage, r.inResp.err, r.inResp.output = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	if err := readEvent(b, &r.doc, r, ev, (*responsesDecoder).member); err != nil {
		return err
	}
	r.name = ev.Type
	return r.apply(ev)
}

func (r *responsesDecoder) resetItem() {
	r.inItem.typ, r.inItem.id, r.inItem.callID, r.inItem.name, r.inItem.args, r.inItem.content, r.inItem.summary = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
}

// member records the top-level members the decoder reads; every value is
// validated on the way.
func (r *responsesDecoder) member(key []byte, i, depth int) (int, error) {
	d := r.doc.Data
	if d[i] == '{' {
		var fn jsonscan.MemberFunc[*responsesDecoder]
		var at *jsonscan.Span
		switch string(key) {
		case "item":
			fn, at = (*responsesDecoder).itemMember, &r.item
		case "part":
			fn, at = (*responsesDecoder).partMember, &r.part
		case "response":
			fn, at = (*responsesDecoder).responseMember, &r.resp
		}
		if fn != nil {
			end, err := jsonscan.WalkObject(&r.doc, r, i, depth, fn)
			*at = jsonscan.Span{Start: i, End: end}
			return end, err
		}
	}
	s, end, err := r.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		r.typ = s
	case "output_index":
		r.outIndex = s
	case "content_index":
		r.contentIndex = s
	case "summary_index":
		r.summaryIndex = s
	case "delta":
		r.delta = s
	case "text":
		r.text = s
	case "arguments":
		r.args = s
	case "refusal":
		r.refusal = s
	case "name":
		r.callName = s
	}
	return end, err
}

func (r *responsesDecoder) itemMember(key []byte, i, depth int) (int, error) {
	s, end, err := r.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		r.inItem.typ = s
	case "id":
		r.inItem.id = s
	case "call_id":
		r.inItem.callID = s
	case "name":
		r.inItem.name = s
	case "arguments":
		r.inItem.args = s
	case "content":
		r.inItem.content = s
	case "summary":
		r.inItem.summary = s
	}
	return end, err
}

func (r *responsesDecoder) partMember(key []byte, i, depth int) (int, error) {
	s, end, err := r.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		r.inPart.typ = s
	case "text":
		r.inPart.text = s
	case "refusal":
		r.inPart.refusal = s
	}
	return end, err
}

func (r *responsesDecoder) responseMember(key []byte, i, depth int) (int, error) {
	if string(key) == "incomplete_details" && r.doc.Data[i] == '{' {
		return jsonscan.WalkObject(&r.doc, r, i, depth, (*responsesDecoder).incompleteMember)
	}
	s, end, err := r.doc.ValueSpan(i, depth)
	switch string(key) {
	case "status":
		r.inResp.status = s
	case "usage":
		r.inResp.usage = s
	case "error":
		r.inResp.err = s
	case "output":
		r.inResp.output = s
	}
	return end, err
}

func (r *responsesDecoder) incompleteMember(key []byte, i, depth int) (int, error) {
	s, end, err := r.doc.ValueSpan(i, depth)
	if string(key) == "reason" {
		r.inResp.reason = s
	}
	return end, err
}

func (r *responsesDecoder) contentMember(key []byte, i, depth int) (int, error) {
	s, end, err := r.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		r.inElem.typ = s
	case "text":
		r.inElem.text = s
	case "refusal":
		r.inElem.refusal = s
	}
	return end, err
}

// eventType is the event's type: its data's "type", else (a proxy may drop
// it) the SSE event name. The string aliases the event's data.
func (r *responsesDecoder) eventType() string {
	if !r.doc.IsString(r.typ) {
		return r.name
	}
	raw := r.doc.Data[r.typ.Start+1 : r.typ.End-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		r.arena = r.doc.Str(r.arena[:0], r.typ)
		raw = r.arena
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

func (r *responsesDecoder) apply(ev *sse.Event) error {
	switch r.eventType() {
	case "response.output_text.delta":
		return r.textDelta(ev, respMessage, inContent, false, r.contentIndex)
	case "response.function_call_arguments.delta":
		return r.argsDelta(ev)
	case "response.reasoning_summary_text.delta":
		return r.textDelta(ev, respReasoning, inReasoning, true, r.summaryIndex)
	case "response.reasoning_text.delta":
		return r.textDelta(ev, respReasoning, inReasoning, false, r.contentIndex)
	case "response.refusal.delta":
		return r.textDelta(ev, respMessage, inRefusal, false, r.contentIndex)
	case "response.output_item.added":
		return r.addItem(ev)
	case "response.reasoning_summary_part.added", "response.reasoning_part.added", "response.content_part.added":
		r.reasonBreak = true
		return nil
	case "response.output_item.done":
		return r.doneItem(ev)
	case "response.output_text.done":
		return r.doneText(ev, respMessage, inContent, false, r.contentIndex, r.text)
	case "response.refusal.done":
		return r.doneText(ev, respMessage, inRefusal, false, r.contentIndex, r.refusal)
	case "response.reasoning_summary_text.done":
		return r.doneText(ev, respReasoning, inReasoning, true, r.summaryIndex, r.text)
	case "response.reasoning_summary_part.done":
		return r.doneText(ev, respReasoning, inReasoning, true, r.summaryIndex, r.inPart.text)
	case "response.reasoning_text.done":
		return r.doneText(ev, respReasoning, inReasoning, false, r.contentIndex, r.text)
	case "response.content_part.done":
		return r.donePart(ev)
	case "response.function_call_arguments.done":
		return r.argsDone(ev)
	case "response.completed", "response.incomplete":
		return r.terminal(ev)
	case "response.failed":
		return r.failed()
	case "error":
		return r.b.fail(r.b.apiError(ev.Data))
	}
	return nil // created, in_progress, part added, annotations, hosted tools' progress, event types added later
}

// index reads the validated value at s as an output, content or summary
// index: a non-negative integer up to toolcall.MaxIndex.
func (r *responsesDecoder) index(s jsonscan.Span) (int, bool) {
	if !s.OK() || r.doc.Data[s.Start] < '0' || r.doc.Data[s.Start] > '9' {
		return 0, false
	}
	n, ok := jsonscan.ParseIndex(r.doc.Data[s.Start:s.End])
	return n, ok && n <= toolcall.MaxIndex
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
		it = q.newest(r.items)
	case findOldest:
		it = r.doneMatch(q)
	}
	if it == nil {
		return r.next, nil, nil
	}
	return it.index, it, nil
}

// doneMatch is the open item of q that output_item.done names: the one
// with its call_id or id among the maxDoneMatch oldest, else the oldest.
func (r *responsesDecoder) doneMatch(q *respQueue) *respItem {
	oldest := q.oldest(r.items)
	if oldest == nil || !r.item.OK() {
		return oldest
	}
	var callID string
	if r.doc.IsString(r.inItem.callID) {
		callID = string(r.doc.Str(nil, r.inItem.callID))
	}
	id := r.itemID()
	if callID == "" && id == "" {
		return oldest
	}
	for _, pos := range q.pos[q.head:min(len(q.pos), q.head+maxDoneMatch)] {
		it := &r.items[pos]
		switch {
		case it.done || it.index < 0:
		case it.slot >= 0 && id != "" && r.b.block(it.slot).ID == id:
			return it
		case it.kind == respCall && callID != "":
			if p, _ := r.b.assembler().Preview(it.call); p.ID == callID {
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
	pos  []int
	head int
}

func (q *respQueue) newest(items []respItem) *respItem {
	for len(q.pos) > q.head {
		if it := &items[q.pos[len(q.pos)-1]]; !it.done && it.index >= 0 {
			return it
		}
		q.pos = q.pos[:len(q.pos)-1]
	}
	return nil
}

func (q *respQueue) oldest(items []respItem) *respItem {
	for ; q.head < len(q.pos); q.head++ {
		if it := &items[q.pos[q.head]]; !it.done && it.index >= 0 {
			return it
		}
	}
	return nil
}

// lookup returns the item at output_index n, nil when there is none.
// Items nearly always arrive with output_index equal to their position.
func (r *responsesDecoder) lookup(n int) *respItem {
	if n < len(r.items) && r.items[n].index == n {
		return &r.items[n]
	}
	if pos, ok := r.byIndex[n]; ok {
		return &r.items[pos]
	}
	return nil
}

// open starts the item at output_index n, of kind k, as named by a delta
// (not added): begin adds it.
func (r *responsesDecoder) open(n int, k respKind) *respItem {
	pos := len(r.items)
	if pos != n && r.byIndex == nil {
		r.byIndex = make(map[int]int)
		for p := range r.items {
			r.byIndex[r.items[p].index] = p
		}
	}
	if r.byIndex != nil {
		r.byIndex[n] = pos
	}
	call := 0
	if k == respCall {
		call = r.callIndex(n)
	}
	r.next = max(r.next, n+1)
	r.byKind[k].pos = append(r.byKind[k].pos, pos)
	r.items = append(r.items, respItem{index: n, pos: pos, kind: k, call: call, slot: -1})
	return &r.items[pos]
}

// callIndex is the assembler index of a new call at output_index n: n, so
// that the calls come out in output order, unless an earlier call had n
// (a server gave two items one output_index); then one past the highest.
// Calls in rising order need no lookup; from the first that is not,
// callTaken holds every index a call has, so each lookup is one.
func (r *responsesDecoder) callIndex(n int) int {
	c := n
	if n > r.callMax {
		r.callMax = n
	} else {
		if r.callTaken == nil {
			r.callTaken = make(map[int]struct{})
			for i := range r.items {
				if r.items[i].kind == respCall {
					r.callTaken[r.items[i].call] = struct{}{}
				}
			}
		}
		if _, ok := r.callTaken[n]; ok {
			r.callMax++
			c = r.callMax
		}
	}
	if r.callTaken != nil {
		r.callTaken[c] = struct{}{}
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

// maxListedParts is how many parts of an item are looked up in a list:
// items have one or two; past it a map keeps a stream that opens a part
// per delta linear.
const maxListedParts = 8

// claim marks a part of it as having text and reports whether it had none
// before.
func (it *respItem) claim(summary bool, index int) bool {
	p := respPart{summary, index}
	if it.has(summary, index) {
		return false
	}
	switch {
	case it.many != nil:
		it.many[p] = struct{}{}
	case len(it.parts) == maxListedParts:
		it.many = make(map[respPart]struct{}, 2*maxListedParts)
		for _, q := range it.parts {
			it.many[q] = struct{}{}
		}
		it.many[p] = struct{}{}
	default:
		it.parts = append(it.parts, p)
	}
	return true
}

// has reports whether a part of it has text.
func (it *respItem) has(summary bool, index int) bool {
	p := respPart{summary, index}
	if it.many != nil {
		_, ok := it.many[p]
		return ok
	}
	for _, q := range it.parts {
		if q == p {
			return true
		}
	}
	return false
}

// textItem is the item a text event names, opened if it never was; nil
// with the error when the event is out of order.
func (r *responsesDecoder) textItem(ev *sse.Event, k respKind, find respFind) (*respItem, error) {
	n, it, err := r.eventItem(ev, k, find)
	if err != nil {
		return nil, err
	}
	switch {
	case it == nil:
		it = r.open(n, k)
		if k == respMessage {
			it.slot = r.b.blockCount()
			r.b.addBlock(Block{Type: BlockText})
		}
	case it.done:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("a text event for output item %d after its output_item.done", n))
	case it.kind != k:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("%s text for output item %d, a %v item", k, n, it.kind))
	}
	return it, nil
}

// textDelta appends a text, refusal or reasoning delta.
func (r *responsesDecoder) textDelta(ev *sse.Event, k respKind, buf bufKind, summary bool, part jsonscan.Span) error {
	p, err := r.partIndex(ev, part)
	if err != nil {
		return err
	}
	it, err := r.textItem(ev, k, findNewest)
	if err != nil {
		return err
	}
	if !r.doc.IsString(r.delta) || r.delta.End-r.delta.Start == 2 {
		return nil // no text
	}
	it.streamed |= textKind(buf, summary)
	before := len(*r.b.buffer(buf))
	rp := respPart{summary, p}
	if !(it.run.ok && it.run.buf == buf && it.run.part == rp && it.run.end == before) {
		it.run = respRun{buf: buf, part: rp, start: before, ok: true}
	}
	r.broke = false
	if err := r.appendText(it, buf, summary, p, r.delta); err != nil {
		return err
	}
	if r.broke && it.run.start == before {
		it.run.start += len("\n\n") // the paragraph break is not the part's text
	}
	it.run.end = len(*r.b.buffer(buf))
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
	if it.claim(summary, p) && k == inReasoning && len(b.reasoning) > 0 && (r.reasonAt != it.pos || r.reasonBreak) {
		r.broke = true
		if err := b.appendRaw(inReasoning, "\n\n"); err != nil {
			return err
		}
	}
	if k == inReasoning {
		r.reasonAt, r.reasonBreak = it.pos, false
	}
	before := len(b.content)
	if err := b.text(k, &r.doc, s); err != nil {
		return err
	}
	if it.slot >= 0 && k == inContent {
		b.block(it.slot).Bytes += len(b.content) - before
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
	it, err := r.textItem(ev, k, findOldest)
	if err != nil {
		return err
	}
	if it.streamed&textKind(buf, summary) == 0 && !it.has(summary, p) && r.doc.IsString(text) && text.End-text.Start > 2 {
		err = r.appendText(it, buf, summary, p, text)
	} else if r.doc.IsString(text) {
		err = r.completeText(it, buf, respPart{summary, p}, text)
	}
	if buf == inReasoning {
		r.reasonBreak = true // the part is closed
	}
	return err
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
	run := it.run
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
		b.block(it.slot).Bytes += len(*buf) - before
	}
	it.run.end = len(*buf)
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

// argsDelta hands an argument delta to the assembler.
func (r *responsesDecoder) argsDelta(ev *sse.Event) error {
	it, err := r.callItem(ev, findNewest)
	if err != nil {
		return err
	}
	if !r.doc.IsString(r.delta) {
		return nil
	}
	r.arena = r.doc.Str(r.arena[:0], r.delta)
	if len(r.arena) == 0 {
		return nil
	}
	it.deltas = true
	// Not copied: Add copies the arguments into its call and keeps nothing
	// of the fragment.
	args := unsafe.String(unsafe.SliceData(r.arena), len(r.arena))
	if err := r.b.addFragment(toolcall.Fragment{Index: it.call, Arguments: args}); err != nil {
		return r.b.fail(err)
	}
	return nil
}

// callItem is the open function_call item the event names. Arguments for
// an output_index nothing named yet open a call there (one server's
// argument deltas may overtake their output_item.added), which the
// stream must name before its end.
func (r *responsesDecoder) callItem(ev *sse.Event, find respFind) (*respItem, error) {
	n, it, err := r.eventItem(ev, respCall, find)
	switch {
	case err != nil:
		return nil, err
	case it == nil:
		it = r.open(n, respCall)
		it.slot = r.b.blockCount()
		r.b.addBlock(Block{Type: BlockToolCall, Call: it.call})
		return it, nil
	case it.kind != respCall:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("function-call arguments for output item %d, a %v item", n, it.kind))
	case it.done:
		return nil, r.b.outOfOrder(ev, 0, fmt.Sprintf("function-call arguments for output item %d after its output_item.done", n))
	}
	return it, nil
}

// argsDone is function_call_arguments.done: its full arguments win.
func (r *responsesDecoder) argsDone(ev *sse.Event) error {
	it, err := r.callItem(ev, findOldest)
	if err != nil {
		return err
	}
	if it.argsEnd {
		// Each one may restart every call (see fullArguments): once.
		return r.b.outOfOrder(ev, 0, fmt.Sprintf("function_call_arguments.done twice for output item %d", it.index))
	}
	it.argsEnd = true
	if r.doc.IsString(r.callName) {
		if err := r.header(it, jsonscan.NoSpan, r.callName); err != nil {
			return err
		}
	}
	return r.fullArguments(it, r.args)
}

// header gives the call the id and name it has none of yet. Only what is
// missing is sent: an id that changed at a call's end must not read as a
// new call at the same index.
func (r *responsesDecoder) header(it *respItem, callID, name jsonscan.Span) error {
	f := toolcall.Fragment{Index: it.call, Type: "function"}
	p, started := r.b.assembler().Preview(it.call)
	if r.doc.IsString(callID) && p.ID == "" {
		f.ID = string(r.doc.Str(nil, callID))
	}
	if r.doc.IsString(name) && p.Name == "" {
		f.Name = string(r.doc.Str(nil, name))
	}
	if started && f.ID == "" && f.Name == "" {
		return nil
	}
	if err := r.b.addFragment(f); err != nil {
		return r.b.fail(err)
	}
	return nil
}

// fullArguments makes the JSON string at s, when non-empty, the call's
// arguments, whatever the deltas brought.
func (r *responsesDecoder) fullArguments(it *respItem, s jsonscan.Span) error {
	if !r.doc.IsString(s) || s.End-s.Start == 2 {
		return nil
	}
	b := r.b
	r.arena = r.doc.Str(r.arena[:0], s)
	p, _ := b.assembler().Preview(it.call)
	switch {
	case bytes.Equal(p.Partial, r.arena):
		return nil
	case len(p.Partial) == 0:
		if err := b.addFragment(toolcall.Fragment{Index: it.call, Arguments: string(r.arena)}); err != nil {
			return b.fail(err)
		}
		return nil
	}
	// The deltas said something else: start the calls over, this one with
	// the full arguments. Rare, so it may cost a copy of every call.
	fresh := b.newAssembler()
	for i := range r.items {
		c := &r.items[i]
		if c.kind != respCall {
			continue
		}
		q, ok := b.asm.Preview(c.call)
		if !ok {
			continue
		}
		f := toolcall.Fragment{Index: c.call, ID: q.ID, Name: q.Name, Type: "function", Arguments: string(q.Partial)}
		if c == it {
			f.Arguments = string(r.arena)
		}
		if err := fresh.Add(f); err != nil {
			return b.fail(err)
		}
	}
	b.swapAssembler(fresh)
	b.progress()
	return nil
}

// addItem is output_item.added.
func (r *responsesDecoder) addItem(ev *sse.Event) error {
	n, it, err := r.eventItem(ev, r.itemKind(r.inItem.typ), findNew)
	switch {
	case err != nil:
		return err
	case !r.item.OK():
		return r.b.outOfOrder(ev, 0, "output_item.added without an item")
	}
	// An empty message or reasoning item carries nothing yet: it is no
	// progress for the idle timeout. A call's header is (addFragment), and
	// so is another item: a server tool at work.
	r.b.setProgress(r.itemKind(r.inItem.typ) == respRaw)
	if it != nil {
		switch {
		case !it.added && !it.done && it.kind == r.itemKind(r.inItem.typ):
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

// adopt completes an item that deltas opened with the item
// output_item.added gives for it.
func (r *responsesDecoder) adopt(it *respItem) error {
	it.added = true
	id := r.itemID()
	switch {
	case it.slot < 0: // reasoning
		it.slot = r.b.blockCount()
		r.b.addBlock(Block{Type: "reasoning", ID: id, Raw: slices.Clone(r.doc.Data[r.item.Start:r.item.End])})
	case r.b.block(it.slot).ID == "":
		r.b.block(it.slot).ID = id
	}
	if it.kind == respCall {
		return r.header(it, r.inItem.callID, r.inItem.name)
	}
	return nil
}

// begin opens item n from the item members just read and records its
// block.
func (r *responsesDecoder) begin(n int) (*respItem, error) {
	b := r.b
	it := r.open(n, r.itemKind(r.inItem.typ))
	it.added = true
	it.slot = b.blockCount()
	id := r.itemID()
	switch it.kind {
	case respMessage:
		b.addBlock(Block{Type: BlockText, ID: id})
	case respCall:
		b.addBlock(Block{Type: BlockToolCall, Call: it.call, ID: id})
		if r.doc.IsString(r.inItem.args) {
			it.start = r.doc.Str(nil, r.inItem.args)
		}
		if err := r.header(it, r.inItem.callID, r.inItem.name); err != nil {
			return nil, err
		}
	default:
		t := "reasoning"
		if it.kind == respRaw {
			t = "item"
			if r.doc.IsString(r.inItem.typ) {
				t = string(r.doc.Str(nil, r.inItem.typ))
			}
		}
		b.addBlock(Block{Type: t, ID: id, Raw: slices.Clone(r.doc.Data[r.item.Start:r.item.End])})
	}
	return it, nil
}

// itemID is the id of the item just read, "" for none.
func (r *responsesDecoder) itemID() string {
	if !r.doc.IsString(r.inItem.id) {
		return ""
	}
	return string(r.doc.Str(nil, r.inItem.id))
}

// doneItem is output_item.done.
func (r *responsesDecoder) doneItem(ev *sse.Event) error {
	n, it, err := r.eventItem(ev, r.itemKind(r.inItem.typ), findOldest)
	switch {
	case err != nil:
		return err
	case !r.item.OK():
		return r.b.outOfOrder(ev, 0, "output_item.done without an item")
	case it != nil && (it.done || r.inItem.typ.OK() && r.itemKind(r.inItem.typ) != it.kind) && it.took&(1<<r.itemKind(r.inItem.typ)) != 0:
		return nil // late, for the item that gave up its index: it stands as it was ended
	case it != nil && it.done:
		return r.b.outOfOrder(ev, 0, fmt.Sprintf("output item %d done twice", n))
	case it != nil && r.inItem.typ.OK() && r.itemKind(r.inItem.typ) != it.kind:
		return r.b.outOfOrder(ev, 0, fmt.Sprintf("output item %d added as %v, done as another type", n, it.kind))
	}
	// As for output_item.added: text or arguments it fills in count
	// (Bridge.text, addFragment), an empty message or reasoning item not.
	r.b.setProgress(r.itemKind(r.inItem.typ) == respRaw)
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
	r.cur = it
	defer func() { r.cur = nil }()
	switch it.kind {
	case respMessage:
		if blk := r.b.block(it.slot); blk.ID == "" {
			blk.ID = r.itemID() // opened by a delta
		}
		return r.elements(r.inItem.content, (*responsesDecoder).messageContent)
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
		if err := r.elements(summary, (*responsesDecoder).reasoningSummary); err != nil {
			return err
		}
		if err := r.elements(content, (*responsesDecoder).reasoningContent); err != nil {
			return err
		}
	}
	raw := slices.Clone(r.doc.Data[r.item.Start:r.item.End])
	if it.slot < 0 {
		// Opened by a delta: its block goes where the item is known.
		it.slot = r.b.blockCount()
		r.b.addBlock(Block{Type: "reasoning", ID: r.itemID()})
	}
	r.b.block(it.slot).Raw = raw
	return nil
}

// closeBare ends an item the terminal event found still open and had
// nothing more for: a call keeps the arguments it has, another item the
// state its output_item.added gave.
func (r *responsesDecoder) closeBare(it *respItem) error {
	it.done = true
	if it.kind == respCall {
		return r.startArguments(it)
	}
	return nil
}

// startArguments takes the arguments output_item.added carried, for a call
// that got neither deltas nor full arguments.
func (r *responsesDecoder) startArguments(it *respItem) error {
	if it.deltas || len(it.start) == 0 {
		return nil
	}
	if p, _ := r.b.assembler().Preview(it.call); len(p.Partial) > 0 {
		return nil
	}
	if err := r.b.addFragment(toolcall.Fragment{Index: it.call, Arguments: string(it.start)}); err != nil {
		return r.b.fail(err)
	}
	return nil
}

// elements walks the validated array at s, if it is one, with fn.
func (r *responsesDecoder) elements(s jsonscan.Span, fn jsonscan.ElemFunc[*responsesDecoder]) error {
	if !s.OK() || r.doc.Data[s.Start] != '[' {
		return nil
	}
	_, err := jsonscan.WalkArray(&r.doc, r, s.Start, 0, fn)
	return err
}

// contentElem reads the members of a content or summary element.
func (r *responsesDecoder) contentElem(i, depth int) (int, error) {
	r.inElem.typ, r.inElem.text, r.inElem.refusal = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	if r.doc.Data[i] != '{' {
		return jsonscan.SkipValue(r.doc.Data, i, depth)
	}
	return jsonscan.WalkObject(&r.doc, r, i, depth, (*responsesDecoder).contentMember)
}

// messageContent fills content part pos of the message item r.cur.
func (r *responsesDecoder) messageContent(pos, i, depth int) (int, error) {
	end, err := r.contentElem(i, depth)
	if err != nil {
		return end, err
	}
	switch {
	case r.doc.Is(r.inElem.typ, "refusal"):
		return end, r.fill(inRefusal, false, pos, r.inElem.refusal)
	case r.doc.Is(r.inElem.typ, "output_text"), !r.inElem.typ.OK():
		return end, r.fill(inContent, false, pos, r.inElem.text)
	}
	return end, nil
}

// reasoningSummary fills summary part pos of the reasoning item r.cur.
func (r *responsesDecoder) reasoningSummary(pos, i, depth int) (int, error) {
	end, err := r.contentElem(i, depth)
	if err != nil {
		return end, err
	}
	r.reasonBreak = true // each element is a part of its own
	return end, r.fill(inReasoning, true, pos, r.inElem.text)
}

// reasoningContent fills content part pos of the reasoning item r.cur.
func (r *responsesDecoder) reasoningContent(pos, i, depth int) (int, error) {
	end, err := r.contentElem(i, depth)
	if err != nil {
		return end, err
	}
	r.reasonBreak = true
	return end, r.fill(inReasoning, false, pos, r.inElem.text)
}

// fill appends the text at s to part p of r.cur unless that part has text
// or deltas gave the item text of this kind (see doneText).
func (r *responsesDecoder) fill(k bufKind, summary bool, p int, s jsonscan.Span) error {
	if r.cur.streamed&textKind(k, summary) != 0 || r.cur.has(summary, p) || !r.doc.IsString(s) || s.End-s.Start == 2 {
		return nil
	}
	return r.appendText(r.cur, k, summary, p, s)
}

// terminal is response.completed or response.incomplete: the stream's
// proper end. The response's output closes the items still open and adds
// those never streamed.
func (r *responsesDecoder) terminal(ev *sse.Event) error {
	b := r.b
	status, reason, usage := r.inResp.status, r.inResp.reason, r.inResp.usage
	if r.doc.Is(status, "failed") {
		return r.failed()
	}
	if err := r.elements(r.inResp.output, (*responsesDecoder).outputItem); err != nil {
		return err
	}
	for i := range r.items {
		it := &r.items[i]
		if it.kind == respCall && !it.added {
			return r.b.outOfOrder(ev, 0, fmt.Sprintf("function-call arguments for output item %d, which was never added", it.index))
		}
		if !it.done {
			if err := r.closeBare(it); err != nil {
				return err
			}
		}
	}
	r.applyUsage(usage)
	var raw string
	switch {
	case r.doc.IsString(reason) && reason.End-reason.Start > 2:
		raw = string(r.doc.Str(r.arena[:0], reason))
	case r.name == "response.incomplete" || r.doc.Is(r.typ, "response.incomplete") || r.doc.Is(status, "incomplete"):
		raw = "incomplete"
	case r.doc.IsString(status) && status.End-status.Start > 2:
		raw = string(r.doc.Str(r.arena[:0], status))
	default:
		raw = "completed"
	}
	b.setFinish(raw, responsesStopReason(raw))
	b.progress()
	b.end()
	return nil
}

// outputItem closes output item pos with its final form in the terminal
// response, unless the stream closed it already.
func (r *responsesDecoder) outputItem(pos, i, depth int) (int, error) {
	if r.doc.Data[i] != '{' {
		return jsonscan.SkipValue(r.doc.Data, i, depth)
	}
	r.resetItem()
	end, err := jsonscan.WalkObject(&r.doc, r, i, depth, (*responsesDecoder).itemMember)
	if err != nil {
		return end, err
	}
	r.item = jsonscan.Span{Start: i, End: end}
	it := r.lookup(pos)
	if it != nil && (it.done || (r.inItem.typ.OK() && r.itemKind(r.inItem.typ) != it.kind)) {
		return end, nil // closed already, or not the same item: left as the stream made it
	}
	return end, r.close(pos, it)
}

// failed is response.failed, or a terminal response whose status says it
// failed: the provider's error, from response.error.
func (r *responsesDecoder) failed() error {
	b := r.b
	r.applyUsage(r.inResp.usage)
	if s := r.inResp.err; s.OK() && r.doc.Data[s.Start] == '{' {
		return b.fail(b.apiError(r.doc.Data[s.Start:s.End]))
	}
	return b.fail(&APIError{Message: "the response failed and the provider sent no error", Kind: ErrorServer})
}

// applyUsage reads a Responses usage object into the message's usage.
func (r *responsesDecoder) applyUsage(s jsonscan.Span) {
	if !s.OK() || r.doc.Data[s.Start] != '{' {
		return
	}
	u := r.b.usageRef()
	*u = Usage{TotalTokens: -1}
	jsonscan.WalkObject(&r.doc, r, s.Start, 0, (*responsesDecoder).usageMember)
	if u.TotalTokens < 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
}

func (r *responsesDecoder) usageMember(key []byte, i, depth int) (int, error) {
	d := r.doc.Data
	if d[i] == '{' {
		switch string(key) {
		case "input_tokens_details", "output_tokens_details":
			return jsonscan.WalkObject(&r.doc, r, i, depth, (*responsesDecoder).usageMember)
		}
	}
	s, end, err := r.doc.ValueSpan(i, depth)
	n, ok := jsonscan.Int(d, s)
	if !ok {
		return end, err
	}
	u := r.b.usageRef()
	switch string(key) {
	case "input_tokens":
		u.PromptTokens = n
	case "output_tokens":
		u.CompletionTokens = n
	case "total_tokens":
		u.TotalTokens = n
	case "cached_tokens":
		u.CachedTokens = n
	case "reasoning_tokens":
		u.ReasoningTokens = n
	}
	return end, err
}

// responsesStopReason maps a Responses finish: the status of a completed
// response, or an incomplete one's incomplete_details.reason.
func responsesStopReason(r string) StopReason {
	switch r {
	case "completed":
		return StopEndTurn
	case "max_output_tokens":
		return StopLength
	case "content_filter":
		return StopContentFilter
	case "":
		return 0
	}
	return StopOther
}

// errorKind maps the Responses API's own error codes: its error events'
// types and response.error's codes (the rest are OpenAI's, as in chat).
func (responsesProtocol) errorKind(t string) ErrorKind {
	switch t {
	case "too_many_requests":
		return ErrorRateLimited
	case "vector_store_timeout":
		return ErrorServer
	case "image_content_policy_violation":
		return ErrorContentFiltered
	case "invalid_image", "invalid_image_format", "invalid_base64_image", "invalid_image_url", "invalid_image_mode", "image_too_large",
		"image_too_small", "image_parse_error", "image_file_too_large", "unsupported_image_media_type", "empty_image_file",
		"failed_to_download_image", "image_file_not_found":
		return ErrorInvalidRequest
	}
	return ErrorUnknown
}
