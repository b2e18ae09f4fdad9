package llmstream

import (
	"encoding/json"
	"errors"
	"slices"
)

// This file decodes one OpenAI chat.completion.chunk into the bridge's
// pending state in a single pass over the event, validating all of it.
// Only choice 0 is followed. Nothing is applied to the message until the
// whole event has proved to be valid JSON (see Bridge.apply), so a bad event
// leaves the message as it was before it.

var (
	errNotObject = errors.New("not a JSON object")
	errTrailing  = errors.New("data after the JSON value")
)

// span is a half-open byte range; start < 0 means absent.
type span struct{ start, end int }

var noSpan = span{-1, -1}

func (s span) ok() bool { return s.start >= 0 }

// empty reports an absent or zero-length span.
func (s span) empty() bool { return s.start >= s.end }

// bufKind names the buffer a pending delta's span points into.
type bufKind uint8

const (
	inContent bufKind = iota
	inReasoning
	inRefusal
	inCall // a pending tool-call fragment: the span's start is its number
)

// mark is one piece of an event in arrival order, delivered after the
// event validated.
type mark struct {
	kind bufKind
	span span
}

// pendingCall is a tool-call fragment whose strings sit in Bridge.arena.
type pendingCall struct {
	index                      int
	noIndex                    bool
	id, typ, name, args, extra span
}

// event is the per-event decode state, reset for each event and reused.
type event struct {
	data      []byte
	marks     []mark
	calls     []pendingCall
	arena     []byte
	key       []byte // a decoded key that had escapes
	prefix    []byte // the previous event's ignored leading members; see walkTop
	validUTF8 bool   // the data is known to be valid UTF-8 (it came through an sse.Reader)
	extras    []byte // provider extras of tool calls, apart from arena so each call's stay contiguous
	finish    span   // raw JSON string in data
	usage     span   // raw JSON in data
	groqUsage span
	apiErr    span

	choiceIndex   int
	reasoningSeen bool
}

// snapshot is what a choice other than index 0 must roll back to.
type snapshot struct {
	content, reasoning, refusal, marks, calls, arena, extras int
	finish                                                   span
}

func (b *Bridge) snapshot() snapshot {
	e := &b.ev
	return snapshot{len(b.content), len(b.reasoning), len(b.refusal), len(e.marks), len(e.calls), len(e.arena), len(e.extras), e.finish}
}

func (b *Bridge) restore(s snapshot) {
	e := &b.ev
	b.content, b.reasoning, b.refusal = b.content[:s.content], b.reasoning[:s.reasoning], b.refusal[:s.refusal]
	e.marks, e.calls, e.arena, e.extras = e.marks[:s.marks], e.calls[:s.calls], e.arena[:s.arena], e.extras[:s.extras]
	e.finish = s.finish
}

// decodeChunk walks the event data. On error the caller rolls back.
func (b *Bridge) decodeChunk(d []byte) (int, error) {
	e := &b.ev
	e.data = d
	e.marks, e.calls, e.arena, e.extras = e.marks[:0], e.calls[:0], e.arena[:0], e.extras[:0]
	e.finish, e.usage, e.groqUsage, e.apiErr = noSpan, noSpan, noSpan, noSpan
	i := skipWS(d, 0)
	if i >= len(d) || d[i] != '{' {
		if end, err := skipValue(d, i, 0); err != nil {
			return end, err
		}
		return i, errNotObject
	}
	i, err := b.walkTop(i)
	if err != nil {
		return i, err
	}
	if i = skipWS(d, i); i != len(d) {
		return i, errTrailing
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
func (b *Bridge) walkTop(i int) (int, error) {
	d := b.ev.data
	prefix := b.ev.prefix
	if n := len(prefix); n > 0 && len(d) > n && string(d[:n]) == string(prefix) {
		i = n - 1 // at the comma, as after a member
	} else {
		prefix = prefix[:0]
		b.ev.prefix = prefix // until this event proves its own
		if i = skipWS(d, i+1); i < len(d) && d[i] == '}' {
			return i + 1, nil
		}
		i-- // the loop steps over the '{' as it would over a comma
	}
	leading := true // every member so far was ignored
	for {
		i = skipWS(d, i+1)
		key, at, err := b.readKey(i)
		if err != nil {
			return at, err
		}
		switch string(key) {
		case "choices", "error", "usage", "x_groq":
			leading = false
		}
		if i, err = b.topMember(key, at, 1); err != nil {
			return i, err
		}
		if i = skipWS(d, i); i >= len(d) {
			return i, errSyntax
		}
		switch d[i] {
		case ',':
			if leading && i+1 > len(prefix) {
				prefix = append(prefix[:0], d[:i+1]...)
			}
		case '}':
			b.ev.prefix = prefix
			return i + 1, nil
		default:
			return i, errSyntax
		}
	}
}

// readKey reads the member name at d[i] and the colon after it, and
// returns the name and the offset of the member's value.
func (b *Bridge) readKey(i int) ([]byte, int, error) {
	d := b.ev.data
	if i >= len(d) || d[i] != '"' {
		return nil, i, errSyntax
	}
	var key []byte
	end := plainRun(d, i+1, false)
	if end < len(d) && d[end] == '"' {
		key, end = d[i+1:end], end+1
	} else {
		// Keys with escapes are rare; the buffer is shared by all levels,
		// which is safe because a key is used only before its value is
		// walked.
		var err error
		if b.ev.key, end, err = appendString(b.ev.key[:0], d, i); err != nil {
			return nil, end, err
		}
		key = b.ev.key
	}
	if end = skipWS(d, end); end >= len(d) || d[end] != ':' {
		return nil, end, errSyntax
	}
	if end = skipWS(d, end+1); end >= len(d) {
		return nil, end, errSyntax
	}
	return key, end, nil
}

// memberFunc handles the value of one object member starting at d[i]
// and returns the offset past it.
type memberFunc func(b *Bridge, key []byte, i, depth int) (int, error)

// walkObject validates the object at d[i], calling fn for each member.
func (b *Bridge) walkObject(i, depth int, fn memberFunc) (int, error) {
	d := b.ev.data
	depth++
	if depth > maxJSONDepth {
		return i, errDepth
	}
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, nil
	}
	return b.walkMembers(i, depth, fn)
}

// walkMembers walks an object's members from the key at d[i] to the
// object's end, for the members at depth.
func (b *Bridge) walkMembers(i, depth int, fn memberFunc) (int, error) {
	d := b.ev.data
	for {
		key, at, err := b.readKey(i)
		if err != nil {
			return at, err
		}
		if i, err = fn(b, key, at, depth); err != nil {
			return i, err
		}
		if i, err = nextMember(d, i, '}'); err != nil || i < 0 {
			return -i - 1, err
		}
	}
}

// walkArray validates the array at d[i], calling fn for each element.
func (b *Bridge) walkArray(i, depth int, fn func(b *Bridge, pos, i, depth int) (int, error)) (int, error) {
	d := b.ev.data
	depth++
	if depth > maxJSONDepth {
		return i, errDepth
	}
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, nil
	}
	for pos := 0; ; pos++ {
		if i >= len(d) {
			return i, errSyntax
		}
		var err error
		if i, err = fn(b, pos, i, depth); err != nil {
			return i, err
		}
		if i, err = nextMember(d, i, ']'); err != nil || i < 0 {
			return -i - 1, err
		}
	}
}

// valueSpan validates the value at d[i] and returns its span, or noSpan
// when it is null.
func (b *Bridge) valueSpan(i, depth int) (span, int, error) {
	end, err := skipValue(b.ev.data, i, depth)
	if err != nil || b.ev.data[i] == 'n' {
		return noSpan, end, err
	}
	return span{i, end}, end, nil
}

func (b *Bridge) topMember(key []byte, i, depth int) (int, error) {
	d := b.ev.data
	switch string(key) {
	case "choices":
		if d[i] == '[' {
			return b.walkArray(i, depth, (*Bridge).choice)
		}
	case "error":
		s, end, err := b.valueSpan(i, depth)
		b.ev.apiErr = s
		return end, err
	case "usage":
		s, end, err := b.valueSpan(i, depth)
		b.ev.usage = s
		return end, err
	case "x_groq":
		if d[i] == '{' {
			return b.walkObject(i, depth, (*Bridge).groqMember)
		}
	}
	return skipValue(d, i, depth)
}

func (b *Bridge) groqMember(key []byte, i, depth int) (int, error) {
	if string(key) == "usage" {
		s, end, err := b.valueSpan(i, depth)
		b.ev.groqUsage = s
		return end, err
	}
	return skipValue(b.ev.data, i, depth)
}

// choiceHead and choiceTail are how nearly every chunk's choice begins and
// ends: index 0, then the delta; no logprobs and no finish reason.
const (
	choiceHead = `{"index":0,"delta":{`
	choiceTail = `,"logprobs":null,"finish_reason":null}`
)

func (b *Bridge) choice(pos, i, depth int) (int, error) {
	d := b.ev.data
	if d[i] != '{' {
		return skipValue(d, i, depth)
	}
	e := &b.ev
	snap := b.snapshot()
	e.choiceIndex, e.reasoningSeen = pos, false
	var end int
	var err error
	if len(d)-i > len(choiceHead) && string(d[i:i+len(choiceHead)]) == choiceHead {
		// Nearly every chunk's choice starts this way: read the index and
		// the delta's opening straight off, then carry on as usual.
		e.choiceIndex = 0
		end, err = b.walkObject(i+len(choiceHead)-1, depth+1, (*Bridge).deltaMember)
		if err == nil {
			if len(d)-end >= len(choiceTail) && string(d[end:end+len(choiceTail)]) == choiceTail {
				end += len(choiceTail)
			} else if end, err = nextMember(d, end, '}'); err == nil {
				if end < 0 {
					end = -end - 1
				} else {
					end, err = b.walkMembers(end, depth+1, (*Bridge).choiceMember)
				}
			}
		}
	} else {
		end, err = b.walkObject(i, depth, (*Bridge).choiceMember)
	}
	if err != nil {
		return end, err
	}
	if e.choiceIndex != 0 {
		b.restore(snap)
	}
	return end, nil
}

func (b *Bridge) choiceMember(key []byte, i, depth int) (int, error) {
	d := b.ev.data
	e := &b.ev
	switch string(key) {
	case "index":
		end, err := skipValue(d, i, depth)
		if err != nil {
			return end, err
		}
		if n, ok := parseIndex(d[i:end]); ok {
			e.choiceIndex = n
		}
		return end, nil
	case "delta":
		if d[i] == '{' {
			return b.walkObject(i, depth, (*Bridge).deltaMember)
		}
	case "finish_reason":
		if d[i] == '"' {
			end, err := skipString(d, i)
			if err == nil && end-i > 2 {
				e.finish = span{i, end}
			}
			return end, err
		}
	}
	return skipValue(d, i, depth)
}

// minTextRoom is the free space a text buffer keeps ahead of a delta.
const minTextRoom = 512

// appendText decodes the string at d[i] into the buffer of kind k and
// records a mark for the callback.
func (b *Bridge) appendText(k bufKind, i int) (int, error) {
	buf := b.buffer(k)
	if room := max(len(b.ev.data)-i, minTextRoom); cap(*buf)-len(*buf) < room {
		// The rest of the event bounds the decoded text. Double the buffer
		// ourselves: append grows large slices by only 1.25x, which copies
		// a long answer many more times.
		*buf = slices.Grow(*buf, max(len(*buf), room))
	}
	start := len(*buf)
	var end int
	var err error
	*buf, end, err = appendStringUTF8(*buf, b.ev.data, i, b.ev.validUTF8)
	if err == nil && len(*buf) > start {
		b.ev.marks = append(b.ev.marks, mark{k, span{start, len(*buf)}})
	}
	return end, err
}

func (b *Bridge) buffer(k bufKind) *[]byte {
	switch k {
	case inReasoning:
		return &b.reasoning
	case inRefusal:
		return &b.refusal
	}
	return &b.content
}

func (b *Bridge) deltaMember(key []byte, i, depth int) (int, error) {
	d := b.ev.data
	e := &b.ev
	switch string(key) {
	case "content":
		switch d[i] {
		case '"':
			return b.appendText(inContent, i)
		case '[':
			return b.walkArray(i, depth, (*Bridge).contentPart)
		}
	case "reasoning_content", "reasoning":
		// Some servers send both names with the same text; the first
		// one in a delta wins so the text is not doubled.
		if d[i] == '"' {
			if e.reasoningSeen {
				return skipString(d, i)
			}
			before := len(b.reasoning)
			end, err := b.appendText(inReasoning, i)
			e.reasoningSeen = len(b.reasoning) > before
			return end, err
		}
	case "refusal":
		if d[i] == '"' {
			return b.appendText(inRefusal, i)
		}
	case "tool_calls":
		if d[i] == '[' {
			return b.walkArray(i, depth, (*Bridge).toolCall)
		}
	}
	return skipValue(d, i, depth)
}

// contentPart takes one element of a content array: a "text" part (or one
// with no type) is answer text; a "thinking" part (Mistral's reasoning
// models: {"type":"thinking","thinking":[{"type":"text","text":"..."}]})
// or a "reasoning" part is reasoning; any other type (references, images)
// is skipped without losing the others. Members may come in any order, so
// the part is walked first and its text taken after.
func (b *Bridge) contentPart(_, i, depth int) (int, error) {
	d := b.ev.data
	if d[i] != '{' {
		return skipValue(d, i, depth)
	}
	typ, text, thinking := noSpan, noSpan, noSpan
	end, err := b.walkObject(i, depth, func(b *Bridge, key []byte, i, depth int) (int, error) {
		s, end, err := b.valueSpan(i, depth)
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
	if typ.ok() && d[typ.start] == '"' {
		switch t := d[typ.start+1 : typ.end-1]; string(t) {
		case "text":
		case "thinking", "reasoning":
			kind = inReasoning
		default:
			return end, nil
		}
	}
	if kind == inReasoning && thinking.ok() {
		text = thinking
	}
	if !text.ok() {
		return end, nil
	}
	switch d[text.start] {
	case '"':
		_, err = b.appendText(kind, text.start)
	case '[':
		// Nested parts, as Mistral sends its thinking: their texts.
		_, err = b.walkArray(text.start, depth, func(b *Bridge, _, i, depth int) (int, error) {
			if b.ev.data[i] != '{' {
				return skipValue(b.ev.data, i, depth)
			}
			return b.walkObject(i, depth, func(b *Bridge, key []byte, i, depth int) (int, error) {
				if string(key) == "text" && b.ev.data[i] == '"' {
					return b.appendText(kind, i)
				}
				return skipValue(b.ev.data, i, depth)
			})
		})
	}
	return end, err
}

// arenaString decodes the string at d[i] into the arena.
func (b *Bridge) arenaString(i int) (span, int, error) {
	e := &b.ev
	start := len(e.arena)
	var end int
	var err error
	e.arena, end, err = appendStringUTF8(e.arena, e.data, i, e.validUTF8)
	return span{start, len(e.arena)}, end, err
}

// arenaRaw copies the raw JSON value d[i:end] into the arena.
func (b *Bridge) arenaRaw(i, depth int) (span, int, error) {
	e := &b.ev
	end, err := skipValue(e.data, i, depth)
	if err != nil {
		return noSpan, end, err
	}
	start := len(e.arena)
	e.arena = append(e.arena, e.data[i:end]...)
	return span{start, len(e.arena)}, end, nil
}

func (b *Bridge) toolCall(_, i, depth int) (int, error) {
	d := b.ev.data
	e := &b.ev
	if d[i] != '{' {
		return skipValue(d, i, depth)
	}
	e.calls = append(e.calls, pendingCall{noIndex: true, id: noSpan, typ: noSpan, name: noSpan, args: noSpan, extra: noSpan})
	n := len(e.calls) - 1
	end, err := b.walkObject(i, depth, (*Bridge).toolCallMember)
	if err != nil {
		return end, err
	}
	c := &e.calls[n]
	if c.extra.ok() {
		e.extras = append(e.extras, '}')
		c.extra.end = len(e.extras)
	} else if c.id.empty() && c.name.empty() && c.args.empty() {
		// A fragment with nothing in it (an index alone) is no progress:
		// it neither reaches the assembler nor keeps the idle timer alive.
		e.calls = e.calls[:n]
		return end, nil
	}
	e.marks = append(e.marks, mark{inCall, span{n, n}})
	return end, nil
}

func (b *Bridge) toolCallMember(key []byte, i, depth int) (int, error) {
	d := b.ev.data
	e := &b.ev
	c := &e.calls[len(e.calls)-1]
	var s span
	var end int
	var err error
	switch string(key) {
	case "index":
		end, err = skipValue(d, i, depth)
		if err == nil {
			n, ok := parseIndex(d[i:end])
			c.index, c.noIndex = n, !ok
		}
		return end, err
	case "id", "type":
		if d[i] != '"' {
			return skipValue(d, i, depth) // not a string: ignored, never echoed as an extra
		}
		s, end, err = b.arenaString(i)
		if string(key) == "id" {
			c.id = s
		} else {
			c.typ = s
		}
		return end, err
	case "function":
		if d[i] == '{' {
			return b.walkObject(i, depth, (*Bridge).functionMember)
		}
		return skipValue(d, i, depth)
	}
	if d[i] == 'n' {
		return skipValue(d, i, depth)
	}
	// Any other member is a provider extra, kept as raw JSON and echoed
	// back with the call. Its span grows as members are appended.
	if !c.extra.ok() {
		c.extra = span{len(e.extras), 0}
		e.extras = append(e.extras, '{')
	} else {
		e.extras = append(e.extras, ',')
	}
	e.extras = appendQuoted(e.extras, key)
	e.extras = append(e.extras, ':')
	end, err = skipValue(d, i, depth)
	if err == nil {
		e.extras = append(e.extras, d[i:end]...)
	}
	return end, err
}

// appendQuoted appends s as a JSON string.
func appendQuoted(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

func (b *Bridge) functionMember(key []byte, i, depth int) (int, error) {
	d := b.ev.data
	e := &b.ev
	c := &e.calls[len(e.calls)-1]
	switch string(key) {
	case "name":
		if d[i] == '"' {
			s, end, err := b.arenaString(i)
			c.name = s
			return end, err
		}
	case "arguments":
		switch d[i] {
		case '"':
			s, end, err := b.arenaString(i)
			c.args = s
			return end, err
		case 'n':
		default:
			// Arguments sent as a JSON value instead of a string (seen
			// through some proxies) are that value's JSON text.
			s, end, err := b.arenaRaw(i, depth)
			c.args = s
			return end, err
		}
	}
	return skipValue(d, i, depth)
}

// apiErrorFrom decodes a provider error (see provider_error.go); raw of no
// known shape, JSON or not, is the message as it is.
func apiErrorFrom(raw []byte, status int) *APIError {
	if e, ok := parseProviderError(raw, status); ok {
		return e
	}
	return &APIError{StatusCode: status, Message: string(raw)}
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
