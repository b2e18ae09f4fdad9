package otel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"
)

// scriptedUsage is the usage every turn of these tests reports.
var scriptedUsage = &llmstream.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120, CachedTokens: 30, CacheWriteTokens: 7, ReasoningTokens: 5}

// A model call in each dialect is one CLIENT span with the request's
// settings, the response's finish reason, every usage count the dialect
// reports (Anthropic's and Bedrock's input counted with their cache, as
// the conventions say), the time to the first chunk, and the three
// metrics; the provider, model and server come from the Client itself.
func TestModelSpanPerDialect(t *testing.T) {
	tests := []struct {
		dialect  llmstream.Dialect
		name     string
		provider string
		usage    map[string]any
		finish   string
	}{
		{llmstream.DialectChat, "chat m-1", "openai", map[string]any{
			"gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
			"gen_ai.usage.cache_read.input_tokens": int64(30), "gen_ai.usage.cache_creation.input_tokens": int64(7),
			"gen_ai.usage.reasoning.output_tokens": int64(5)}, "stop"},
		{llmstream.DialectAnthropic, "chat m-1", "anthropic", map[string]any{
			"gen_ai.usage.input_tokens": int64(137), "gen_ai.usage.output_tokens": int64(20),
			"gen_ai.usage.cache_read.input_tokens": int64(30), "gen_ai.usage.cache_creation.input_tokens": int64(7)}, "end_turn"},
		{llmstream.DialectResponses, "chat m-1", "openai", map[string]any{
			"gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
			"gen_ai.usage.cache_read.input_tokens": int64(30), "gen_ai.usage.reasoning.output_tokens": int64(5)}, "completed"},
		{llmstream.DialectGemini, "generate_content m-1", "gcp.gemini", map[string]any{
			"gen_ai.usage.input_tokens": int64(100), "gen_ai.usage.output_tokens": int64(20),
			"gen_ai.usage.cache_read.input_tokens": int64(30), "gen_ai.usage.reasoning.output_tokens": int64(5)}, "STOP"},
		{llmstream.DialectBedrock, "chat m-1", "aws.bedrock", map[string]any{
			"gen_ai.usage.input_tokens": int64(137), "gen_ai.usage.output_tokens": int64(20),
			"gen_ai.usage.cache_read.input_tokens": int64(30), "gen_ai.usage.cache_creation.input_tokens": int64(7)}, "end_turn"},
	}
	for _, tt := range tests {
		t.Run(tt.dialect.String(), func(t *testing.T) {
			tel := newTelemetry(t)
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hello there", Usage: scriptedUsage, Model: "m-1-2026-01-01"}))
			m := otel.NewModel(newClient(srv, tt.dialect), tel.opts...)

			var text strings.Builder
			start := time.Now()
			msg, err := m.Stream(context.Background(), llmstream.Request{
				Messages:    []llmstream.Message{{Role: "user", Content: "hi"}},
				MaxTokens:   ptr(256),
				Temperature: ptr(0.5),
				TopP:        ptr(0.9),
				Stop:        []string{"END"},
				OnDelta:     func(d llmstream.Delta) error { text.WriteString(d.Text); return nil },
			})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if msg.Content != "hello there" || text.String() != "hello there" {
				t.Errorf("content %q, deltas %q; want both %q", msg.Content, text.String(), "hello there")
			}

			spans := tel.spans.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			s := spans[0]
			if s.Name() != tt.name || s.SpanKind() != trace.SpanKindClient || s.Status().Code != codes.Unset {
				t.Errorf("span %q kind %v status %v; want %q, client, unset", s.Name(), s.SpanKind(), s.Status(), tt.name)
			}
			got := attrs(s.Attributes())
			ttfc, ok := got["gen_ai.response.time_to_first_chunk"].(float64)
			if !ok || ttfc <= 0 || ttfc > elapsed.Seconds() {
				t.Errorf("time to first chunk %v, want in (0, %v]", got["gen_ai.response.time_to_first_chunk"], elapsed.Seconds())
			}
			delete(got, "gen_ai.response.time_to_first_chunk")
			op, _, _ := strings.Cut(tt.name, " ")
			host, port := serverOf(t, srv)
			want := map[string]any{
				"gen_ai.operation.name":          op,
				"gen_ai.provider.name":           tt.provider,
				"gen_ai.request.model":           "m-1",
				"gen_ai.request.max_tokens":      int64(256),
				"gen_ai.request.temperature":     0.5,
				"gen_ai.request.top_p":           0.9,
				"gen_ai.request.stop_sequences":  []string{"END"},
				"gen_ai.request.stream":          true,
				"gen_ai.response.finish_reasons": []string{tt.finish},
				"gen_ai.response.model":          "m-1-2026-01-01", // the stream's name, not the one asked
				"server.address":                 host,
				"server.port":                    port,
			}
			for k, v := range tt.usage {
				want[k] = v
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}

			identity := attribute.NewSet(
				attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", tt.provider),
				attribute.String("gen_ai.request.model", "m-1"), attribute.String("server.address", host), attribute.Int64("server.port", port))
			ms := tel.metrics(t)
			checkHistogram[float64](t, ms, "gen_ai.client.operation.duration", identity, 1, 0)
			checkHistogram[float64](t, ms, "gen_ai.client.operation.time_to_first_chunk", identity, 1, 0)
			in := tt.usage["gen_ai.usage.input_tokens"].(int64)
			checkHistogram[int64](t, ms, "gen_ai.client.token.usage", withAttr(identity, attribute.String("gen_ai.token.type", "input")), 1, in)
			checkHistogram[int64](t, ms, "gen_ai.client.token.usage", withAttr(identity, attribute.String("gen_ai.token.type", "output")), 1, 20)
		})
	}
}

// checkHistogram fails unless the histogram name has a point with exactly
// attrs, count observations and (when sum is not 0) that sum.
func checkHistogram[N int64 | float64](t *testing.T, ms map[string]metricdata.Aggregation, name string, attrs attribute.Set, count uint64, sum N) {
	t.Helper()
	h, ok := ms[name].(metricdata.Histogram[N])
	if !ok {
		t.Errorf("%s: no histogram of %T in %v", name, sum, ms[name])
		return
	}
	for _, p := range h.DataPoints {
		if p.Attributes.Equals(&attrs) {
			if p.Count != count || (sum != 0 && p.Sum != sum) {
				t.Errorf("%s{%v}: count %d sum %v, want %d and %v", name, attrs.Encoded(attribute.DefaultEncoder()), p.Count, p.Sum, count, sum)
			}
			return
		}
	}
	t.Errorf("%s: no point with %v among %d", name, attrs.Encoded(attribute.DefaultEncoder()), len(h.DataPoints))
}

func withAttr(s attribute.Set, kv ...attribute.KeyValue) attribute.Set {
	return attribute.NewSet(append(s.ToSlice(), kv...)...)
}

// serverOf is the host and port of srv's URL.
func serverOf(t *testing.T, srv *llmstreamtest.Server) (string, int64) {
	t.Helper()
	hostPort := strings.TrimPrefix(srv.URL, "http://")
	host, port, _ := strings.Cut(hostPort, ":")
	var p int64
	for _, c := range port {
		p = p*10 + int64(c-'0')
	}
	return host, p
}

// A request with no OnDelta gets none from the wrapper: the client's own
// WithOnDelta callback still runs, and no time to first chunk is claimed.
func TestModelWithoutOnDelta(t *testing.T) {
	tel := newTelemetry(t)
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hello there"}))
	var text strings.Builder
	c := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithOnDelta(func(d llmstream.Delta) error {
		text.WriteString(d.Text)
		return nil
	}))...)
	if _, err := otel.NewModel(c, tel.opts...).Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if text.String() != "hello there" {
		t.Errorf("the client's callback got %q", text.String())
	}
	if v, ok := attrs(tel.spans.Ended()[0].Attributes())["gen_ai.response.time_to_first_chunk"]; ok {
		t.Errorf("time to first chunk %v without a callback", v)
	}
	if _, ok := tel.metrics(t)["gen_ai.client.operation.time_to_first_chunk"]; ok {
		t.Error("time-to-first-chunk metric without a callback")
	}
}
