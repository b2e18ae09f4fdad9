package otel

import (
	"context"

	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// The event of one attempt of an llmstream.Failover and its attributes:
// airlock's own, since the conventions define none for retries.
const (
	eventAttempt = "airlock.failover.attempt"

	keyAttemptNumber    = attribute.Key("airlock.failover.attempt")
	keyAttemptModel     = attribute.Key("airlock.failover.model_index")
	keyAttemptDialect   = attribute.Key("airlock.failover.dialect")
	keyAttemptContinued = attribute.Key("airlock.failover.continued")
	keyAttemptNext      = attribute.Key("airlock.failover.next")
	keyAttemptWait      = attribute.Key("airlock.failover.wait")
)

// RecordAttempt is an llmstream.Failover's OnAttempt that records every
// attempt as an "airlock.failover.attempt" event on the span of its
// context — the span of a [Model] wrapping the Failover, or any span the
// caller started:
//
//	model := otel.NewModel(&llmstream.Failover{Models: ms, OnAttempt: otel.RecordAttempt}, opts...)
//
// The event carries the attempt's number, the model's position in
// Models, its name (gen_ai.request.model) and dialect when known, whether
// it continued the text before it, what came next ("answered",
// "continue", "restart", "give_up"), the wait before the next attempt in
// seconds, the attempt's token usage, and for a failed attempt its
// error.type (the same names as a span's). Nothing of the request or the
// answer's text is recorded. Without a recording span it does nothing.
// It is safe for concurrent use.
func RecordAttempt(ctx context.Context, a llmstream.Attempt) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, keyAttemptNumber.Int(a.Number), keyAttemptModel.Int(a.Model),
		keyAttemptContinued.Bool(a.Continued), keyAttemptNext.String(a.Next.String()))
	if a.Name != "" {
		attrs = append(attrs, keyRequestModel.String(a.Name))
	}
	if a.Dialect != 0 {
		attrs = append(attrs, keyAttemptDialect.String(a.Dialect.String()))
	}
	if a.Err != nil {
		attrs = append(attrs, keyErrorType.String(errorType(a.Err)))
	}
	if a.Wait > 0 {
		attrs = append(attrs, keyAttemptWait.Float64(a.Wait.Seconds()))
	}
	if u := a.Usage; u != nil {
		attrs = append(attrs, keyInputTokens.Int(u.InputTokens()), keyOutputTokens.Int(u.CompletionTokens))
	}
	span.AddEvent(eventAttempt, trace.WithAttributes(attrs...))
}
