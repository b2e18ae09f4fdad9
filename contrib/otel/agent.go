package otel

import (
	"context"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Run runs loop.Run(ctx, messages) inside an INTERNAL span "invoke_agent"
// ("invoke_agent {name}" with [WithAgentName]) and returns what it
// returned. The span carries gen_ai.operation.name, gen_ai.provider.name,
// gen_ai.request.model (the loop's Request.Model, else [WithModelName]'s),
// the run's summed token usage, the last model message's finish reason,
// and on failure error.type and an Error status.
//
// Run works on a copy of the loop: its tools are wrapped as [WrapTools]
// wraps them (tools already wrapped get no second span), and hooks are
// added, after the loop's own, that tell each wrapped tool its call id.
// The loop's Model is used as it is: wrap it with [NewModel] to get a
// span per model call, which is then a child of this one.
func Run(ctx context.Context, loop *agentloop.Loop, messages []llmstream.Message, opts ...Option) (agentloop.Result, error) {
	cfg := newConfig(opts)
	tracer := cfg.tracerProvider.Tracer(instrumentationName)

	l := *loop
	l.Tools = WrapTools(loop.Tools, opts...)
	calls := &pendingCalls{ids: map[string][]string{}}
	var last llmstream.Message
	l.Hooks = chainHooks(loop.Hooks, agentloop.Hooks{
		AfterModel: func(d agentloop.ModelDone) {
			if d.Err == nil {
				last = d.Message
			}
		},
		BeforeTool: func(s agentloop.ToolStart) {
			calls.put(s.Call.Function.Name, s.Call.Function.Arguments, s.Call.ID)
		},
		AfterTool: func(d agentloop.ToolDone) {
			calls.drop(d.Call.Function.Name, d.Call.Function.Arguments, d.Call.ID)
		},
	})

	name := opInvokeAgent
	attrs := []attribute.KeyValue{keyOperation.String(opInvokeAgent), keyProvider.String(cfg.provider)}
	if cfg.agentName != "" {
		name += " " + cfg.agentName
		attrs = append(attrs, keyAgentName.String(cfg.agentName))
	}
	model := l.Request.Model
	if model == "" {
		model = cfg.model
	}
	if model != "" {
		attrs = append(attrs, keyRequestModel.String(model))
	}
	attrs = appendSettings(attrs, &l.Request)
	if cfg.content {
		in, sys := inputContent(cfg.dialect, messages)
		attrs = append(attrs, keyInputMessages.String(in))
		if sys != "" {
			attrs = append(attrs, keySystem.String(sys))
		}
	}
	ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	defer span.End()
	ctx = context.WithValue(ctx, pendingKey{}, calls)

	res, err := l.Run(ctx, messages)

	if res.Turns > 0 {
		u := res.Usage
		span.SetAttributes(keyInputTokens.Int(inputTokens(cfg.dialect, &u)), keyOutputTokens.Int(u.CompletionTokens))
		if u.CachedTokens > 0 {
			span.SetAttributes(keyCacheReadTokens.Int(u.CachedTokens))
		}
		if u.ReasoningTokens > 0 {
			span.SetAttributes(keyReasoningTokens.Int(u.ReasoningTokens))
		}
	}
	if last.FinishReason != "" {
		span.SetAttributes(keyFinishReasons.StringSlice([]string{last.FinishReason}))
	}
	if cfg.content && err == nil && last.Role != "" {
		span.SetAttributes(keyOutputMessages.String(outputContent(&last)))
	}
	if err != nil {
		failSpan(span, err, cfg.content)
	}
	return res, err
}

// chainHooks returns a's hooks with b's called after them. It starts from
// a, so hooks b does not set (and any the Hooks type gains) stay a's.
func chainHooks(a, b agentloop.Hooks) agentloop.Hooks {
	h := a
	h.AfterModel = chain(a.AfterModel, b.AfterModel)
	h.BeforeTool = chain(a.BeforeTool, b.BeforeTool)
	h.AfterTool = chain(a.AfterTool, b.AfterTool)
	return h
}

// chain calls f, then g; either may be nil.
func chain[T any](f, g func(T)) func(T) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(v T) { f(v); g(v) }
}
