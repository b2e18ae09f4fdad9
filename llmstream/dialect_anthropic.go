package llmstream

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"unsafe"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// This file is the Anthropic Messages dialect (DialectAnthropic): the
// decoder of its event stream and its error bodies. The request encoder is
// in encode_anthropic.go.
//
// A stream is message_start (the message's id, model and first usage),
// then content blocks — content_block_start,
// deltas, content_block_stop, each with the block's index in the final
// content — then message_delta (stop reason, cumulative usage) and
// message_stop, with ping events anywhere. Text blocks are the answer,
// thinking blocks the reasoning (kept whole, with their signatures, for the
// next request), tool_use blocks the calls; every other block (redacted
// thinking, server tools and their results, compaction) is kept whole in
// the continuity state and never reaches Content or the calls.

// DefaultAnthropicBaseURL is the base URL of an Anthropic [Client] when
// none is set.
const DefaultAnthropicBaseURL = "https://api.anthropic.com/v1"

// AnthropicVersion is the anthropic-version header every Anthropic request
// carries.
const AnthropicVersion = "2023-06-01"

type anthropicProtocol struct{}

func (anthropicProtocol) defaultBase() string  { return DefaultAnthropicBaseURL }
func (anthropicProtocol) providerName() string { return "anthropic" }
func (anthropicProtocol) emptyPath() string    { return "/v1" }
func (anthropicProtocol) doneSentinel() string { return "" }

func (anthropicProtocol) endpoint(base *url.URL, _ string) (string, error) {
	return withSuffix(base, "/messages"), nil
}

func (anthropicProtocol) header(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("X-Api-Key", apiKey)
	}
	h.Set("Anthropic-Version", AnthropicVersion)
}

func (anthropicProtocol) newDecoder(s sink) decoder { return &anthropicDecoder{b: s} }

// parseError reads {"type":"error","error":{"type":...,"message":...}}, as
// an HTTP body and as an error event, and the shapes chat servers use
// (proxies in front of Anthropic answer in them).
func (anthropicProtocol) parseError(raw []byte, status int) (*APIError, bool) {
	return parseClassified(raw, status)
}

// blockKind says how an Anthropic content block is kept.
type blockKind uint8

const (
	blockText     blockKind = iota + 1 // answer text: Content
	blockThinking                      // reasoning, kept whole with its signature
	blockToolUse                       // a call: the assembler
	blockRaw                           // anything else, kept whole
)

// antBlock is one content block between its start and its stop.
type antBlock struct {
	index     int // the block's index in the message's content
	kind      blockKind
	slot      int  // its position in Bridge.blocks
	open      bool // started, not stopped
	textStart int  // for text and thinking: where its text began in the buffer
	deltas    bool // a tool_use block got input deltas

	// For thinking and raw blocks, the block is rebuilt at its stop from
	// the start's members and what the deltas added to them.
	members *antMembers // thinking and raw blocks only
	input   []byte      // raw blocks: streamed partial JSON of "input"
	start   []byte      // tool_use: the start's own "input", used when no delta came
}

// anthropicDecoder reads Anthropic message events into a sink.
type anthropicDecoder struct {
	b       sink
	doc     jsonscan.Doc
	started bool   // message_start arrived
	id      string // its message id, to know a repeated message_start
	blocks  []antBlock
	byIndex map[int]int // block index → position in blocks, once they stop being equal
	open    int         // blocks started and not stopped
	arena   []byte      // decoded strings of the current event
	name    string      // the SSE event name, for data without "type"
	walk    deltaWalk   // deltaMembers' walk, kept here so that it allocates nothing

	// The current event's members, as spans of doc.data: the top level,
	// then inside "delta" (inDelta) and "content_block" (inBlock). Read in the
	// one walk that validates the event, so a delta costs no allocation.
	typ, index, message, block, delta, usage jsonscan.Span
	inDelta                                  struct{ typ, text, thinking, signature, partial, stop, container jsonscan.Span }
	inBlock                                  struct{ typ, text, id, name, input, caller jsonscan.Span }
}

func (a *anthropicDecoder) complete() bool { return a.b.ended() }

func (a *anthropicDecoder) event(ev *sse.Event) error {
	b := a.b
	if len(ev.Data) == 0 {
		return nil
	}
	a.typ, a.index, a.message, a.block, a.delta, a.usage = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	a.inDelta.typ, a.inDelta.text, a.inDelta.thinking, a.inDelta.signature, a.inDelta.partial, a.inDelta.stop, a.inDelta.container = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	a.resetBlockMembers()
	if err := readEvent(b, &a.doc, a, ev, (*anthropicDecoder).member); err != nil {
		return err
	}
	a.name = ev.Type
	return a.apply(ev)
}

// is reports the event's type: its data's "type", else (a proxy may drop
// it) the SSE event name.
func (a *anthropicDecoder) is(typ string) bool {
	if a.typ.OK() {
		return a.doc.Is(a.typ, typ)
	}
	return a.name == typ
}

// member records the top-level members the decoder reads; every value is
// validated on the way.
func (a *anthropicDecoder) member(key []byte, i, depth int) (int, error) {
	d := a.doc.Data
	switch string(key) {
	case "delta":
		if d[i] == '{' {
			a.delta = jsonscan.Span{Start: i, End: 0}
			end, err := jsonscan.WalkObject(&a.doc, a, i, depth, (*anthropicDecoder).deltaMember)
			a.delta.End = end
			return end, err
		}
	case "content_block":
		if d[i] == '{' {
			a.block = jsonscan.Span{Start: i, End: 0}
			end, err := jsonscan.WalkObject(&a.doc, a, i, depth, (*anthropicDecoder).blockMember)
			a.block.End = end
			return end, err
		}
	}
	if string(key) == "message" {
		depth = jsonscan.ArgsDepth // its content may hold a call's input (see blockMember)
	}
	s, end, err := a.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		a.typ = s
	case "index":
		a.index = s
	case "message":
		a.message = s
	case "usage":
		a.usage = s
	}
	return end, err
}

func (a *anthropicDecoder) deltaMember(key []byte, i, depth int) (int, error) {
	s, end, err := a.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		a.inDelta.typ = s
	case "text":
		a.inDelta.text = s
	case "thinking":
		a.inDelta.thinking = s
	case "signature":
		a.inDelta.signature = s
	case "partial_json":
		a.inDelta.partial = s
	case "stop_reason":
		a.inDelta.stop = s
	case "container":
		a.inDelta.container = s
	}
	return end, err
}

func (a *anthropicDecoder) resetBlockMembers() {
	a.inBlock.typ, a.inBlock.text, a.inBlock.id, a.inBlock.name, a.inBlock.input, a.inBlock.caller = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
}

func (a *anthropicDecoder) blockMember(key []byte, i, depth int) (int, error) {
	if string(key) == "input" {
		depth = jsonscan.ArgsDepth
	}
	s, end, err := a.doc.ValueSpan(i, depth)
	switch string(key) {
	case "type":
		a.inBlock.typ = s
	case "text", "thinking":
		a.inBlock.text = s
	case "id":
		a.inBlock.id = s
	case "name":
		a.inBlock.name = s
	case "input":
		a.inBlock.input = s
	case "caller":
		a.inBlock.caller = s
	}
	return end, err
}

func (a *anthropicDecoder) apply(ev *sse.Event) error {
	b := a.b
	switch {
	case a.is("content_block_delta"):
		return a.blockDelta(ev)
	case a.is("message_start"):
		return a.startMessage(ev)
	case a.is("content_block_start"):
		return a.startBlock(ev)
	case a.is("content_block_stop"):
		blk, err := a.openBlock(ev)
		if err != nil {
			return err
		}
		return a.stopBlock(ev, blk)
	case a.is("message_delta"):
		if !a.started {
			return a.b.outOfOrder(ev, 0, "message_delta before message_start")
		}
		if a.doc.IsString(a.inDelta.stop) {
			raw := string(a.doc.Str(a.arena[:0], a.inDelta.stop))
			b.setFinish(raw, anthropicStopReason(raw))
			b.progress()
		}
		if a.usage.OK() {
			a.applyUsage(a.usage) // cumulative: the last one is the whole
		}
		if a.inDelta.container.OK() {
			b.setContainer(a.doc.Data[a.inDelta.container.Start:a.inDelta.container.End])
		}
		return nil
	case a.is("message_stop"):
		if !a.started {
			return a.b.outOfOrder(ev, 0, "message_stop before message_start")
		}
		if a.open > 0 {
			for i := range a.blocks { // once, on the way out
				if a.blocks[i].open {
					return a.b.outOfOrder(ev, 0, fmt.Sprintf("message_stop with block %d still open", a.blocks[i].index))
				}
			}
		}
		b.end()
		return nil
	case a.is("error"):
		return b.fail(b.apiError(ev.Data))
	}
	return nil // ping, and event types added later
}

// fields calls fn for each member of the validated object at s.
func (a *anthropicDecoder) fields(s jsonscan.Span, fn func(key []byte, v jsonscan.Span)) {
	if !s.OK() || a.doc.Data[s.Start] != '{' {
		return
	}
	jsonscan.WalkObject(&a.doc, fn, s.Start, 0, func(fn func([]byte, jsonscan.Span), key []byte, i, depth int) (int, error) {
		v, end, err := a.doc.ValueSpan(i, depth)
		fn(key, v)
		return end, err
	})
}

// eventIndex is the event's block index.
func (a *anthropicDecoder) eventIndex(ev *sse.Event) (int, error) {
	if !a.index.OK() || a.doc.Data[a.index.Start] < '0' || a.doc.Data[a.index.Start] > '9' {
		return 0, a.b.outOfOrder(ev, 0, "an event without a block index")
	}
	n, ok := jsonscan.ParseIndex(a.doc.Data[a.index.Start:a.index.End])
	if !ok || n > toolcall.MaxIndex {
		return 0, a.b.outOfOrder(ev, 0, "a block index that is not a small integer")
	}
	return n, nil
}

// openBlock is the open block the event's index names.
func (a *anthropicDecoder) openBlock(ev *sse.Event) (*antBlock, error) {
	n, err := a.eventIndex(ev)
	if err != nil {
		return nil, err
	}
	blk := a.lookup(n)
	switch {
	case blk == nil:
		return nil, a.b.outOfOrder(ev, 0, fmt.Sprintf("an event for block %d, which never started", n))
	case !blk.open:
		return nil, a.b.outOfOrder(ev, 0, fmt.Sprintf("an event for block %d after its stop", n))
	}
	return blk, nil
}

// lookup returns the block with index n, nil when none started. Blocks
// nearly always arrive with their index equal to their position; a map
// takes over when they do not, so that finding one stays constant time.
func (a *anthropicDecoder) lookup(n int) *antBlock {
	if n < len(a.blocks) && a.blocks[n].index == n {
		return &a.blocks[n]
	}
	if pos, ok := a.byIndex[n]; ok {
		return &a.blocks[pos]
	}
	return nil
}

// add records blk as the next block.
func (a *anthropicDecoder) add(blk antBlock) *antBlock {
	pos := len(a.blocks)
	if pos != blk.index && a.byIndex == nil {
		a.byIndex = make(map[int]int)
		for p := range a.blocks {
			a.byIndex[a.blocks[p].index] = p
		}
	}
	if a.byIndex != nil {
		a.byIndex[blk.index] = pos
	}
	a.blocks = append(roomForOne(a.blocks), blk)
	a.open++
	return &a.blocks[pos]
}

// startMessage is message_start. A repeat of it with the same id before
// any block (a proxy that retried) changes nothing; any other second
// message_start is a spliced stream. Blocks the message already holds (a
// turn resumed after programmatic tool calls arrives whole in it) are
// taken as if they had streamed, in order, before any streamed block.
func (a *anthropicDecoder) startMessage(ev *sse.Event) error {
	var id, content, usage, container, stop, model jsonscan.Span = jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan, jsonscan.NoSpan
	a.fields(a.message, func(key []byte, s jsonscan.Span) {
		switch string(key) {
		case "id":
			id = s
		case "model":
			model = s
		case "stop_reason":
			stop = s
		case "content":
			content = s
		case "usage":
			usage = s
		case "container":
			container = s
		}
	})
	if a.started {
		if len(a.blocks) == 0 && a.doc.IsString(id) && string(a.doc.Str(a.arena[:0], id)) == a.id {
			return nil
		}
		return a.b.outOfOrder(ev, 0, "a second message_start")
	}
	a.started = true
	a.b.setModel(&a.doc, model)
	a.id = a.doc.Text(id)
	if usage.OK() {
		a.applyUsage(usage)
	}
	if container.OK() {
		a.b.setContainer(a.doc.Data[container.Start:container.End])
	}
	if a.doc.IsString(stop) { // a message that arrives whole is finished already
		raw := string(a.doc.Str(nil, stop))
		a.b.setFinish(raw, anthropicStopReason(raw))
	}
	if !content.OK() || a.doc.Data[content.Start] != '[' {
		return nil
	}
	_, err := jsonscan.WalkArray(&a.doc, a, content.Start, 0, func(a *anthropicDecoder, pos, i, depth int) (int, error) {
		if a.doc.Data[i] != '{' {
			return jsonscan.SkipValue(a.doc.Data, i, depth)
		}
		a.resetBlockMembers()
		a.block = jsonscan.Span{Start: i, End: 0}
		end, err := jsonscan.WalkObject(&a.doc, a, i, depth, (*anthropicDecoder).blockMember)
		a.block.End = end
		if err != nil {
			return end, err
		}
		if err := a.startBlockAt(ev, pos); err != nil {
			return end, err
		}
		return end, a.stopBlock(ev, &a.blocks[len(a.blocks)-1])
	})
	return err
}

func (a *anthropicDecoder) startBlock(ev *sse.Event) error {
	if !a.started {
		return a.b.outOfOrder(ev, 0, "content_block_start before message_start")
	}
	n, err := a.eventIndex(ev)
	if err != nil {
		return err
	}
	return a.startBlockAt(ev, n)
}

// startBlockAt opens block n from the content block just read.
func (a *anthropicDecoder) startBlockAt(ev *sse.Event, n int) error {
	b := a.b
	if a.lookup(n) != nil {
		return a.b.outOfOrder(ev, 0, fmt.Sprintf("block %d started twice", n))
	}
	if !a.block.OK() || a.doc.Data[a.block.Start] != '{' {
		return a.b.outOfOrder(ev, 0, "content_block_start without a content block")
	}
	typ, text, id, name, input, caller := a.inBlock.typ, a.inBlock.text, a.inBlock.id, a.inBlock.name, a.inBlock.input, a.inBlock.caller
	blk := antBlock{index: n, open: true, slot: b.blockCount()}
	switch {
	case a.doc.Is(typ, "text"):
		blk.kind, blk.textStart = blockText, len(b.content())
		b.addBlock(Block{Type: BlockText})
		if a.doc.IsString(text) {
			if err := b.text(inContent, &a.doc, text); err != nil {
				return err
			}
		}
	case a.doc.Is(typ, "thinking"):
		blk.kind, blk.textStart = blockThinking, len(b.reasoning())
		a.startMembers(&blk)
		b.addBlock(Block{Type: "thinking"})
		if a.doc.IsString(text) {
			if err := b.text(inReasoning, &a.doc, text); err != nil {
				return err
			}
		}
	case a.doc.Is(typ, "tool_use"):
		blk.kind = blockToolUse
		b.addBlock(Block{Type: BlockToolCall, Call: n})
		if input.OK() && a.doc.Data[input.Start] == '{' {
			blk.start = slices.Clone(a.doc.Data[input.Start:input.End])
		}
		f := toolcall.Fragment{Index: n, Type: "function", ID: a.doc.Text(id), Name: a.doc.Text(name)}
		if caller.OK() && a.doc.Data[caller.Start] == '{' {
			// Who called it (programmatic tool calling: the code
			// execution tool); kept on the call and written back on it.
			f.Extra = append(append([]byte(`{"caller":`), a.doc.Data[caller.Start:caller.End]...), '}')
		}
		if err := b.addFragment(f); err != nil {
			return err
		}
	default:
		blk.kind = blockRaw
		a.startMembers(&blk)
		t := "block"
		if a.doc.IsString(typ) {
			t = string(a.doc.Str(nil, typ))
		}
		b.addBlock(Block{Type: t})
	}
	a.add(blk)
	return nil
}

func (a *anthropicDecoder) blockDelta(ev *sse.Event) error {
	b := a.b
	blk, err := a.openBlock(ev)
	if err != nil {
		return err
	}
	dtype := a.inDelta.typ
	switch blk.kind {
	case blockText:
		if a.doc.Is(dtype, "text_delta") && a.doc.IsString(a.inDelta.text) {
			return b.text(inContent, &a.doc, a.inDelta.text)
		}
		return nil // citations_delta: references, not text
	case blockThinking:
		switch {
		case a.doc.Is(dtype, "thinking_delta") && a.doc.IsString(a.inDelta.thinking):
			return b.text(inReasoning, &a.doc, a.inDelta.thinking)
		case a.doc.Is(dtype, "signature_delta") && a.doc.IsString(a.inDelta.signature):
			blk.members.extend(&a.doc, []byte("signature"), nil, a.inDelta.signature)
		}
		return nil
	case blockToolUse:
		if !a.doc.Is(dtype, "input_json_delta") {
			return nil
		}
		if !a.doc.IsString(a.inDelta.partial) {
			return nil
		}
		a.arena = a.doc.Str(a.arena[:0], a.inDelta.partial)
		if len(a.arena) == 0 {
			return nil // the first delta is often empty
		}
		blk.deltas = true
		// Not copied: Add copies the arguments into its call and keeps
		// nothing of the fragment.
		args := unsafe.String(unsafe.SliceData(a.arena), len(a.arena))
		return b.addFragment(toolcall.Fragment{Index: blk.index, Arguments: args})
	}
	// A raw block: input deltas build its "input"; any other delta's
	// string members extend the start's members of the same name
	// (compaction_delta's "content", say).
	if a.doc.Is(dtype, "input_json_delta") {
		if a.doc.IsString(a.inDelta.partial) {
			blk.input = a.doc.Str(blk.input, a.inDelta.partial)
		}
		return nil
	}
	a.deltaMembers(blk)
	return nil
}

// stopBlock closes a block and records what it became.
func (a *anthropicDecoder) stopBlock(ev *sse.Event, blk *antBlock) error {
	b := a.b
	blk.open = false
	a.open--
	slot := b.block(blk.slot)
	switch blk.kind {
	case blockText:
		slot.Bytes = len(b.content()) - blk.textStart
	case blockThinking:
		// The thinking text is the reasoning this block added, whether or
		// not its start named the member: the signature covers it.
		blk.members.set("thinking", jsonscan.AppendQuoted(nil, b.reasoning()[blk.textStart:]))
		slot.Raw = blk.members.rebuild()
	case blockToolUse:
		if !blk.deltas && len(blk.start) > 0 && !jsonscan.IsEmptyObject(blk.start) {
			// No delta came: the start's own input is the arguments.
			if err := b.addFragment(toolcall.Fragment{Index: blk.index, Arguments: string(blk.start)}); err != nil {
				return err
			}
		}
	case blockRaw:
		if len(blk.input) > 0 {
			if !jsonscan.Valid(blk.input) {
				return b.fail(b.eventError(ev.Data, 0, fmt.Errorf("the streamed input of %q block %d is not JSON", slot.Type, blk.index)))
			}
			blk.members.set("input", blk.input)
		}
		slot.Raw = blk.members.rebuild()
	}
	// An empty text block carries nothing: it does not count as progress
	// (the idle timeout), as a ping does not.
	if blk.kind != blockText || slot.Bytes > 0 {
		b.progress()
	}
	blk.members, blk.input, blk.start = nil, nil, nil
	return nil
}

// applyUsage reads an Anthropic usage object. Each report is cumulative,
// the whole so far, and the last one stands: message_delta's replaces
// message_start's, even when smaller (with compaction, message_start
// counts the compaction step's input and the last message_delta the
// answer's). A count reported as 0, or not reported, keeps the one held:
// servers that speak the dialect send "input_tokens": 0 in message_delta,
// which would erase the prompt count of message_start.
// output_tokens_details.thinking_tokens is the reasoning part of the
// output; "iterations" (one entry per sampling step) gives the billed
// totals.
func (a *anthropicDecoder) applyUsage(s jsonscan.Span) {
	b := a.b
	u := b.usageRef()
	u.PromptExcludesCache = true // input_tokens leaves the cache out
	set := func(dst *int, v jsonscan.Span) {
		if n, ok := jsonscan.Int(a.doc.Data, v); ok && n > 0 {
			*dst = n
		}
	}
	a.fields(s, func(key []byte, v jsonscan.Span) {
		switch string(key) {
		case "output_tokens_details":
			a.fields(v, func(key []byte, v jsonscan.Span) {
				if string(key) == "thinking_tokens" {
					set(&u.ReasoningTokens, v)
				}
			})
		case "iterations":
			a.applyIterations(u, v)
		case "input_tokens":
			set(&u.PromptTokens, v)
		case "output_tokens":
			set(&u.CompletionTokens, v)
		case "cache_read_input_tokens":
			set(&u.CachedTokens, v)
		case "cache_creation_input_tokens":
			set(&u.CacheWriteTokens, v)
		}
	})
	// input_tokens leaves the cached tokens out.
	u.TotalTokens = u.PromptTokens + u.CachedTokens + u.CacheWriteTokens + u.CompletionTokens
}

// applyIterations sums the steps of usage.iterations into the billed
// counts; a report without them keeps the sums held.
func (a *anthropicDecoder) applyIterations(u *Usage, s jsonscan.Span) {
	if !s.OK() || a.doc.Data[s.Start] != '[' {
		return
	}
	var in, out int
	jsonscan.WalkArray(&a.doc, a, s.Start, 0, func(a *anthropicDecoder, _, i, depth int) (int, error) {
		v, end, err := a.doc.ValueSpan(i, depth)
		a.fields(v, func(key []byte, v jsonscan.Span) {
			n, _ := jsonscan.Int(a.doc.Data, v)
			switch string(key) {
			case "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens":
				in += n
			case "output_tokens":
				out += n
			}
		})
		return end, err
	})
	if in > 0 || out > 0 {
		u.BilledPromptTokens, u.BilledCompletionTokens = in, out
	}
}

// anthropicStopReason maps an Anthropic stop_reason.
func anthropicStopReason(r string) StopReason {
	switch r {
	case "end_turn", "stop_sequence":
		return StopEndTurn
	case "tool_use":
		return StopToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return StopLength
	case "refusal":
		return StopRefusal
	case "pause_turn":
		return StopPause
	case "":
		return 0
	}
	return StopOther
}

// errorKind maps Anthropic's error types.
func (anthropicProtocol) errorKind(t string) ErrorKind {
	switch t {
	case "rate_limit_error":
		return ErrorRateLimited
	case "overloaded_error":
		return ErrorOverloaded
	case "authentication_error":
		return ErrorAuthentication
	case "permission_error", "billing_error":
		return ErrorPermission
	case "request_too_large":
		return ErrorInvalidRequest
	case "not_found_error":
		return ErrorNotFound
	case "api_error", "timeout_error":
		return ErrorServer
	}
	return ErrorUnknown
}
