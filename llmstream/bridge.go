package llmstream

import (
	"cmp"
	"errors"
	"io"
	"slices"
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

// Bridge turns the events of one streamed response into one materialized
// assistant [Message], in the [Dialect] chosen with [WithDialect]
// (default [DialectChat]; see the package documentation for what each
// dialect's events mean).
//
// Feed it events with [Bridge.Handle] (or all of a source with
// [Bridge.Consume]), then call [Bridge.Message]. Whatever the dialect:
//   - a provider's error — an error member or event, an SSE event of type
//     "error", or llama.cpp's "error:" SSE field — becomes an [*APIError];
//   - data that is not one valid JSON object is an [*EventError]
//     ([ErrBadEvent]); the event changes nothing;
//   - text, reasoning and refusal text are appended in arrival order, tool
//     calls go to a [toolcall.Assembler], the finish reason and usage are
//     kept, the provider state the next request needs is kept in
//     [Message.Continuity];
//   - members the dialect does not use are accepted and ignored.
//
// The first error sticks: later calls return it and nothing more is
// applied.
//
// A Bridge is not safe for concurrent use. The zero Bridge is ready to use,
// in [DialectChat] with the defaults and no delta callback.
type Bridge struct {
	cfg     *config // shared with the Client that made it (its streams hold one config); never written
	onDelta func(Delta) error
	dec     decoder
	asm     *toolcall.Assembler

	content, reasoning, refusal []byte
	finish                      string     // the provider's raw finish reason
	stop                        StopReason // its meaning, by the dialect's map
	usage                       *Usage
	model                       string  // the first model name the stream gave
	requested                   string  // the model the request was sent for, when a Client's
	blocks                      []Block // continuity, in the dialect's order
	container                   []byte  // Anthropic's code-execution container, for Continuity
	keepBlocks                  bool    // a decoder found state in blocks that only hold text and calls
	done                        bool    // the stream ended properly, by the dialect's rule
	err                         error
	msg                         *Message  // the result, once Message has run
	progressed                  bool      // the last event carried content
	events                      int       // events read by consume, for the Client's log
	cur                         sse.Event // the event Handle was given, while it is handled
	validUTF8                   bool      // events come from an sse.Reader, so their data is valid UTF-8
}

// NewBridge returns a Bridge for one stream.
func NewBridge(opts ...BridgeOption) *Bridge {
	cfg := newBridgeConfig(opts)
	if shared := cfg.plain(); shared != nil {
		return &Bridge{cfg: shared, onDelta: cfg.onDelta}
	}
	return &Bridge{cfg: &cfg, onDelta: cfg.onDelta}
}

// config returns the Bridge's configuration, the defaults for a zero Bridge.
func (b *Bridge) config() *config {
	if b.cfg == nil {
		b.cfg = new(config)
	}
	return b.cfg
}

// decoder returns the dialect's decoder, made at its first use.
func (b *Bridge) decoder() decoder {
	if b.dec == nil {
		b.dec = b.config().dialect.protocol().newDecoder(sink{b})
	}
	return b.dec
}

// Handle applies one event. It returns the error that stopped the stream,
// if any: the same error on every later call. Events after the stream's
// proper end (the done sentinel, a terminal event) are ignored. ev.Data is
// not retained.
func (b *Bridge) Handle(ev sse.Event) error {
	b.cur = ev // kept in the Bridge so that handing it on costs no allocation
	err := b.handle(&b.cur)
	b.cur = sse.Event{} // ev.Data is not retained
	return err
}

// handle is Handle for an event the caller keeps (an sse.Reader's own,
// from NextRef), so that the event is not copied on every call.
func (b *Bridge) handle(ev *sse.Event) error {
	if b.err != nil || b.done || b.msg != nil {
		return b.err
	}
	b.progressed = false
	if b.config().dialect >= dialectEnd {
		return b.fail(unknownDialect(b.config().dialect))
	}
	if ev.Type == "error" {
		return b.fail(sink{b}.apiError(ev.Data))
	}
	return b.decoder().event(ev)
}

// Consume reads src to its end, handling each event, and returns
// [Bridge.Message]. A source error other than io.EOF stops the stream
// and is returned as it is.
func (b *Bridge) Consume(src EventSource) (Message, error) {
	b.run(src, nil)
	return b.Message()
}

// run handles src's events, running after (if not nil) after each, until
// the stream ends or fails. It returns nothing and is kept out of line, so
// that a goroutine parked in src.Next holds no Message on its stack: the
// parked frames stay small enough for the runtime to shrink a held
// stream's stack back after a burst of work grew it.
//
//go:noinline
func (b *Bridge) run(src EventSource, after func()) {
	ref, _ := src.(interface{ NextRef() (*sse.Event, error) })
	for b.err == nil && !b.done && b.msg == nil {
		var ev *sse.Event
		var err error
		if ref != nil {
			ev, err = ref.NextRef()
		} else {
			b.cur, err = src.Next()
			ev = &b.cur
		}
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
		b.events++
		b.handle(ev)
		b.cur = sse.Event{}
		if after != nil {
			after()
		}
	}
}

// Message ends the stream and returns the materialized message.
//
// With a nil error the message is complete: role "assistant" (whatever
// role the stream names, so a server cannot turn it into a system
// prompt), the text, the reasoning, the refusal, the finish reason and its
// [StopReason], the usage, the continuity state, and the tool calls in
// order, each with arguments validated as JSON. A stream that carries tool
// calls is a tool-call turn whatever its finish reason says.
//
// Otherwise the error is the first failure: an [*APIError], an
// [*EventError], [ErrTruncated] when the stream did not end properly by
// its dialect's rule (it and a source error that broke the stream match
// [ErrInterrupted]), a [toolcall] error from assembling the calls, a
// [*ToolCallsError] when the stream ended properly but some call's
// arguments are not valid JSON, a callback error ([ErrAborted]). The
// message returned with an error has the text received so far and no tool
// calls; it is for display only, except with a [*ToolCallsError], whose
// stream ended properly: that message has its stop reason and continuity
// state too, so that a caller who answers the calls (agentloop's
// Loop.AnswerInvalidCalls) can send it back with [ToolCallsError.Calls].
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
		Model:        cmp.Or(b.model, b.requested),
	}
	if b.err == nil && b.config().dialect >= dialectEnd {
		b.err = unknownDialect(b.config().dialect) // no event came to say so
	}
	if b.err == nil && !b.decoder().complete() {
		b.err = interrupted(ErrTruncated)
	}
	ended := b.err == nil // the stream ended properly
	var calls []toolcall.Call
	if ended && b.asm != nil {
		var err error
		calls, err = b.asm.Finalize()
		var ce *toolcall.CallsError
		switch {
		case errors.As(err, &ce):
			// A caller may answer the calls and send the message back:
			// it needs the continuity state, placing ce.Calls.
			b.err, calls = newToolCallsError(ce, b.config().secrets), ce.Calls
		case err != nil:
			b.err, ended = err, false
		default:
			m.ToolCalls = toolCalls(calls)
		}
	}
	if ended {
		m.StopReason = b.stop // as the dialect mapped it
		if len(calls) > 0 && (b.stop == 0 || b.stop == StopEndTurn || b.stop == StopOther) {
			m.StopReason = StopToolCalls // a turn with calls is a tool-call turn
		}
		if b.keepBlocks || b.container != nil || providerBlocks(b.blocks) {
			m.Continuity = &Continuity{Dialect: b.config().dialect.normal(), Blocks: placeCalls(b.blocks, calls), Container: b.container}
		}
	}
	b.msg = &m
	return m, b.err
}

// providerBlocks reports blocks that the neutral fields cannot hold (a
// provider piece, or a signature on a text or call): only then, or when a
// decoder says so (keepBlocks), does a message need its continuity state.
func providerBlocks(blocks []Block) bool {
	for _, blk := range blocks {
		if blk.Type != BlockText && blk.Type != BlockToolCall || blk.Signature != "" {
			return true
		}
	}
	return false
}

// placeCalls turns the tool-call blocks' Call, which the decoders set to
// the assembler's index, into the position in ToolCalls (calls, in index
// order).
func placeCalls(blocks []Block, calls []toolcall.Call) []Block {
	for i := range blocks {
		if blocks[i].Type != BlockToolCall {
			continue
		}
		pos, found := slices.BinarySearchFunc(calls, blocks[i].Call, func(c toolcall.Call, index int) int { return c.Index - index })
		if !found {
			pos = len(calls) // no such call: the writer falls back
		}
		blocks[i].Call = pos
	}
	return blocks
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

// bufKind names a text buffer of the Bridge.
type bufKind uint8

const (
	inContent bufKind = iota
	inReasoning
	inRefusal
	inCall // a pending tool-call fragment (chat): the span's start is its number
)

// deltaKind is the Delta kind of a text buffer.
func (k bufKind) deltaKind() DeltaKind {
	switch k {
	case inReasoning:
		return DeltaReasoning
	case inRefusal:
		return DeltaRefusal
	}
	return DeltaText
}

// unknownField is the sse hook for fields the standard ignores: llama.cpp
// reports a failure inside a stream as an "error: {...}" line.
func (b *Bridge) unknownField(name string, value []byte) error {
	if name != "error" {
		return nil
	}
	return b.fail(sink{b}.apiError(value))
}

// ReadMessage reads one whole SSE stream of the dialect chosen with
// [WithDialect] (default [DialectChat]) from r and returns its
// materialized message: the way to decode a recorded stream. It stops at
// the stream's proper end or the end of r, and fails fast: the first bad
// event or provider error ends reading. See [Bridge.Message] for the result
// and the errors; SSE errors (such as sse.ErrEventTooLarge) and r's own
// errors are in the chain of the error returned.
func ReadMessage(r io.Reader, opts ...BridgeOption) (Message, error) {
	b := NewBridge(opts...)
	b.run(b.newReader(r), nil)
	return b.Message()
}

// newReader reads r through an sse.Reader, whose events are always valid
// UTF-8 (invalid bytes become U+FFFD), so the decoder need not check again;
// a dialect with frames of its own reads them itself.
func (b *Bridge) newReader(r io.Reader) EventSource {
	if f, ok := b.config().dialect.protocol().(framedProtocol); ok {
		b.validUTF8 = false
		return f.newSource(r, b)
	}
	b.validUTF8 = true
	opts := make([]sse.Option, 0, len(b.config().sseOpts)+3)
	opts = append(opts, sse.WithMaxEventSize(DefaultMaxEventSize))
	opts = append(opts, sse.WithDoneSentinel(b.config().dialect.protocol().doneSentinel()))
	opts = append(opts, b.config().sseOpts...)
	opts = append(opts, sse.WithUnknownField(b.unknownField))
	return sse.NewReader(r, opts...)
}

// eventSizeLimit is the event size limit, in bytes, that the SSE reader
// of [Bridge.newReader] applies with opts, for a dialect that reads its
// own frames; and the error an invalid option gives.
func eventSizeLimit(opts []sse.Option) (int, error) {
	r := sse.NewReader(strings.NewReader(""), append([]sse.Option{sse.WithMaxEventSize(DefaultMaxEventSize)}, opts...)...)
	if _, err := r.Next(); err != io.EOF {
		return 0, err
	}
	return r.MaxEventSize(), nil
}

// DefaultMaxEventSize is the SSE event size limit, in bytes, that
// [ReadMessage] and [Client] read with unless [WithSSEOptions] sets
// another. It is above the sse package's own 256 KiB default because
// Gemini, Ollama and vLLM send a tool call whole in one event, and a call
// may carry up to toolcall.DefaultMaxArgumentBytes (1 MiB) of arguments,
// which JSON escaping can grow. Past it the stream fails with
// sse.ErrEventTooLarge.
const DefaultMaxEventSize = 4 << 20
