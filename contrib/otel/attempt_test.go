package otel_test

import (
	"context"
	"testing"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

// TestRecordAttempt wraps a Failover whose first model cuts its stream in
// a traced Model: the span has one event per attempt, the cut one with
// its error type and a continuation next, the answer last.
func TestRecordAttempt(t *testing.T) {
	tel := newTelemetry(t)
	turn := llmstreamtest.Turn{Text: "alpha beta gamma delta", Usage: &llmstream.Usage{PromptTokens: 5, CompletionTokens: 4, TotalTokens: 9}}
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5})))
	f := &llmstream.Failover{Models: []llmstream.Streamer{newClient(srv, llmstream.DialectAnthropic)}, Backoff: -1, OnAttempt: otel.RecordAttempt}
	m := otel.NewModel(f, append(tel.opts, otel.WithDialect(llmstream.DialectAnthropic))...)
	msg, err := m.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "go"}}})
	if err != nil || msg.Content != turn.Text {
		t.Fatalf("Stream = %q, %v", msg.Content, err)
	}
	if u := msg.Usage; u == nil || u.PromptTokens != 10 || u.CompletionTokens != 5 {
		t.Fatalf("usage %+v, want both attempts' (10 in, 5 out)", u)
	}
	spans := tel.spans.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	if model := attrs(spans[0].Attributes())["gen_ai.response.model"]; model != "m-1" {
		t.Errorf("gen_ai.response.model %v, want the answering attempt's m-1", model)
	}
	var got []map[string]any
	for _, e := range spans[0].Events() {
		if e.Name == "airlock.failover.attempt" {
			got = append(got, attrs(e.Attributes))
		}
	}
	want := []map[string]any{
		{"airlock.failover.attempt": int64(1), "airlock.failover.model_index": int64(0), "airlock.failover.continued": false,
			"airlock.failover.next": "continue", "gen_ai.request.model": "m-1", "airlock.failover.dialect": "anthropic", "error.type": "interrupted",
			"gen_ai.usage.input_tokens": int64(5), "gen_ai.usage.output_tokens": int64(1)}, // message_start's, billed too
		{"airlock.failover.attempt": int64(2), "airlock.failover.model_index": int64(0), "airlock.failover.continued": true,
			"airlock.failover.next": "answered", "gen_ai.request.model": "m-1", "airlock.failover.dialect": "anthropic",
			"gen_ai.usage.input_tokens": int64(5), "gen_ai.usage.output_tokens": int64(4)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("attempt events (-want +got):\n%s", diff)
	}
	// Without a span, nothing happens (and nothing panics).
	otel.RecordAttempt(context.Background(), llmstream.Attempt{Number: 1})
}
