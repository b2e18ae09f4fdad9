package otel_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A Model's attributes made once are shared by its calls: calls running
// at once, each with its own settings, some to another model, each get
// exactly their own span attributes and metric points.
func TestModelConcurrentCallsKeepTheirAttributes(t *testing.T) {
	tel := newTelemetry(t)
	answer := llmstream.Message{Role: "assistant", Content: "done", FinishReason: "stop", Usage: scriptedUsage}
	instant := streamerFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		if r.OnDelta != nil {
			_ = r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "done"})
		}
		return answer, nil
	})
	m := otel.NewModel(instant, append(tel.opts, otel.WithModelName("m-1"))...)
	const calls = 40
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			r := llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}, OnDelta: func(llmstream.Delta) error { return nil }}
			if i%2 == 1 {
				r.MaxTokens = ptr(i)
			}
			if i%4 == 2 {
				r.Model = fmt.Sprintf("m-%d", i)
			}
			if _, err := m.Stream(context.Background(), r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()

	spans := tel.spans.Ended()
	if len(spans) != calls {
		t.Fatalf("%d spans, want %d", len(spans), calls)
	}
	perModel := map[string]int{}
	for _, s := range spans {
		got := attrs(s.Attributes())
		model := got["gen_ai.request.model"]
		perModel[model.(string)]++
		if s.Name() != "chat "+model.(string) {
			t.Errorf("span %q has gen_ai.request.model %v", s.Name(), model)
		}
		// operation, provider, model, stream, time to first chunk, finish
		// reasons, five usage counts, and max_tokens for odd calls.
		want := 11
		if mt, ok := got["gen_ai.request.max_tokens"]; ok {
			want++
			if mt.(int64)%2 != 1 || model != "m-1" {
				t.Errorf("span %q: max_tokens %v of another call", s.Name(), mt)
			}
		}
		if n := len(s.Attributes()); n != want {
			t.Errorf("span %q has %d attributes, want %d: %v", s.Name(), n, want, got)
		}
	}
	if perModel["m-1"] != calls-calls/4 {
		t.Errorf("calls per model %v, want %d to m-1", perModel, calls-calls/4)
	}

	identity := attribute.NewSet(attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"), attribute.String("gen_ai.request.model", "m-1"))
	ms := tel.metrics(t)
	checkHistogram[float64](t, ms, "gen_ai.client.operation.duration", identity, calls-calls/4, 0)
	checkHistogram[float64](t, ms, "gen_ai.client.operation.time_to_first_chunk", identity, calls-calls/4, 0)
	checkHistogram[int64](t, ms, "gen_ai.client.token.usage", withAttr(identity, attribute.String("gen_ai.token.type", "output")), calls-calls/4, 20*(calls-calls/4))
}

// A span sampled out records nothing, but the call is still measured:
// the metrics, time to first chunk included, do not depend on sampling,
// and the caller's OnDelta still gets every delta.
func TestModelNotSampledStillMeasured(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()), sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel := &telemetry{spans: spans, reader: reader}
	answer := llmstream.Message{Role: "assistant", Content: "done", FinishReason: "stop", Usage: scriptedUsage}
	instant := streamerFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		_ = r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "do"})
		_ = r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "ne"})
		return answer, nil
	})
	m := otel.NewModel(instant, otel.WithTracerProvider(tp), otel.WithMeterProvider(mp), otel.WithModelName("m-1"))
	var text string
	if _, err := m.Stream(context.Background(), llmstream.Request{OnDelta: func(d llmstream.Delta) error { text += d.Text; return nil }}); err != nil {
		t.Fatal(err)
	}
	if text != "done" {
		t.Errorf("OnDelta got %q, want %q", text, "done")
	}
	if n := len(spans.Ended()); n != 0 {
		t.Errorf("%d spans recorded, want none", n)
	}
	identity := attribute.NewSet(attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"), attribute.String("gen_ai.request.model", "m-1"))
	ms := tel.metrics(t)
	checkHistogram[float64](t, ms, "gen_ai.client.operation.duration", identity, 1, 0)
	checkHistogram[float64](t, ms, "gen_ai.client.operation.time_to_first_chunk", identity, 1, 0)
	checkHistogram[int64](t, ms, "gen_ai.client.token.usage", withAttr(identity, attribute.String("gen_ai.token.type", "input")), 1, 100)
}
