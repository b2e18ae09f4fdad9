package llmstream

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// EventSource is anything that yields SSE events one at a time, ending with
// io.EOF: an [*sse.Reader], or a caller's own source. If it also has a
// Done() bool method (as *sse.Reader does), a true Done at io.EOF means the
// stream ended with the done sentinel.
type EventSource interface {
	Next() (sse.Event, error)
}

// Bridge turns the events of one OpenAI-compatible chat-completions stream
// into one materialized assistant [Message].
//
// Feed it events with [Bridge.Handle] (or all of a source with
// [Bridge.Consume]), then call [Bridge.Message]. Per event:
//   - a non-null top-level "error" member, an event of type "error", or
//     llama.cpp's "error:" SSE field becomes an [*APIError];
//   - data that is not one valid JSON object is an [*EventError]
//     ([ErrBadEvent]); the event changes nothing;
//   - of "choices", only the choice with index 0 is followed: its
//     delta's "content" (a string, or an array of parts with "text") is
//     answer text, "reasoning_content" or "reasoning" reasoning text
//     (when a delta has both, the first wins), "refusal" refusal text,
//     "tool_calls" go to a [toolcall.Assembler], "finish_reason" is kept;
//   - "usage" at the top level or under "x_groq" is kept, the last one wins;
//   - everything else (role on every chunk, empty choices, explicit nulls,
//     obfuscation, service_tier, timings, content filter results, ...)
//     is accepted and ignored.
//
// The stream has ended properly when the data "[DONE]" arrived (or the
// source reports Done), or when it ended after a finish reason. The first
// error sticks: later calls return it and nothing more is applied.
//
// A Bridge is not safe for concurrent use. The zero Bridge is ready to use,
// with the defaults and no delta callback.
type Bridge struct {
	cfg config
	asm *toolcall.Assembler

	content, reasoning, refusal []byte
	finish                      string
	usage                       *Usage
	done                        bool
	err                         error
	msg                         *Message // the result, once Message has run
	progressed                  bool     // the last event carried content

	ev event
}

// NewBridge returns a Bridge for one stream. Of the options it uses
// [WithOnDelta] and [WithToolCallOptions]; the others are ignored.
func NewBridge(opts ...Option) *Bridge {
	return newBridge(newConfig(opts))
}

func newBridge(cfg config) *Bridge {
	return &Bridge{cfg: cfg}
}

// assembler returns the tool-call assembler, made at the first fragment:
// most responses carry no tool call.
func (b *Bridge) assembler() *toolcall.Assembler {
	if b.asm == nil {
		b.asm = toolcall.NewAssembler(b.cfg.toolOpts...)
	}
	return b.asm
}

// Handle applies one event. It returns the error that stopped the stream,
// if any: the same error on every later call. Events after the done
// sentinel are ignored. ev.Data is not retained.
func (b *Bridge) Handle(ev sse.Event) error {
	if b.err != nil || b.done || b.msg != nil {
		return b.err
	}
	b.progressed = false
	if string(ev.Data) == "[DONE]" {
		b.done = true
		return nil
	}
	if ev.Type == "error" {
		return b.fail(b.apiError(ev.Data))
	}
	if len(ev.Data) == 0 {
		return nil
	}
	nc, nr, nf := len(b.content), len(b.reasoning), len(b.refusal)
	if at, err := b.decodeChunk(ev.Data); err != nil {
		b.content, b.reasoning, b.refusal = b.content[:nc], b.reasoning[:nr], b.refusal[:nf]
		return b.fail(b.eventError(ev.Data, at, err))
	}
	return b.apply()
}

// Consume reads src to its end, handling each event, and returns
// [Bridge.Message]. A source error other than io.EOF stops the stream
// and is returned as it is.
func (b *Bridge) Consume(src EventSource) (Message, error) {
	return b.consume(src, nil)
}

// consume is Consume with a hook run after each event.
func (b *Bridge) consume(src EventSource, after func()) (Message, error) {
	for b.err == nil && !b.done && b.msg == nil {
		ev, err := src.Next()
		if err == io.EOF {
			if d, ok := src.(interface{ Done() bool }); ok && d.Done() {
				b.done = true
			}
			break
		}
		if err != nil {
			b.fail(interrupted(err))
			break
		}
		b.Handle(ev)
		if after != nil {
			after()
		}
	}
	return b.Message()
}

// Message ends the stream and returns the materialized message.
//
// With a nil error the message is complete: role "assistant" (whatever
// role the stream names, so a server cannot turn it into a system
// prompt), the text, the reasoning, the refusal, the finish
// reason, the usage, and the tool calls in index order, each with arguments
// validated as JSON. A stream that carries tool calls is a tool-call turn
// whatever its finish reason says.
//
// Otherwise the error is the first failure: an [*APIError], an
// [*EventError], [ErrTruncated] when the stream ended with neither the done
// sentinel nor a finish reason (it and a source error that broke the
// stream match [ErrInterrupted]), a [toolcall] error from assembling the
// calls, a [*ToolCallsError] when the stream ended properly but some
// call's arguments are not valid JSON, a callback error ([ErrAborted]).
// The message returned with an error has the text received so far and no
// tool calls; it is for display only.
//
// Message may be called again; it returns the same result. After it, Handle
// applies nothing.
func (b *Bridge) Message() (Message, error) {
	if b.msg != nil {
		return *b.msg, b.err
	}
	m := Message{
		Role:         "assistant",
		Content:      ownString(b.content),
		Reasoning:    ownString(b.reasoning),
		Refusal:      ownString(b.refusal),
		FinishReason: b.finish,
		Usage:        b.usage,
	}
	if b.err == nil && !b.done && b.finish == "" {
		b.err = interrupted(ErrTruncated)
	}
	if b.err == nil && b.asm != nil {
		calls, err := b.asm.Finalize()
		var ce *toolcall.CallsError
		switch {
		case errors.As(err, &ce):
			b.err = newToolCallsError(ce)
		case err != nil:
			b.err = err
		default:
			m.ToolCalls = toolCalls(calls)
		}
	}
	b.msg = &m
	return m, b.err
}

// toolCalls converts the assembler's calls; nil for none.
func toolCalls(calls []toolcall.Call) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	for i, c := range calls {
		out[i] = ToolCall{ID: c.ID, Type: c.Type, Function: FunctionCall{Name: c.Name, Arguments: c.Arguments}, Extra: c.Extra}
	}
	return out
}

// ownString hands the bytes to a string without copying them, as
// strings.Builder does. It is safe because a Bridge never writes to its text
// buffers again once Message has run (Handle applies nothing after it).
func ownString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (b *Bridge) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return b.err
}

// apply hands a validated event's pieces on, in arrival order: tool-call
// fragments to the assembler, deltas to the callback; then the finish
// reason, usage and provider error.
func (b *Bridge) apply() error {
	e := &b.ev
	d := e.data
	for _, mk := range e.marks {
		b.progressed = true
		if mk.kind == inCall {
			if err := b.addCall(&e.calls[mk.span.start]); err != nil {
				return b.fail(err)
			}
			continue
		}
		if b.cfg.onDelta == nil {
			continue
		}
		buf := *b.buffer(mk.kind)
		kind := DeltaText
		switch mk.kind {
		case inReasoning:
			kind = DeltaReasoning
		case inRefusal:
			kind = DeltaRefusal
		}
		if err := b.deliver(Delta{Kind: kind, Text: string(buf[mk.span.start:mk.span.end])}); err != nil {
			return err
		}
	}
	if e.finish.ok() {
		b.progressed = true
		if f := d[e.finish.start+1 : e.finish.end-1]; string(f) != b.finish {
			b.finish = decodedString(d, e.finish)
		}
	}
	if e.usage.ok() {
		if u := decodeUsage(d[e.usage.start:e.usage.end]); u != nil {
			b.usage = u
		}
	}
	if e.groqUsage.ok() {
		if u := decodeUsage(d[e.groqUsage.start:e.groqUsage.end]); u != nil {
			b.usage = u
		}
	}
	if e.apiErr.ok() {
		return b.fail(b.apiError(d[e.apiErr.start:e.apiErr.end]))
	}
	return b.checkFinish()
}

// checkFinish fails the stream whose finish reason says the provider failed
// (OpenRouter reports errors this way).
func (b *Bridge) checkFinish() error {
	if b.finish == "error" {
		return b.fail(&APIError{Type: "finish_reason", Message: `the provider ended the response with finish_reason "error"`})
	}
	return nil
}

// decodedString is the value of the validated JSON string at s in d.
func decodedString(d []byte, s span) string {
	raw := d[s.start:s.end]
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c >= 0x80 {
			v, _, _ := appendString(nil, raw, 0)
			return string(v)
		}
	}
	return string(raw[1 : len(raw)-1])
}

func (b *Bridge) addCall(c *pendingCall) error {
	a := b.ev.arena
	f := toolcall.Fragment{Index: c.index, NoIndex: c.noIndex}
	if c.id.ok() {
		f.ID = string(a[c.id.start:c.id.end])
	}
	if c.typ.ok() {
		f.Type = string(a[c.typ.start:c.typ.end])
	}
	if c.name.ok() {
		f.Name = string(a[c.name.start:c.name.end])
	}
	if c.args.ok() {
		// Not copied, since nearly every fragment carries arguments: Add
		// copies them into its call (as it copies Extra) and keeps nothing
		// of f, and addFragment copies them for the callback.
		if args := a[c.args.start:c.args.end]; len(args) > 0 {
			f.Arguments = unsafe.String(unsafe.SliceData(args), len(args))
		}
	}
	if c.extra.ok() {
		f.Extra = b.ev.extras[c.extra.start:c.extra.end]
	}
	return b.addFragment(f)
}

// addFragment hands one fragment to the assembler and reports the call's
// progress to the callback.
func (b *Bridge) addFragment(f toolcall.Fragment) error {
	asm := b.assembler()
	if err := asm.Add(f); err != nil {
		return err
	}
	if b.cfg.onDelta == nil {
		return nil
	}
	p, ok := asm.Preview(asm.LastIndex())
	if !ok {
		return nil
	}
	return b.deliver(Delta{Kind: DeltaToolCall, Text: strings.Clone(f.Arguments), Call: p})
}

func (b *Bridge) deliver(d Delta) error {
	if err := b.cfg.onDelta(d); err != nil {
		return b.fail(fmt.Errorf("%w: %w", ErrAborted, err))
	}
	return nil
}

// unknownField is the sse hook for fields the standard ignores: llama.cpp
// reports a failure inside a stream as an "error: {...}" line.
func (b *Bridge) unknownField(name string, value []byte) error {
	if name != "error" {
		return nil
	}
	return b.fail(b.apiError(value))
}

// apiError is the provider error an event reported, its text cleaned of
// the request's credentials.
func (b *Bridge) apiError(raw []byte) *APIError {
	e := apiErrorFrom(raw, 0)
	e.redact(b.cfg.secrets)
	return e
}

// eventError is the error for the event data that failed to decode at
// offset at: a copy of the data with the request's credentials replaced.
func (b *Bridge) eventError(data []byte, at int, err error) *EventError {
	cp := append([]byte(nil), data...)
	return &EventError{Data: b.cfg.secrets.Bytes(cp), Offset: at, Err: err}
}

// ReadMessage reads one whole SSE chat-completions stream from r and returns
// its materialized message: the way to decode a recorded stream. It stops at
// the done sentinel or the end of r, and fails fast: the first bad event or
// provider error ends reading. See [Bridge.Message] for the result and the
// errors; SSE errors (such as sse.ErrEventTooLarge) and r's own errors are in
// the chain of the error returned.
func ReadMessage(r io.Reader, opts ...Option) (Message, error) {
	b := NewBridge(opts...)
	return b.Consume(b.newReader(r))
}

// newReader reads r through an sse.Reader, whose events are always valid
// UTF-8 (invalid bytes become U+FFFD), so the decoder need not check again.
func (b *Bridge) newReader(r io.Reader) *sse.Reader {
	b.ev.validUTF8 = true
	opts := make([]sse.Option, 0, len(b.cfg.sseOpts)+2)
	opts = append(opts, sse.WithMaxEventSize(DefaultMaxEventSize))
	opts = append(opts, b.cfg.sseOpts...)
	opts = append(opts, sse.WithUnknownField(b.unknownField))
	return sse.NewReader(r, opts...)
}

// DefaultMaxEventSize is the SSE event size limit, in bytes, that
// [ReadMessage] and [Client] read with unless [WithSSEOptions] sets
// another. It is above the sse package's own 256 KiB default because
// Gemini, Ollama and vLLM send a tool call whole in one event, and a call
// may carry up to toolcall.DefaultMaxArgumentBytes (1 MiB) of arguments,
// which JSON escaping can grow. Past it the stream fails with
// sse.ErrEventTooLarge.
const DefaultMaxEventSize = 4 << 20
