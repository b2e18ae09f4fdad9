package otel

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// A Model is an agentloop.Model: a Loop takes it as it is.
var _ agentloop.Model = (*Model)(nil)

// Streamer is what [Model] wraps: one streaming model call, as
// *llmstream.Client and agentloop's Model have it.
type Streamer interface {
	Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error)
}

// Model is a [Streamer] whose every call is traced and measured: a CLIENT
// span "chat {model}" ("generate_content {model}" for Gemini) and the
// GenAI client metrics (see the package documentation for the
// attributes). It changes neither the request nor the result. It is safe
// for concurrent use when the Streamer it wraps is.
type Model struct {
	next   Streamer
	cfg    config
	tracer trace.Tracer
	inst   instruments
	// base are the attributes of every span and metric point.
	base    []attribute.KeyValue
	op      string
	reasons reasonCache
	// def is the identity of a call to the default model, made once: a
	// call's fixed attributes, options and metric attribute sets (building
	// a set sorts its attributes) cost allocations each time they are made.
	def identity
}

// identity is what names the calls to one model: the span's name and
// first attributes, and every metric point's attributes. It is read-only
// once made, so calls share it.
type identity struct {
	name string
	// start are the span's attributes at its start when the request has
	// no settings (and contents are off); startOpts the start options that
	// carry them, with the span kind.
	start     []attribute.KeyValue
	startOpts []trace.SpanStartOption
	// call, input and output are the options of the metric points: the
	// identity, and the identity with each gen_ai.token.type.
	call, input, output []metric.RecordOption
	// attrs is the identity alone, for a failed call's duration point.
	attrs []attribute.KeyValue
}

func (w *Model) newIdentity(model string) identity {
	name := w.op
	if model != "" {
		name += " " + model
	}
	attrs := make([]attribute.KeyValue, 0, len(w.base)+1)
	attrs = append(attrs, w.base...)
	if model != "" {
		attrs = append(attrs, keyRequestModel.String(model))
	}
	// Both clipped: concurrent calls append to them, which must copy.
	attrs = slices.Clip(attrs)
	start := slices.Clip(append(attrs, keyStream.Bool(true)))
	set := func(extra ...attribute.KeyValue) []metric.RecordOption {
		return []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(append(attrs, extra...)...))}
	}
	return identity{
		name:      name,
		start:     start,
		startOpts: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(start...)},
		call:      set(),
		input:     set(keyTokenType.String("input")),
		output:    set(keyTokenType.String("output")),
		attrs:     attrs,
	}
}

// NewModel wraps m. What m says of itself, as an *llmstream.Client says
// its Dialect, ProviderName, Model and BaseURL, names the calls (a
// Streamer with any of these methods is read alike, a *Model included);
// [WithDialect], [WithProviderName], [WithModelName] and [WithServerURL]
// say it for a Streamer that does not, or override it. The span is named
// by the request's model, else that model.
func NewModel(m Streamer, opts ...Option) *Model {
	cfg := newConfig(m, opts)
	w := &Model{
		next:   m,
		cfg:    cfg,
		tracer: cfg.tracerProvider.Tracer(instrumentationName),
		inst:   newInstruments(cfg.meterProvider),
		op:     opChat,
	}
	if cfg.dialect == llmstream.DialectGemini {
		w.op = opGenerateContent
	}
	w.base = []attribute.KeyValue{keyOperation.String(w.op), keyProvider.String(cfg.provider)}
	if cfg.address != "" {
		w.base = append(w.base, keyServerAddress.String(cfg.address), keyServerPort.Int(cfg.port))
	}
	w.def = w.newIdentity(cfg.model)
	return w
}

// Dialect is the dialect the wrapped Streamer speaks, as [NewModel]
// learned it, so that a wrapper or [Run] around this Model reads it too.
func (w *Model) Dialect() llmstream.Dialect { return w.cfg.dialect }

// ProviderName is the gen_ai.provider.name of the calls.
func (w *Model) ProviderName() string { return w.cfg.provider }

// Model is the model of a request that names none, "" if unknown.
func (w *Model) Model() string { return w.cfg.model }

// call is one call's clock and the scratch space of its span, in one
// allocation: a slice handed to a Span or Tracer (an interface) escapes,
// so a stack array would be moved to the heap anyway.
type call struct {
	start time.Time
	// first is the time to the first delta, 0 before one is seen.
	first   time.Duration
	onDelta func(llmstream.Delta) error
	opts    [3]trace.SpanStartOption
	endOpts [1]trace.SpanEndOption
	// end holds the attributes set as the call returns: finish reasons,
	// response model, time to first chunk, five usage counts, output
	// messages.
	end [9]attribute.KeyValue
}

// delta is the request's OnDelta seen through the wrapper.
func (c *call) delta(d llmstream.Delta) error {
	if c.first == 0 {
		c.first = max(time.Since(c.start), 1) // at least 1ns: a first delta was seen
	}
	return c.onDelta(d)
}

// Stream calls the wrapped Stream in a span and returns what it returned.
//
// The span starts as the call does and ends when it returns; its context
// is the parent of whatever the wrapped Stream traces (an instrumented
// HTTP transport, say). Time to first chunk is the time to the first
// delta (text, reasoning, refusal or tool-call piece), seen through the
// request's OnDelta, which is wrapped; a request with none gets no
// time-to-first-chunk (a callback of the wrapper's own would cost an
// allocation per delta and replace an *llmstream.Client's WithOnDelta;
// agentloop sets one when its Hooks.OnDelta is set). A call that fails
// has error.type and an Error status (see [WithContent] for the
// description); the usage of a partial message is still recorded.
//
// The wrapped Stream must not call OnDelta after it returns (no Streamer
// of airlock's does): a late delta is not counted.
func (w *Model) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	model := cmp.Or(r.Model, w.cfg.model)
	id := &w.def
	if model != w.cfg.model {
		other := w.newIdentity(model)
		id = &other
	}
	c := &call{start: time.Now()}
	attrs := appendSettings(id.start, &r) // the span's only: they would split the metric series
	if w.cfg.content {
		attrs = appendInput(attrs, w.cfg.dialect, r.Messages)
	}
	opts := append(c.opts[:0], id.startOpts...)
	if len(attrs) > len(id.start) { // appending to id.start, which is clipped, copied it
		opts[1] = trace.WithAttributes(attrs...)
	}
	opts = append(opts, trace.WithTimestamp(c.start))
	ctx, span := w.tracer.Start(ctx, id.name, opts...)

	recording := span.IsRecording()
	if r.OnDelta != nil && (recording || w.inst.timeToFirstChunk.Enabled(ctx)) {
		c.onDelta = r.OnDelta
		r.OnDelta = c.delta
	}
	msg, err := w.next.Stream(ctx, r)
	elapsed := time.Since(c.start)
	var in, out int // the conventions' counts: input with cached tokens
	if msg.Usage != nil {
		in, out = msg.Usage.InputTokens(), msg.Usage.CompletionTokens
	}

	if recording {
		end := c.end[:0]
		if c.first > 0 {
			end = append(end, keyTimeToFirstChunk.Float64(c.first.Seconds()))
		}
		if msg.FinishReason != "" {
			end = append(end, w.reasons.finishReasons(msg.FinishReason))
		}
		if msg.Model != "" {
			end = append(end, keyResponseModel.String(msg.Model))
		}
		end = appendUsage(end, in, out, msg.Usage)
		if w.cfg.content && err == nil {
			end = append(end, keyOutputMessages.String(outputContent(&msg)))
		}
		if err != nil {
			failSpan(span, err, w.cfg.content)
		}
		span.SetAttributes(end...)
	}
	c.endOpts[0] = trace.WithTimestamp(c.start.Add(elapsed))
	span.End(c.endOpts[:]...)

	w.record(ctx, id, elapsed, c.first, in, out, msg.Usage != nil, err)
	return msg, err
}

// appendSettings adds the request's generation settings that are set.
// Settings that a client's defaults fill in are not seen here.
func appendSettings(attrs []attribute.KeyValue, r *llmstream.Request) []attribute.KeyValue {
	switch {
	case r.MaxTokens != nil:
		attrs = append(attrs, keyMaxTokens.Int(*r.MaxTokens))
	case r.MaxCompletionTokens != nil:
		attrs = append(attrs, keyMaxTokens.Int(*r.MaxCompletionTokens))
	}
	if r.Temperature != nil {
		attrs = append(attrs, keyTemperature.Float64(*r.Temperature))
	}
	if r.TopP != nil {
		attrs = append(attrs, keyTopP.Float64(*r.TopP))
	}
	if len(r.Stop) > 0 {
		attrs = append(attrs, keyStopSequences.StringSlice(r.Stop))
	}
	if r.Seed != nil {
		attrs = append(attrs, keySeed.Int64(*r.Seed))
	}
	return attrs
}

// appendUsage adds the span's usage attributes, none when the provider
// sent no usage.
func appendUsage(attrs []attribute.KeyValue, in, out int, u *llmstream.Usage) []attribute.KeyValue {
	if u == nil {
		return attrs
	}
	attrs = append(attrs, keyInputTokens.Int(in), keyOutputTokens.Int(out))
	if u.CachedTokens > 0 {
		attrs = append(attrs, keyCacheReadTokens.Int(u.CachedTokens))
	}
	if u.CacheWriteTokens > 0 {
		attrs = append(attrs, keyCacheWriteTokens.Int(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		attrs = append(attrs, keyReasoningTokens.Int(u.ReasoningTokens))
	}
	return attrs
}

// finishReasons is gen_ai.response.finish_reasons for a message's reason.
// A string slice attribute costs two allocations to make, so the first
// maxFinishReasons reasons a Model sees are made once and kept (a provider
// sends a handful; a hostile one cannot grow the cache past the bound).
func (r *reasonCache) finishReasons(reason string) attribute.KeyValue {
	if kv, ok := r.m.Load(reason); ok {
		return kv.(attribute.KeyValue)
	}
	kv := finishReasons(reason)
	if r.n.Add(1) <= maxFinishReasons {
		r.m.Store(reason, kv)
	}
	return kv
}

// finishReasons makes the attribute for reason.
func finishReasons(reason string) attribute.KeyValue {
	return keyFinishReasons.StringSlice([]string{reason})
}

// maxFinishReasons bounds the finish reasons whose attribute is kept.
const maxFinishReasons = 64

// reasonCache keeps the finish_reasons attribute of the reasons seen. It
// is safe for concurrent use.
type reasonCache struct {
	m sync.Map // reason → attribute.KeyValue
	n atomic.Int64
}

// record writes the call's metric points.
func (w *Model) record(ctx context.Context, id *identity, elapsed, first time.Duration, in, out int, hasUsage bool, err error) {
	if first > 0 {
		w.inst.timeToFirstChunk.Record(ctx, first.Seconds(), id.call...)
	}
	if hasUsage {
		w.inst.tokens.Record(ctx, int64(in), id.input...)
		w.inst.tokens.Record(ctx, int64(out), id.output...)
	}
	if err != nil {
		attrs := append(id.attrs, keyErrorType.String(errorType(err)))
		w.inst.duration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(attrs...))
		return
	}
	w.inst.duration.Record(ctx, elapsed.Seconds(), id.call...)
}
