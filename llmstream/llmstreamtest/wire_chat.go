package llmstreamtest

import (
	"cmp"
	"math/rand/v2"
	"strconv"

	"github.com/airlock-go/airlock/llmstream"
)

// created is the "created" time of every chunk, in Unix seconds: fixed, so
// a stream depends only on the script, the seed and the request number.
const created = 1767225600 // 2026-01-01T00:00:00Z

// event is one SSE event of a stream, ready to write.
type event struct {
	data []byte
	// final is set on the event that carries the finish reason and on
	// those after it.
	final bool
}

// renderer turns one turn into the events of one dialect (and, for chat,
// one flavour).
type renderer struct {
	wire         wire
	flavor       Flavor
	turn         Turn
	seq          int
	model        string
	includeUsage bool
	rng          *rand.Rand
	interleave   bool
	streamArgs   bool  // Gemini: calls as partialArgs
	err          error // the first encoding failure
}

func newRenderer(c *config, w wire, req *Request, t Turn) *renderer {
	model := cmp.Or(t.Model, req.Model, "llmstreamtest")
	return &renderer{
		wire:         w,
		flavor:       c.flavor,
		turn:         t,
		seq:          req.Seq,
		model:        model,
		includeUsage: req.includeUsage(),
		rng:          rand.New(rand.NewPCG(c.seed, uint64(req.Seq))),
		interleave:   c.interleave,
		streamArgs:   c.streamArgs,
	}
}

func (r *renderer) id() string { return "chatcmpl-" + strconv.Itoa(r.seq) }

// render returns the turn's events.
func (r *renderer) render() ([]event, error) {
	evs := r.wire.render(r)
	return evs, r.err
}

// chatWire is the OpenAI Chat Completions dialect, in the configured
// flavour.
type chatWire struct{}

func (chatWire) dialect() llmstream.Dialect { return llmstream.DialectChat }
func (chatWire) decode(r *Request) error    { return r.decodeChat() }
func (chatWire) end() []byte                { return doneEvent }
func (chatWire) keepAlive() []byte          { return keepAliveComment }

func (chatWire) render(r *renderer) []event {
	switch r.flavor {
	case Ollama:
		return r.ollama()
	case Gemini:
		return r.gemini()
	}
	return r.streamed()
}

// errorBody is OpenAI's error body; a fault that names neither type nor
// code gets the ones OpenAI gives the status, as in the Responses wire.
func (chatWire) errorBody(status int, f Fault) []byte {
	if f.Type == "" && f.Code == nil {
		f.Type, f.Code = responsesErrorKind(status)
	}
	return errorBody(f)
}

func (chatWire) errorEvent(r *renderer, f Fault) []byte { return r.errorEvent(f) }

func (chatWire) malformed(r *renderer) []byte { return r.malformedEvent() }

// encode returns v as an SSE data event.
func (r *renderer) encode(v any) []byte {
	b, err := appendJSON([]byte("data: "), v)
	if err != nil {
		if r.err == nil {
			r.err = err
		}
		return dataEvent([]byte("{}"))
	}
	return append(b, '\n', '\n')
}

func dataEvent(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, '\n', '\n')
}

// envelope returns the chunk object around choices, with the flavour's
// members in the flavour's order.
func (r *renderer) envelope(choices any) object {
	switch r.flavor {
	case Azure:
		return object{{"choices", choices}, {"created", created}, {"id", r.id()}, {"model", r.model},
			{"object", "chat.completion.chunk"}, {"system_fingerprint", "fp_llmstreamtest"}}
	case Gemini:
		return object{{"choices", choices}, {"created", created}, {"id", r.id()}, {"model", r.model},
			{"object", "chat.completion.chunk"}}
	case LlamaCpp:
		return object{{"choices", choices}, {"created", created}, {"id", r.id()}, {"model", r.model},
			{"system_fingerprint", "b1-llmstreamtest"}, {"object", "chat.completion.chunk"}}
	case Ollama:
		return object{{"id", r.id()}, {"object", "chat.completion.chunk"}, {"created", created},
			{"model", r.model}, {"system_fingerprint", "fp_ollama"}, {"choices", choices}}
	case VLLM:
		return object{{"id", r.id()}, {"object", "chat.completion.chunk"}, {"created", created},
			{"model", r.model}, {"choices", choices}}
	}
	return object{{"id", r.id()}, {"object", "chat.completion.chunk"}, {"created", created},
		{"model", r.model}, {"service_tier", "default"}, {"system_fingerprint", "fp_llmstreamtest"},
		{"choices", choices}}
}

// chunk returns one event of a chunk whose only choice has delta and
// finish (nil for none).
func (r *renderer) chunk(delta object, finish any) event {
	c := object{{"index", 0}, {"delta", delta}, {"logprobs", nil}, {"finish_reason", finish}}
	switch r.flavor {
	case Azure:
		c = c.with("content_filter_results", safeFilter())
	case VLLM:
		c = c.with("stop_reason", nil)
	}
	return event{data: r.encode(r.openAIExtras(r.envelope([]any{c}))), final: finish != nil}
}

// openAIExtras adds OpenAI's per-chunk members: "usage":null when usage
// was asked for, and the obfuscation padding.
func (r *renderer) openAIExtras(o object) object {
	if r.flavor != OpenAI {
		return o
	}
	if r.includeUsage {
		o = o.with("usage", nil)
	}
	return o.with("obfuscation", r.padding())
}

// padding returns 1..12 random letters.
func (r *renderer) padding() string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	b := make([]byte, 1+r.rng.IntN(12))
	for i := range b {
		b[i] = letters[r.rng.IntN(len(letters))]
	}
	return string(b)
}

// usageEvent returns the final "choices":[] chunk carrying the usage.
func (r *renderer) usageEvent(u *llmstream.Usage) event {
	o := r.envelope([]any{})
	if r.flavor == OpenAI {
		o = o.with("usage", u).with("obfuscation", r.padding())
	} else {
		o = o.with("usage", u)
	}
	return event{data: r.encode(o), final: true}
}

// safeFilter is Azure's content-filter verdict on harmless text.
func safeFilter() object {
	safe := object{{"filtered", false}, {"severity", "safe"}}
	return object{{"hate", safe}, {"self_harm", safe}, {"sexual", safe}, {"violence", safe}}
}

// roleDelta is the first chunk's delta of the streamed flavours.
func (r *renderer) roleDelta() object {
	switch r.flavor {
	case LlamaCpp:
		return object{{"role", "assistant"}, {"content", nil}}
	case VLLM:
		return object{{"role", "assistant"}, {"content", ""}}
	}
	return object{{"role", "assistant"}, {"content", ""}, {"refusal", nil}}
}

// header returns call i's first fragment: id, type, name and (except
// vLLM) empty arguments, plus its extra members.
func (r *renderer) header(i int) object {
	c := r.turn.ToolCalls[i]
	id := c.callID(r.flavor, r.seq, i)
	var o object
	if r.flavor == VLLM {
		o = object{{"id", id}, {"type", "function"}, {"index", i}, {"function", object{{"name", c.Name}}}}
	} else {
		o = object{{"index", i}, {"id", id}, {"type", "function"},
			{"function", object{{"name", c.Name}, {"arguments", ""}}}}
	}
	return o.withExtra(c.Extra)
}

// pieceDelta returns the delta of one piece in a streamed flavour.
func (r *renderer) pieceDelta(p piece) object {
	var d object
	if r.flavor == VLLM && p.kind != pieceText {
		d = object{{"content", nil}}
	}
	switch p.kind {
	case pieceReasoning:
		return d.with("reasoning_content", p.text)
	case pieceText:
		return d.with("content", p.text)
	case pieceRefusal:
		return d.with("refusal", p.text)
	case pieceHeader:
		return d.with("tool_calls", []any{r.header(p.call)})
	}
	frag := object{{"index", p.call}, {"function", object{{"arguments", p.text}}}}
	return d.with("tool_calls", []any{frag})
}

// streamed renders the flavours that send calls in fragments: OpenAI,
// Azure, vLLM, llama.cpp.
func (r *renderer) streamed() []event {
	t := r.turn
	ps := append(prosePieces(t), callPieces(t.ToolCalls, r.rng, r.interleave)...)
	finish := t.finishReason(r.flavor)
	var evs []event
	if r.flavor == Azure {
		pf := object{{"prompt_index", 0}, {"content_filter_results", safeFilter()}}
		evs = append(evs, event{data: r.encode(object{{"choices", []any{}}, {"created", 0}, {"id", ""},
			{"model", ""}, {"object", ""}, {"prompt_filter_results", []any{pf}}})})
	}
	if r.flavor == OpenAI && len(ps) > 0 && ps[0].kind == pieceHeader {
		// OpenAI puts the first call's header on the role chunk.
		d := object{{"role", "assistant"}, {"content", nil}, {"tool_calls", []any{r.header(ps[0].call)}}, {"refusal", nil}}
		evs = append(evs, r.chunk(d, nil))
		ps = ps[1:]
	} else {
		evs = append(evs, r.chunk(r.roleDelta(), nil))
	}
	// vLLM sends the last fragment and the finish reason together.
	merge := r.flavor == VLLM && len(t.ToolCalls) > 0 && len(ps) > 0
	for i, p := range ps {
		if merge && i == len(ps)-1 {
			evs = append(evs, r.chunk(r.pieceDelta(p), finish))
			continue
		}
		evs = append(evs, r.chunk(r.pieceDelta(p), nil))
	}
	if r.flavor == Azure {
		// A choice with no delta: Azure's late content-filter verdict.
		c := object{{"index", 0}, {"finish_reason", nil}, {"content_filter_results", safeFilter()}}
		evs = append(evs, event{data: r.encode(r.envelope([]any{c}))})
	}
	switch {
	case merge:
	case r.flavor == VLLM:
		evs = append(evs, r.chunk(object{{"content", ""}}, finish))
	case r.flavor == LlamaCpp:
		evs = append(evs, r.llamaFinish(finish))
	default:
		evs = append(evs, r.chunk(object{}, finish))
	}
	if r.flavor != LlamaCpp && r.includeUsage && t.Usage != nil {
		evs = append(evs, r.usageEvent(t.Usage))
	}
	return evs
}

// llamaFinish is llama.cpp's finish chunk, with usage and timings.
func (r *renderer) llamaFinish(finish string) event {
	c := object{{"finish_reason", finish}, {"index", 0}, {"delta", object{}}, {"logprobs", nil}}
	o := r.envelope([]any{c})
	predicted := 0
	if r.turn.Usage != nil {
		o = o.with("usage", r.turn.Usage)
		predicted = r.turn.Usage.CompletionTokens
	}
	o = o.with("timings", object{{"prompt_n", 0}, {"prompt_ms", 1.5}, {"predicted_n", predicted}, {"predicted_ms", 2.5}})
	return event{data: r.encode(o), final: true}
}

// wholeCall returns call i as one object, for the flavours that send calls
// whole. Gemini sends no index.
func (r *renderer) wholeCall(i int) object {
	c := r.turn.ToolCalls[i]
	fn := object{{"name", c.Name}, {"arguments", c.Arguments}}
	id := c.callID(r.flavor, r.seq, i)
	if r.flavor == Gemini {
		return object{{"function", object{{"arguments", c.Arguments}, {"name", c.Name}}}, {"id", id},
			{"type", "function"}}.withExtra(c.Extra)
	}
	return object{{"id", id}, {"index", i}, {"type", "function"}, {"function", fn}}.withExtra(c.Extra)
}

func (r *renderer) wholeCalls() []any {
	calls := make([]any, len(r.turn.ToolCalls))
	for i := range calls {
		calls[i] = r.wholeCall(i)
	}
	return calls
}

// ollama renders Ollama's shape: role on every chunk, whole calls.
func (r *renderer) ollama() []event {
	t := r.turn
	var evs []event
	for _, p := range prosePieces(t) {
		d := object{{"role", "assistant"}}
		switch p.kind {
		case pieceReasoning:
			d = d.with("content", "").with("reasoning", p.text)
		case pieceText:
			d = d.with("content", p.text)
		case pieceRefusal:
			d = d.with("content", "").with("refusal", p.text)
		}
		evs = append(evs, r.chunk(d, nil))
	}
	if len(t.ToolCalls) > 0 {
		evs = append(evs, r.chunk(object{{"role", "assistant"}, {"content", ""}, {"tool_calls", r.wholeCalls()}}, nil))
	}
	evs = append(evs, r.chunk(object{{"role", "assistant"}, {"content", ""}}, t.finishReason(r.flavor)))
	if r.includeUsage && t.Usage != nil {
		evs = append(evs, r.usageEvent(t.Usage))
	}
	return evs
}

// gemini renders Gemini's shape: whole calls without index, the finish
// reason and usage on the last chunk.
func (r *renderer) gemini() []event {
	t := r.turn
	var deltas []object
	for _, p := range prosePieces(t) {
		field := map[pieceKind]string{pieceReasoning: "reasoning_content", pieceText: "content", pieceRefusal: "refusal"}[p.kind]
		deltas = append(deltas, object{{field, p.text}, {"role", "assistant"}})
	}
	if len(t.ToolCalls) > 0 {
		deltas = append(deltas, object{{"role", "assistant"}, {"tool_calls", r.wholeCalls()}})
	}
	if len(deltas) == 0 {
		deltas = append(deltas, object{{"content", ""}, {"role", "assistant"}})
	}
	evs := make([]event, len(deltas))
	for i, d := range deltas {
		if i < len(deltas)-1 {
			evs[i] = r.chunk(d, nil)
			continue
		}
		c := object{{"index", 0}, {"delta", d}, {"logprobs", nil}, {"finish_reason", t.finishReason(r.flavor)}}
		o := r.envelope([]any{c})
		if t.Usage != nil {
			o = o.with("usage", t.Usage)
		}
		evs[i] = event{data: r.encode(o), final: true}
	}
	return evs
}
