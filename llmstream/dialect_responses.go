package llmstream

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"unsafe"

	"github.com/airlock-go/airlock/internal/chunked"
	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the OpenAI Responses dialect (DialectResponses): its wire,
// the decoder's event walk and end, and its error bodies. The decoder's
// output items are in responses_items.go, their text in responses_text.go,
// function calls in responses_calls.go; the request encoder is in
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

func (responsesProtocol) newDecoder(s sink) decoder {
	return &responsesDecoder{b: s, callMax: -1, reasonAt: -1}
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

// responsesDecoder reads Responses events into a sink.
type responsesDecoder struct {
	b         sink
	doc       jsonscan.Doc
	items     chunked.Slice[respItem]
	byIndex   map[int32]int32    // output_index → position in items, once they stop being equal
	callMax   int                // the highest index a call has in the assembler, -1 for none
	callTaken map[int32]struct{} // the indices calls have, once one came out of order (see callIndex)
	next      int                // one past the highest output_index so far

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
	// an item are read later into inPart, from data already validated.
	typ, outIndex, contentIndex, summaryIndex, delta, text, args, refusal, callName jsonscan.Span
	item, part, resp                                                                jsonscan.Span
	inItem                                                                          struct{ typ, id, callID, name, args, content, summary jsonscan.Span }
	inPart                                                                          struct{ typ, text, refusal jsonscan.Span }
	inResp                                                                          struct{ status, reason, usage, err, output, model jsonscan.Span }

	seenIDs map[string]struct{} // the streamed items' ids, for the terminal output (see streamedID)
	broke   bool                // appendText began a new paragraph of reasoning
}

func (r *responsesDecoder) complete() bool { return r.b.ended() }

func (r *responsesDecoder) event(ev *sse.Event) error {
	b := r.b
	if len(ev.Data) == 0 || string(ev.Data) == "[DONE]" {
		return nil
	}
	r.typ, r.outIndex, r.contentIndex, r.summaryIndex, r.delta, r.text, r.args, r.refusal, r.callName = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	r.item, r.part, r.resp = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	r.resetItem()
	r.inPart.typ, r.inPart.text, r.inPart.refusal = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	r.inResp.status, r.inResp.reason, r.inResp.usage, r.inResp.err, r.inResp.output, r.inResp.model = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	if err := readEvent(b, &r.doc, r, ev, (*responsesDecoder).member); err != nil {
		return err
	}
	b.setModel(&r.doc, r.inResp.model) // response.model, in the lifecycle events
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
	case "model":
		r.inResp.model = s
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

// terminal is response.completed or response.incomplete: the stream's
// proper end. The response's output closes the items still open and adds
// those never streamed.
func (r *responsesDecoder) terminal(ev *sse.Event) error {
	b := r.b
	status, reason, usage := r.inResp.status, r.inResp.reason, r.inResp.usage
	if r.doc.Is(status, "failed") {
		return r.failed()
	}
	if err := r.outputRoom(); err != nil {
		return err
	}
	if err := elements(r, r.inResp.output, r, (*responsesDecoder).outputItem); err != nil {
		return err
	}
	for i := range r.items.Len() {
		it := r.items.At(i)
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
	if it == nil && r.streamedID() {
		// The stream had this item at another output_index (the output
		// holds an item the stream did not number the same): it stands as
		// the stream made it, not added a second time.
		return end, nil
	}
	return end, r.close(pos, it)
}

// streamedID reports whether the output item just read has the id (or
// call_id) of an item the stream already gave. The ids are gathered once,
// at the first output item that needs them.
func (r *responsesDecoder) streamedID() bool {
	id, callID := r.itemID(), r.doc.Text(r.inItem.callID)
	if id == "" && callID == "" {
		return false
	}
	if r.seenIDs == nil {
		r.seenIDs = make(map[string]struct{}, r.items.Len())
		for i := range r.items.Len() {
			it := r.items.At(i)
			if it.slot >= 0 && r.b.block(int(it.slot)).ID != "" {
				r.seenIDs[r.b.block(int(it.slot)).ID] = struct{}{}
			}
			if it.kind == respCall {
				if p, _ := r.b.assembler().Preview(int(it.call)); p.ID != "" {
					r.seenIDs["call:"+p.ID] = struct{}{}
				}
			}
		}
	}
	_, seen := r.seenIDs[id]
	_, seenCall := r.seenIDs["call:"+callID]
	return id != "" && seen || callID != "" && seenCall
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
