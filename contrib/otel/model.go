package otel

import (
	"context"
	"slices"
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
	base []attribute.KeyValue
	op   string
	// sets are the metric attribute sets of a call to the default model,
	// made once: building a set sorts its attributes.
	sets metricSets
}

// metricSets are the attribute sets of one call identity's metric points.
type metricSets struct {
	call, input, output metric.MeasurementOption
	attrs               []attribute.KeyValue
}

func newMetricSets(attrs []attribute.KeyValue) metricSets {
	attrs = slices.Clip(attrs)
	return metricSets{
		call:   metric.WithAttributeSet(attribute.NewSet(attrs...)),
		input:  metric.WithAttributeSet(attribute.NewSet(append(attrs, keyTokenType.String("input"))...)),
		output: metric.WithAttributeSet(attribute.NewSet(append(attrs, keyTokenType.String("output"))...)),
		attrs:  attrs,
	}
}

// NewModel wraps m. Give [WithDialect], [WithModelName] and
// [WithServerURL] the settings of the client m is, which it does not
// tell; the span is named by the request's model, else WithModelName's.
func NewModel(m Streamer, opts ...Option) *Model {
	cfg := newConfig(opts)
	w := &Model{
		next:   m,
		cfg:    cfg,
		tracer: cfg.tracerProvider.Tracer(instrumentationName),
		inst:   newInstruments(cfg.meterProvider),
		op:     operationOf(cfg.dialect),
	}
	w.base = []attribute.KeyValue{keyOperation.String(w.op), keyProvider.String(cfg.provider)}
	if cfg.address != "" {
		w.base = append(w.base, keyServerAddress.String(cfg.address), keyServerPort.Int(cfg.port))
	}
	w.sets = newMetricSets(w.identity(cfg.model))
	return w
}

// identity is the attributes that name a call to model: the span's first
// ones and every metric point's.
func (w *Model) identity(model string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 24)
	attrs = append(attrs, w.base...)
	if model != "" {
		attrs = append(attrs, keyRequestModel.String(model))
	}
	return attrs
}

// Stream calls the wrapped Stream in a span and returns what it returned.
//
// The span starts as the call does and ends when it returns; its context
// is the parent of whatever the wrapped Stream traces (an instrumented
// HTTP transport, say). Time to first chunk is the time to the first
// delta (text, reasoning, refusal or tool-call piece), seen through the
// request's OnDelta, which is wrapped; a request with none gets no
// time-to-first-chunk. The wrapper does not add a callback of its own: a
// client builds deltas only for a callback (on a 1,000-event chat stream,
// a thousand allocations more), and a request's callback would replace an
// *llmstream.Client's WithOnDelta. (agentloop sets one on every request
// when its Hooks.OnDelta is set.) A call that fails has error.type and an
// Error status (see [WithContent] for the description); the usage of a
// partial message is still recorded.
func (w *Model) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	model := r.Model
	if model == "" {
		model = w.cfg.model
	}
	name := w.op
	if model != "" {
		name += " " + model
	}
	// Only the call's identity goes on the metric points: the settings
	// below would split every series by sampling parameters.
	attrs := w.identity(model)
	sets := w.sets
	if model != w.cfg.model {
		sets = newMetricSets(attrs)
	}
	attrs = append(attrs, keyStream.Bool(true))
	attrs = appendSettings(attrs, &r)
	if w.cfg.content {
		in, sys := inputContent(w.cfg.dialect, r.Messages)
		attrs = append(attrs, keyInputMessages.String(in))
		if sys != "" {
			attrs = append(attrs, keySystem.String(sys))
		}
	}

	start := time.Now()
	ctx, span := w.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...), trace.WithTimestamp(start))
	var first time.Duration
	if onDelta := r.OnDelta; onDelta != nil {
		r.OnDelta = func(d llmstream.Delta) error {
			if first == 0 {
				first = max(time.Since(start), 1) // at least 1ns: a first delta was seen
			}
			return onDelta(d)
		}
	}
	msg, err := w.next.Stream(ctx, r)
	elapsed := time.Since(start)

	end := make([]attribute.KeyValue, 0, 12)
	if first > 0 {
		end = append(end, keyTimeToFirstChunk.Float64(first.Seconds()))
	}
	if msg.FinishReason != "" {
		end = append(end, keyFinishReasons.StringSlice([]string{msg.FinishReason}))
	}
	in, out, usageAttrs := usageAttrs(w.cfg.dialect, msg.Usage)
	end = append(end, usageAttrs...)
	if w.cfg.content && err == nil {
		end = append(end, keyOutputMessages.String(outputContent(&msg)))
	}
	if err != nil {
		failSpan(span, err, w.cfg.content)
	}
	span.SetAttributes(end...)
	span.End(trace.WithTimestamp(start.Add(elapsed)))

	w.record(ctx, &sets, elapsed, first, in, out, msg.Usage != nil, err)
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

// usageAttrs gives the input and output token counts the conventions
// define (input including cached tokens) and the span's usage attributes;
// none when the provider sent no usage.
func usageAttrs(d llmstream.Dialect, u *llmstream.Usage) (in, out int, attrs []attribute.KeyValue) {
	if u == nil {
		return 0, 0, nil
	}
	in, out = inputTokens(d, u), u.CompletionTokens
	attrs = []attribute.KeyValue{keyInputTokens.Int(in), keyOutputTokens.Int(out)}
	if u.CachedTokens > 0 {
		attrs = append(attrs, keyCacheReadTokens.Int(u.CachedTokens))
	}
	if u.CacheWriteTokens > 0 {
		attrs = append(attrs, keyCacheWriteTokens.Int(u.CacheWriteTokens))
	}
	if u.ReasoningTokens > 0 {
		attrs = append(attrs, keyReasoningTokens.Int(u.ReasoningTokens))
	}
	return in, out, attrs
}

// inputTokens is gen_ai.usage.input_tokens, which counts cached tokens
// in: Anthropic's input_tokens (PromptTokens) leaves out the tokens read
// from and written to its cache, the other dialects' prompt counts hold
// them.
func inputTokens(d llmstream.Dialect, u *llmstream.Usage) int {
	if d == llmstream.DialectAnthropic {
		return u.PromptTokens + u.CachedTokens + u.CacheWriteTokens
	}
	return u.PromptTokens
}

// record writes the call's metric points.
func (w *Model) record(ctx context.Context, sets *metricSets, elapsed, first time.Duration, in, out int, hasUsage bool, err error) {
	if first > 0 {
		w.inst.timeToFirstChunk.Record(ctx, first.Seconds(), sets.call)
	}
	if hasUsage {
		w.inst.tokens.Record(ctx, int64(in), sets.input)
		w.inst.tokens.Record(ctx, int64(out), sets.output)
	}
	if err != nil {
		attrs := append(sets.attrs, keyErrorType.String(errorType(err)))
		w.inst.duration.Record(ctx, elapsed.Seconds(), metric.WithAttributes(attrs...))
		return
	}
	w.inst.duration.Record(ctx, elapsed.Seconds(), sets.call)
}
