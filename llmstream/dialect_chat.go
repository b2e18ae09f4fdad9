package llmstream

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"unsafe"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the OpenAI Chat Completions dialect (DialectChat): its
// error bodies and the decoder that reads one chat.completion.chunk into
// the bridge in a single pass over the event, validating all of it. The
// request encoder is in encode_chat.go, the whole JSON completion some
// servers send instead of a stream in whole_chat.go.
//
// POST {base}/chat/completions with "Authorization: Bearer <key>". Each
// event's data is one chat.completion.chunk; of its choices only index 0
// is followed:
//
//	{"error":{...}} (non-null)        → *APIError, message/type/code kept exactly
//	data that is not one JSON object  → *EventError (ErrBadEvent), raw data kept
//	delta.content                     → text (a string, or parts: "text" parts are
//	                                    text, "thinking"/"reasoning" parts reasoning)
//	delta.reasoning_content/reasoning → reasoning (both in one delta: the first)
//	delta.refusal                     → refusal
//	delta.tool_calls                  → the toolcall.Assembler
//	finish_reason                     → kept; "error" fails the stream (OpenRouter)
//	usage, x_groq.usage               → kept, the last one wins
//	model                             → Message.Model, the first non-empty one
//	event: error, an "error:" field   → *APIError (llama.cpp reports failures so)
//
// Empty or absent choices, a choice with no delta, null for any member,
// role on every chunk and unknown members are normal; a delta and a
// finish reason in one chunk apply the delta first. The stream ends
// properly with "[DONE]", or at its end after a finish reason. Nothing is
// applied to the message until the whole event has proved to be valid
// JSON (see chatDecoder.apply), so a bad event leaves the message as it
// was before it.

// chatDecoder reads OpenAI chat.completion.chunk events into a sink.
type chatDecoder struct {
	b  sink
	ev chatEvent
}

func (c *chatDecoder) event(ev *sse.Event) error {
	b := c.b
	if string(ev.Data) == "[DONE]" {
		b.end()
		return nil
	}
	if len(ev.Data) == 0 {
		return nil
	}
	c.ev.ValidUTF8 = b.validUTF8()
	lens := b.textLens()
	if at, err := c.decodeChunk(ev.Data); err != nil {
		b.truncateText(lens)
		return b.fail(b.eventError(ev.Data, at, err))
	}
	return c.apply()
}

// complete reports a proper end: the done sentinel, or a finish reason.
func (c *chatDecoder) complete() bool { return c.b.ended() || c.b.finish() != "" }

// mark is one piece of an event in arrival order, delivered after the
// event validated.
type mark struct {
	kind bufKind
	span jsonscan.Span
}

// pendingCall is a tool-call fragment whose strings sit in chatEvent.arena.
type pendingCall struct {
	index                      int
	noIndex                    bool
	id, typ, name, args, extra jsonscan.Span
}

// chatEvent is the per-event decode state, reset for each event and reused.
type chatEvent struct {
	jsonscan.Doc
	marks     []mark
	calls     []pendingCall
	arena     []byte
	prefix    []byte        // the previous event's ignored leading members; see walkTop
	extras    []byte        // provider extras of tool calls, apart from arena so each call's stay contiguous
	finish    jsonscan.Span // raw JSON string in data
	usage     jsonscan.Span // raw JSON in data
	groqUsage jsonscan.Span
	apiErr    jsonscan.Span
	model     jsonscan.Span

	details []jsonscan.Span // reasoning.encrypted entries of reasoning_details, kept whole

	choiceIndex   int
	reasoningSeen bool
}

// snapshot is what a choice other than index 0 must roll back to.
type snapshot struct {
	text                                 textLens
	marks, calls, arena, extras, details int
	finish                               jsonscan.Span
}

func (c *chatDecoder) snapshot() snapshot {
	e := &c.ev
	return snapshot{c.b.textLens(), len(e.marks), len(e.calls), len(e.arena), len(e.extras), len(e.details), e.finish}
}

func (c *chatDecoder) restore(s snapshot) {
	e := &c.ev
	c.b.truncateText(s.text)
	e.marks, e.calls, e.arena, e.extras = e.marks[:s.marks], e.calls[:s.calls], e.arena[:s.arena], e.extras[:s.extras]
	e.details = e.details[:s.details]
	e.finish = s.finish
}

// decodeChunk walks the event data. On error the caller rolls back.
func (c *chatDecoder) decodeChunk(d []byte) (int, error) {
	e := &c.ev
	e.Data = d
	e.marks, e.calls, e.arena, e.extras, e.details = e.marks[:0], e.calls[:0], e.arena[:0], e.extras[:0], e.details[:0]
	e.finish, e.usage, e.groqUsage, e.apiErr, e.model = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	i := jsonscan.SkipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		if end, err := jsonscan.SkipValue(d, i, 0); err != nil {
			return end, err
		}
		return i, jsonscan.ErrNotObject
	}
	i, err := c.walkTop(i)
	if err != nil {
		return i, err
	}
	if i = jsonscan.SkipWS(d, i); i != len(d) {
		return i, jsonscan.ErrTrailing
	}
	return i, nil
}

// walkTop is walkObject for the event's top level, with one shortcut.
// Streams repeat the same leading members on every chunk (id, object,
// created, model, service_tier, system_fingerprint), which the bridge
// ignores. The bytes from the start of the event through the comma after
// the last such leading member are kept; an event that begins with exactly
// those bytes resumes after them, since identical leading bytes parse
// identically and contribute nothing. It is most of the chunk's bytes.
func (c *chatDecoder) walkTop(i int) (int, error) {
	d := c.ev.Data
	prefix := c.ev.prefix
	if n := len(prefix); n > 0 && len(d) > n && string(d[:n]) == string(prefix) {
		i = n - 1 // at the comma, as after a member
	} else {
		prefix = prefix[:0]
		c.ev.prefix = prefix // until this event proves its own
		if i = jsonscan.SkipWS(d, i+1); i < len(d) && d[i] == '}' {
			return i + 1, nil
		}
		i-- // the loop steps over the '{' as it would over a comma
	}
	leading := true // every member so far was ignored
	for {
		i = jsonscan.SkipWS(d, i+1)
		key, at, err := c.ev.ReadKey(i)
		if err != nil {
			return at, err
		}
		switch string(key) {
		case "choices", "error", "usage", "x_groq":
			leading = false
		}
		if i, err = c.topMember(key, at, 1); err != nil {
			return i, err
		}
		if i = jsonscan.SkipWS(d, i); i >= len(d) {
			return i, jsonscan.ErrSyntax
		}
		switch d[i] {
		case ',':
			if leading && i+1 > len(prefix) {
				if cap(prefix) < i+1 {
					// Exactly as long as it must be: a held stream keeps it.
					prefix = make([]byte, 0, i+1)
				}
				prefix = append(prefix[:0], d[:i+1]...)
			}
		case '}':
			c.ev.prefix = prefix
			return i + 1, nil
		default:
			return i, jsonscan.ErrSyntax
		}
	}
}

func (c *chatDecoder) topMember(key []byte, i, depth int) (int, error) {
	d := c.ev.Data
	switch string(key) {
	case "choices":
		if d[i] == '[' {
			return jsonscan.WalkArray(&c.ev.Doc, c, i, depth, (*chatDecoder).choice)
		}
	case "error":
		s, end, err := c.ev.ValueSpan(i, depth)
		c.ev.apiErr = s
		return end, err
	case "usage":
		s, end, err := c.ev.ValueSpan(i, depth)
		c.ev.usage = s
		return end, err
	case "x_groq":
		if d[i] == '{' {
			return jsonscan.WalkObject(&c.ev.Doc, c, i, depth, (*chatDecoder).groqMember)
		}
	case "model":
		s, end, err := c.ev.ValueSpan(i, depth)
		c.ev.model = s
		return end, err
	}
	return jsonscan.SkipValue(d, i, depth)
}

func (c *chatDecoder) groqMember(key []byte, i, depth int) (int, error) {
	if string(key) == "usage" {
		s, end, err := c.ev.ValueSpan(i, depth)
		c.ev.groqUsage = s
		return end, err
	}
	return jsonscan.SkipValue(c.ev.Data, i, depth)
}

// choiceHead and choiceTail are how nearly every chunk's choice begins and
// ends: index 0, then the delta; no logprobs and no finish reason.
const (
	choiceHead = `{"index":0,"delta":{`
	choiceTail = `,"logprobs":null,"finish_reason":null}`
)

func (c *chatDecoder) choice(pos, i, depth int) (int, error) {
	d := c.ev.Data
	if d[i] != '{' {
		return jsonscan.SkipValue(d, i, depth)
	}
	e := &c.ev
	snap := c.snapshot()
	e.choiceIndex, e.reasoningSeen = pos, false
	var end int
	var err error
	if len(d)-i > len(choiceHead) && string(d[i:i+len(choiceHead)]) == choiceHead {
		// Nearly every chunk's choice starts this way: read the index and
		// the delta's opening straight off, then carry on as usual.
		e.choiceIndex = 0
		end, err = jsonscan.WalkObject(&c.ev.Doc, c, i+len(choiceHead)-1, depth+1, (*chatDecoder).deltaMember)
		if err == nil {
			if len(d)-end >= len(choiceTail) && string(d[end:end+len(choiceTail)]) == choiceTail {
				end += len(choiceTail)
			} else if end, err = jsonscan.NextMember(d, end, '}'); err == nil {
				if end < 0 {
					end = -end - 1
				} else {
					end, err = jsonscan.WalkMembers(&c.ev.Doc, c, end, depth+1, (*chatDecoder).choiceMember)
				}
			}
		}
	} else {
		end, err = jsonscan.WalkObject(&c.ev.Doc, c, i, depth, (*chatDecoder).choiceMember)
	}
	if err != nil {
		return end, err
	}
	if e.choiceIndex != 0 {
		c.restore(snap)
	}
	return end, nil
}

func (c *chatDecoder) choiceMember(key []byte, i, depth int) (int, error) {
	d := c.ev.Data
	e := &c.ev
	switch string(key) {
	case "index":
		end, err := jsonscan.SkipValue(d, i, depth)
		if err != nil {
			return end, err
		}
		if n, ok := jsonscan.ParseIndex(d[i:end]); ok {
			e.choiceIndex = n
		}
		return end, nil
	case "delta":
		if d[i] == '{' {
			return jsonscan.WalkObject(&c.ev.Doc, c, i, depth, (*chatDecoder).deltaMember)
		}
	case "finish_reason":
		if d[i] == '"' {
			end, err := jsonscan.SkipString(d, i)
			if err == nil && end-i > 2 {
				e.finish = jsonscan.Span{Start: i, End: end}
			}
			return end, err
		}
	}
	return jsonscan.SkipValue(d, i, depth)
}

// appendText decodes the string at d[i] into the buffer of kind k and
// records a mark for the callback.
func (c *chatDecoder) appendText(k bufKind, i int) (int, error) {
	buf := c.b.buffer(k)
	if room := len(c.ev.Data) - i; cap(*buf)-len(*buf) < room {
		// The rest of the event bounds the decoded text; in a large event,
		// the string's own length does (the rest would reserve the whole
		// event for one character). Double the buffer ourselves: append
		// grows large slices by only 1.25x, which copies a long answer
		// many more times. No more room than that is kept: a held stream's
		// short answer should not carry a large empty tail.
		if room > 4096 {
			if end, err := jsonscan.SkipString(c.ev.Data, i); err == nil {
				room = end - i
			}
		}
		if cap(*buf)-len(*buf) < room {
			*buf = slices.Grow(*buf, max(len(*buf), room))
		}
	}
	start := len(*buf)
	var end int
	var err error
	*buf, end, err = jsonscan.AppendStringUTF8(*buf, c.ev.Data, i, c.ev.ValidUTF8)
	if err == nil && len(*buf) > start {
		c.ev.marks = append(c.ev.marks, mark{k, jsonscan.Span{Start: start, End: len(*buf)}})
	}
	return end, err
}

func (c *chatDecoder) deltaMember(key []byte, i, depth int) (int, error) {
	d := c.ev.Data
	e := &c.ev
	switch string(key) {
	case "content":
		switch d[i] {
		case '"':
			return c.appendText(inContent, i)
		case '[':
			return jsonscan.WalkArray(&c.ev.Doc, c, i, depth, (*chatDecoder).contentPart)
		}
	case "reasoning_content", "reasoning":
		// Some servers send both names with the same text; the first
		// one in a delta wins so the text is not doubled.
		if d[i] == '"' {
			if e.reasoningSeen {
				return jsonscan.SkipString(d, i)
			}
			before := len(c.b.reasoning())
			end, err := c.appendText(inReasoning, i)
			e.reasoningSeen = len(c.b.reasoning()) > before
			return end, err
		}
	case "reasoning_details":
		if d[i] == '[' {
			return c.reasoningDetails(i, depth)
		}
	case "refusal":
		if d[i] == '"' {
			return c.appendText(inRefusal, i)
		}
	case "tool_calls":
		if d[i] == '[' {
			return jsonscan.WalkArray(&c.ev.Doc, c, i, depth, (*chatDecoder).toolCall)
		}
	}
	return jsonscan.SkipValue(d, i, depth)
}

// reasoningDetails reads OpenRouter's reasoning_details array at d[i]
// (other OpenAI-compatible servers send it too, some with no "reasoning"
// string): "reasoning.text" entries' text and "reasoning.summary" entries'
// summary are reasoning, unless a "reasoning" or "reasoning_content"
// string came first in the delta (OpenRouter sends both, the same text);
// "reasoning.encrypted" entries are kept whole, as continuity, for the
// next request to send back. Other entries are skipped.
func (c *chatDecoder) reasoningDetails(i, depth int) (int, error) {
	e := &c.ev
	seen := e.reasoningSeen
	before := len(c.b.reasoning())
	end, err := jsonscan.WalkArray(&e.Doc, c, i, depth, func(c *chatDecoder, _, i, depth int) (int, error) {
		d := c.ev.Data
		if d[i] != '{' {
			return jsonscan.SkipValue(d, i, depth)
		}
		typ, text, summary := jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
		end, err := jsonscan.WalkObject(&c.ev.Doc, c, i, depth, func(c *chatDecoder, key []byte, i, depth int) (int, error) {
			s, end, err := c.ev.ValueSpan(i, depth)
			switch string(key) {
			case "type":
				typ = s
			case "text":
				text = s
			case "summary":
				summary = s
			}
			return end, err
		})
		if err != nil {
			return end, err
		}
		switch {
		case c.ev.Is(typ, "reasoning.encrypted"):
			c.ev.details = append(c.ev.details, jsonscan.Span{Start: i, End: end})
		case seen:
		case c.ev.Is(typ, "reasoning.text") && c.ev.IsString(text):
			_, err = c.appendText(inReasoning, text.Start)
		case c.ev.Is(typ, "reasoning.summary") && c.ev.IsString(summary):
			_, err = c.appendText(inReasoning, summary.Start)
		}
		return end, err
	})
	if len(c.b.reasoning()) > before {
		e.reasoningSeen = true
	}
	return end, err
}

// chatReasoningBlock is the Block type of a reasoning_details entry kept
// whole (its Raw), written back on the assistant message.
const chatReasoningBlock = "reasoning.encrypted"

// contentPart takes one element of a content array: a "text" part (or one
// with no type) is answer text; a "thinking" part (Mistral's reasoning
// models: {"type":"thinking","thinking":[{"type":"text","text":"..."}]})
// or a "reasoning" part is reasoning; any other type (references, images)
// is skipped without losing the others. Members may come in any order, so
// the part is walked first and its text taken after.
func (c *chatDecoder) contentPart(_, i, depth int) (int, error) {
	d := c.ev.Data
	if d[i] != '{' {
		return jsonscan.SkipValue(d, i, depth)
	}
	typ, text, thinking := jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	end, err := jsonscan.WalkObject(&c.ev.Doc, c, i, depth, func(c *chatDecoder, key []byte, i, depth int) (int, error) {
		s, end, err := c.ev.ValueSpan(i, depth)
		switch string(key) {
		case "type":
			typ = s
		case "text":
			text = s
		case "thinking":
			thinking = s
		}
		return end, err
	})
	if err != nil {
		return end, err
	}
	kind := inContent
	if typ.OK() && d[typ.Start] == '"' {
		switch t := d[typ.Start+1 : typ.End-1]; string(t) {
		case "text":
		case "thinking", "reasoning":
			kind = inReasoning
		default:
			return end, nil
		}
	}
	if kind == inReasoning && thinking.OK() {
		text = thinking
	}
	if !text.OK() {
		return end, nil
	}
	switch d[text.Start] {
	case '"':
		_, err = c.appendText(kind, text.Start)
	case '[':
		// Nested parts, as Mistral sends its thinking: their texts.
		_, err = jsonscan.WalkArray(&c.ev.Doc, c, text.Start, depth, func(c *chatDecoder, _, i, depth int) (int, error) {
			if c.ev.Data[i] != '{' {
				return jsonscan.SkipValue(c.ev.Data, i, depth)
			}
			return jsonscan.WalkObject(&c.ev.Doc, c, i, depth, func(c *chatDecoder, key []byte, i, depth int) (int, error) {
				if string(key) == "text" && c.ev.Data[i] == '"' {
					return c.appendText(kind, i)
				}
				return jsonscan.SkipValue(c.ev.Data, i, depth)
			})
		})
	}
	return end, err
}

// arenaString decodes the string at d[i] into the arena.
func (c *chatDecoder) arenaString(i int) (jsonscan.Span, int, error) {
	e := &c.ev
	start := len(e.arena)
	var end int
	var err error
	e.arena, end, err = jsonscan.AppendStringUTF8(e.arena, e.Data, i, e.ValidUTF8)
	return jsonscan.Span{Start: start, End: len(e.arena)}, end, err
}

// arenaRaw copies the raw JSON value d[i:end] into the arena.
func (c *chatDecoder) arenaRaw(i, depth int) (jsonscan.Span, int, error) {
	e := &c.ev
	end, err := jsonscan.SkipValue(e.Data, i, depth)
	if err != nil {
		return jsonscan.NoSpan, end, err
	}
	start := len(e.arena)
	e.arena = append(e.arena, e.Data[i:end]...)
	return jsonscan.Span{Start: start, End: len(e.arena)}, end, nil
}

func (c *chatDecoder) toolCall(_, i, depth int) (int, error) {
	d := c.ev.Data
	e := &c.ev
	if d[i] != '{' {
		return jsonscan.SkipValue(d, i, depth)
	}
	e.calls = append(e.calls, pendingCall{noIndex: true, id: jsonscan.NoSpan, typ: jsonscan.NoSpan, name: jsonscan.NoSpan, args: jsonscan.NoSpan, extra: jsonscan.NoSpan})
	n := len(e.calls) - 1
	end, err := jsonscan.WalkObject(&c.ev.Doc, c, i, depth, (*chatDecoder).toolCallMember)
	if err != nil {
		return end, err
	}
	pc := &e.calls[n]
	if pc.extra.OK() {
		e.extras = append(e.extras, '}')
		pc.extra.End = len(e.extras)
	} else if pc.id.Empty() && pc.name.Empty() && pc.args.Empty() {
		// A fragment with nothing in it (an index alone) is no progress:
		// it neither reaches the assembler nor keeps the idle timer alive.
		e.calls = e.calls[:n]
		return end, nil
	}
	e.marks = append(e.marks, mark{inCall, jsonscan.Span{Start: n, End: n}})
	return end, nil
}

func (c *chatDecoder) toolCallMember(key []byte, i, depth int) (int, error) {
	d := c.ev.Data
	e := &c.ev
	pc := &e.calls[len(e.calls)-1]
	var s jsonscan.Span
	var end int
	var err error
	switch string(key) {
	case "index":
		end, err = jsonscan.SkipValue(d, i, depth)
		if err == nil {
			n, ok := jsonscan.ParseIndex(d[i:end])
			pc.index, pc.noIndex = n, !ok
		}
		return end, err
	case "id", "type":
		if d[i] != '"' {
			return jsonscan.SkipValue(d, i, depth) // not a string: ignored, never echoed as an extra
		}
		s, end, err = c.arenaString(i)
		if string(key) == "id" {
			pc.id = s
		} else {
			pc.typ = s
		}
		return end, err
	case "function":
		if d[i] == '{' {
			return jsonscan.WalkObject(&c.ev.Doc, c, i, depth, (*chatDecoder).functionMember)
		}
		return jsonscan.SkipValue(d, i, depth)
	}
	if d[i] == 'n' {
		return jsonscan.SkipValue(d, i, depth)
	}
	// Any other member is a provider extra, kept as raw JSON and echoed
	// back with the call. Its span grows as members are appended.
	if !pc.extra.OK() {
		pc.extra = jsonscan.Span{Start: len(e.extras), End: 0}
		e.extras = append(e.extras, '{')
	} else {
		e.extras = append(e.extras, ',')
	}
	e.extras = jsonscan.AppendQuoted(e.extras, key)
	e.extras = append(e.extras, ':')
	end, err = jsonscan.SkipValue(d, i, depth)
	if err == nil {
		e.extras = append(e.extras, d[i:end]...)
	}
	return end, err
}

func (c *chatDecoder) functionMember(key []byte, i, depth int) (int, error) {
	d := c.ev.Data
	e := &c.ev
	pc := &e.calls[len(e.calls)-1]
	switch string(key) {
	case "name":
		if d[i] == '"' {
			s, end, err := c.arenaString(i)
			pc.name = s
			return end, err
		}
	case "arguments":
		switch d[i] {
		case '"':
			s, end, err := c.arenaString(i)
			pc.args = s
			return end, err
		case 'n':
		default:
			// Arguments sent as a JSON value instead of a string (seen
			// through some proxies) are that value's JSON text.
			s, end, err := c.arenaRaw(i, depth)
			pc.args = s
			return end, err
		}
	}
	return jsonscan.SkipValue(d, i, depth)
}

// apply hands a validated event's pieces on, in arrival order: tool-call
// fragments to the assembler, deltas to the callback; then the finish
// reason, usage and provider error.
func (c *chatDecoder) apply() error {
	e := &c.ev
	d := e.Data
	c.b.setModel(&e.Doc, e.model)
	for _, mk := range e.marks {
		c.b.progress()
		if mk.kind == inCall {
			if err := c.addCall(&e.calls[mk.span.Start]); err != nil {
				return err
			}
			continue
		}
		if !c.b.delivering() {
			continue
		}
		buf := *c.b.buffer(mk.kind)
		if err := c.b.deliver(Delta{Kind: mk.kind.deltaKind(), Text: string(buf[mk.span.Start:mk.span.End])}); err != nil {
			return err
		}
	}
	for _, s := range e.details {
		c.b.progress()
		c.b.addBlock(Block{Type: chatReasoningBlock, Raw: slices.Clone(d[s.Start:s.End])})
	}
	if e.finish.OK() {
		c.b.progress()
		if f := d[e.finish.Start+1 : e.finish.End-1]; string(f) != c.b.finish() {
			raw := jsonscan.DecodedString(d, e.finish)
			c.b.setFinish(raw, chatStopReason(raw))
		}
	}
	for _, s := range [...]jsonscan.Span{e.usage, e.groqUsage} {
		if s.OK() {
			if u := decodeUsage(d[s.Start:s.End]); u != nil {
				c.b.setUsage(u)
			}
		}
	}
	if e.apiErr.OK() {
		return c.b.fail(c.b.apiError(d[e.apiErr.Start:e.apiErr.End]))
	}
	return c.checkFinish()
}

// checkFinish fails the stream whose finish reason says the provider failed
// (OpenRouter reports errors this way).
func (c *chatDecoder) checkFinish() error {
	if c.b.finish() == "error" {
		return c.b.fail(finishError())
	}
	return nil
}

func (c *chatDecoder) addCall(pc *pendingCall) error {
	a := c.ev.arena
	f := toolcall.Fragment{Index: pc.index, NoIndex: pc.noIndex}
	if pc.id.OK() {
		f.ID = string(a[pc.id.Start:pc.id.End])
	}
	if pc.typ.OK() {
		f.Type = string(a[pc.typ.Start:pc.typ.End])
	}
	if pc.name.OK() {
		f.Name = string(a[pc.name.Start:pc.name.End])
	}
	if pc.args.OK() {
		// Not copied, since nearly every fragment carries arguments: Add
		// copies them into its call (as it copies Extra) and keeps nothing
		// of f, and addFragment copies them for the callback.
		if args := a[pc.args.Start:pc.args.End]; len(args) > 0 {
			f.Arguments = unsafe.String(unsafe.SliceData(args), len(args))
		}
	}
	if pc.extra.OK() {
		f.Extra = c.ev.extras[pc.extra.Start:pc.extra.End]
	}
	return c.b.addFragment(f)
}

// finishError is the error for OpenRouter's way to fail a stream:
// finish_reason "error".
func finishError() *APIError {
	return &APIError{Type: "finish_reason", Message: `the provider ended the response with finish_reason "error"`, Kind: ErrorServer}
}

// chatProtocol is DialectChat.
type chatProtocol struct{}

func (chatProtocol) defaultBase() string  { return DefaultBaseURL }
func (chatProtocol) providerName() string { return "openai" }
func (chatProtocol) emptyPath() string    { return "/v1" }
func (chatProtocol) doneSentinel() string { return "[DONE]" }

func (chatProtocol) endpoint(base *url.URL, _ string) (string, error) {
	return withSuffix(base, "/chat/completions"), nil
}

func (chatProtocol) header(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
}

func (chatProtocol) newDecoder(s sink) decoder { return &chatDecoder{b: s} }

func (chatProtocol) parseError(raw []byte, status int) (*APIError, bool) {
	return parseClassified(raw, status)
}

// decodeUsage reads a validated usage object; a usage of the wrong shape is
// ignored, since it never changes the message.
func decodeUsage(raw []byte) *Usage {
	var u Usage
	if json.Unmarshal(raw, &u) != nil {
		return nil
	}
	return &u
}

// chatStopReason maps a chat finish_reason.
func chatStopReason(finish string) StopReason {
	switch finish {
	case "":
		return 0
	case "stop":
		return StopEndTurn
	case "tool_calls", "function_call":
		return StopToolCalls
	case "length":
		return StopLength
	case "content_filter":
		return StopContentFilter
	}
	return StopOther
}

// errorKind maps the error types and codes of OpenAI and the servers
// compatible with it (Groq's "tokens" and "requests", vLLM's and
// llama.cpp's numeric codes).
func (chatProtocol) errorKind(t string) ErrorKind {
	switch t {
	case "rate_limit_exceeded", "rate_limited", "429", "tokens", "requests":
		return ErrorRateLimited
	case "overloaded", "503", "529", "server_is_overloaded":
		return ErrorOverloaded
	case "invalid_api_key", "401":
		return ErrorAuthentication
	case "permission_denied", "insufficient_quota", "403":
		return ErrorPermission
	case "invalid_request_error", "invalid_request", "invalid_prompt", "400", "413", "422":
		return ErrorInvalidRequest
	case "context_length_exceeded", "string_above_max_length":
		return ErrorContextLength
	case "model_not_found", "404":
		return ErrorNotFound
	case "content_filter", "content_policy_violation":
		return ErrorContentFiltered
	case "server_error", "500", "502", "504":
		return ErrorServer
	}
	return ErrorUnknown
}
