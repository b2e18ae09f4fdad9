package otel

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Run runs loop.Run(ctx, messages) inside an INTERNAL span "invoke_agent"
// ("invoke_agent {name}" with [WithAgentName]) and returns what it
// returned. The span carries gen_ai.operation.name, gen_ai.provider.name,
// gen_ai.request.model (the loop's Request.Model, else [WithModelName]'s),
// the run's summed token usage, the last model message's finish reason
// and model (gen_ai.response.model), and on failure error.type and an
// Error status; and the run's approvals, pause and parallel batches as
// events (see the package documentation).
// A run paused for approval ([agentloop.ErrPaused]) has not failed: its
// span gets a pause event, no error.type and no Error status.
//
// Run works on a copy of the loop: its tools are wrapped as [WrapTools]
// wraps them (tools already wrapped get no second span), and hooks are
// added after the loop's own. The loop's Model is used as it is: wrap it
// with [NewModel] to get a span per model call, which is then a child of
// this one.
func Run(ctx context.Context, loop *agentloop.Loop, messages []llmstream.Message, opts ...Option) (agentloop.Result, error) {
	ctx, a := startAgent(ctx, loop, messages, opts)
	res, err := a.loop.Run(ctx, messages)
	a.end(res, err)
	return res, err
}

// Resume is [Run] for loop.Resume(ctx, st, decisions): a run going on from
// a saved State gets its own invoke_agent span, with the same attributes
// and events, the decisions given included.
func Resume(ctx context.Context, loop *agentloop.Loop, st agentloop.State, decisions map[string]agentloop.Decision, opts ...Option) (agentloop.Result, error) {
	ctx, a := startAgent(ctx, loop, st.Messages, opts)
	res, err := a.loop.Resume(ctx, st, decisions)
	a.end(res, err)
	return res, err
}

// agentSpan is one traced run: its span, its instrumented loop, and what
// the hooks learned. The hooks run on the run's goroutine, one at a time.
type agentSpan struct {
	span  trace.Span
	cfg   config
	loop  agentloop.Loop
	last  llmstream.Message // the last model message
	batch batch             // the turn whose calls run at once, if any
}

// batch is what a turn that ran calls concurrently has shown so far.
type batch struct {
	turn, size, most int
	start            time.Time
}

func startAgent(ctx context.Context, loop *agentloop.Loop, messages []llmstream.Message, opts []Option) (context.Context, *agentSpan) {
	a := &agentSpan{cfg: newConfig(loop.Model, opts), loop: *loop}
	a.loop.Tools = WrapTools(loop.Tools, opts...)
	a.loop.Hooks = chainHooks(loop.Hooks, agentloop.Hooks{
		AfterModel:    a.afterModel,
		BeforeTool:    a.beforeTool,
		AfterApproval: a.afterApproval,
	})

	name := opInvokeAgent
	attrs := []attribute.KeyValue{keyOperation.String(opInvokeAgent), keyProvider.String(a.cfg.provider)}
	if a.cfg.agentName != "" {
		name += " " + a.cfg.agentName
		attrs = append(attrs, keyAgentName.String(a.cfg.agentName))
	}
	if model := cmp.Or(loop.Request.Model, a.cfg.model); model != "" {
		attrs = append(attrs, keyRequestModel.String(model))
	}
	attrs = appendSettings(attrs, &loop.Request)
	if a.cfg.content {
		attrs = appendInput(attrs, a.cfg.dialect, messages)
	}
	ctx, a.span = a.cfg.tracerProvider.Tracer(instrumentationName).Start(ctx, name,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, a
}

func (a *agentSpan) afterModel(d agentloop.ModelDone) {
	a.endBatch()
	if d.Err == nil {
		a.last = d.Message
	}
}

// beforeTool follows a turn whose calls run at once: Running above 1
// means another call of the turn is still running as this one starts.
func (a *agentSpan) beforeTool(s agentloop.ToolStart) {
	if s.Running < 2 {
		return
	}
	if a.batch.turn != s.Turn {
		a.endBatch()
		a.batch = batch{turn: s.Turn, size: s.Batch, start: time.Now()}
	}
	a.batch.most = max(a.batch.most, s.Running)
}

// endBatch records the batch followed so far, if any, as an event dated
// when its calls began to overlap.
func (a *agentSpan) endBatch() {
	if a.batch.turn == 0 {
		return
	}
	a.span.AddEvent(eventParallelTools, trace.WithTimestamp(a.batch.start), trace.WithAttributes(
		keyTurn.Int(a.batch.turn), keyBatchSize.Int(a.batch.size), keyMostRunning.Int(a.batch.most)))
	a.batch = batch{}
}

// afterApproval records an allowed or denied call. A paused call is in the
// pause event at the end; a failed Approve fails the run, which says so.
func (a *agentSpan) afterApproval(d agentloop.ApprovalDone) {
	if d.Err != nil {
		return
	}
	attrs := []attribute.KeyValue{keyToolCallID.String(d.Call.ID), keyToolName.String(d.Call.Name)}
	switch d.Decision.Verdict {
	case agentloop.Allow:
		a.span.AddEvent(eventApproved, trace.WithAttributes(attrs...))
	case agentloop.Deny:
		if a.cfg.content && d.Decision.Reason != "" {
			// A person's reason may quote the call's arguments.
			attrs = append(attrs, keyDenyReason.String(d.Decision.Reason))
		}
		a.span.AddEvent(eventDenied, trace.WithAttributes(attrs...))
	}
}

// end records the run's outcome and ends the span.
func (a *agentSpan) end(res agentloop.Result, err error) {
	defer a.span.End()
	a.endBatch()
	if res.Turns > 0 {
		in, out := runUsage(&res)
		a.span.SetAttributes(appendUsage(nil, in, out, &res.Usage)...)
	}
	if a.last.FinishReason != "" {
		a.span.SetAttributes(finishReasons(a.last.FinishReason))
	}
	if a.last.Model != "" {
		a.span.SetAttributes(keyResponseModel.String(a.last.Model))
	}
	if a.cfg.content && err == nil && a.last.Role != "" {
		a.span.SetAttributes(keyOutputMessages.String(outputContent(&a.last)))
	}
	switch {
	case errors.Is(err, agentloop.ErrPaused):
		ids := make([]string, len(res.Pending))
		for i, c := range res.Pending {
			ids[i] = c.ID
		}
		a.span.AddEvent(eventPaused, trace.WithAttributes(keyPendingCallIDs.StringSlice(ids)))
	case err != nil:
		failSpan(a.span, err, a.cfg.content)
	}
}

// runUsage is the run's input and output tokens: the input summed over
// its model messages, each by [llmstream.Usage.InputTokens], since the
// run's summed Usage may mix dialects that count the cache differently;
// the run's own sum when no message carries usage.
func runUsage(res *agentloop.Result) (in, out int) {
	seen := false
	for _, m := range res.Messages {
		if m.Usage != nil {
			in += m.Usage.InputTokens()
			seen = true
		}
	}
	if !seen {
		in = res.Usage.InputTokens()
	}
	return in, res.Usage.CompletionTokens
}

// chainHooks returns a's hooks with b's called after them. It starts from
// a, so hooks b does not set (and any the Hooks type gains) stay a's.
func chainHooks(a, b agentloop.Hooks) agentloop.Hooks {
	h := a
	h.AfterModel = chain(a.AfterModel, b.AfterModel)
	h.BeforeTool = chain(a.BeforeTool, b.BeforeTool)
	h.AfterApproval = chain(a.AfterApproval, b.AfterApproval)
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
