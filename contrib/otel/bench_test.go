package otel_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// benchEvents is the length of the benchmark's chat stream, in SSE events.
const benchEvents = 1000

// replay is a Doer that answers every request with the same recorded
// event stream, so the benchmark times the client and the wrapper, not a
// network.
type replay []byte

func (r replay) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Request: req,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(bytes.NewReader(r)),
	}, nil
}

// recordStream records llmstreamtest's chat stream of a turn of words
// that is exactly benchEvents events long.
func recordStream(b *testing.B) replay {
	b.Helper()
	const overhead = 4 // the role chunk, the finish chunk, the usage chunk and [DONE]
	words := strings.Repeat("word ", benchEvents-overhead)
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(llmstreamtest.Turn{Text: words, Usage: scriptedUsage}))
	defer srv.Close()
	body := `{"model":"m-1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if n := bytes.Count(data, []byte("data: ")); n != benchEvents {
		b.Fatalf("recorded %d events, want %d", n, benchEvents)
	}
	return data
}

// benchProviders are the SDK's tracer (sampled, no exporter) and meter (a
// manual reader) that the benchmarks record to.
func benchProviders(b *testing.B) (*sdktrace.TracerProvider, *sdkmetric.MeterProvider) {
	tp := sdktrace.NewTracerProvider()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return tp, mp
}

// BenchmarkModel compares one 1,000-event chat call through the bare
// client with the same call through a Model recording to the SDK's
// tracer (sampled, no exporter) and meter (a manual reader), with and
// without a delta callback of the caller's.
func BenchmarkModel(b *testing.B) {
	data := recordStream(b)
	client := llmstream.NewClient(llmstream.WithHTTPClient(data), llmstream.WithBaseURL("http://replay.invalid"), llmstream.WithModel("m-1"))
	tp, mp := benchProviders(b)
	wrapped := otel.NewModel(client, otel.WithTracerProvider(tp), otel.WithMeterProvider(mp), otel.WithModelName("m-1"))
	msgs := []llmstream.Message{{Role: "user", Content: "hi"}}
	noop := func(llmstream.Delta) error { return nil }
	for _, bc := range []struct {
		name    string
		model   otel.Streamer
		onDelta func(llmstream.Delta) error
	}{
		{"bare", client, nil},
		{"bare+ondelta", client, noop},
		{"otel", wrapped, nil},
		{"otel+ondelta", wrapped, noop},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				msg, err := bc.model.Stream(context.Background(), llmstream.Request{Messages: msgs, OnDelta: bc.onDelta})
				if err != nil || msg.FinishReason != "stop" {
					b.Fatal(msg.FinishReason, err)
				}
			}
		})
	}
}

// BenchmarkModelOverhead runs the bare and the wrapped call in pairs,
// alternating which goes first, and reports the wrapper's added time in
// percent of the bare call's: the median of the pairs' differences over
// the median bare call. Paired, so that the load of a shared machine,
// which moves both by far more than the difference, cancels out; medians,
// so that one call a GC cycle or a preemption lands on does not decide it.
func BenchmarkModelOverhead(b *testing.B) {
	data := recordStream(b)
	client := llmstream.NewClient(llmstream.WithHTTPClient(data), llmstream.WithBaseURL("http://replay.invalid"), llmstream.WithModel("m-1"))
	tp, mp := benchProviders(b)
	wrapped := otel.NewModel(client, otel.WithTracerProvider(tp), otel.WithMeterProvider(mp), otel.WithModelName("m-1"))
	msgs := []llmstream.Message{{Role: "user", Content: "hi"}}
	for _, bc := range []struct {
		name    string
		onDelta func(llmstream.Delta) error
	}{
		{"no-ondelta", nil},
		{"ondelta", func(llmstream.Delta) error { return nil }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			call := func(m otel.Streamer) time.Duration {
				start := time.Now()
				msg, err := m.Stream(context.Background(), llmstream.Request{Messages: msgs, OnDelta: bc.onDelta})
				if err != nil || msg.FinishReason != "stop" {
					b.Fatal(msg.FinishReason, err)
				}
				return time.Since(start)
			}
			var bare, diff []time.Duration
			for b.Loop() {
				var tb, tw time.Duration
				if len(bare)%2 == 0 {
					tb, tw = call(client), call(wrapped)
				} else {
					tw, tb = call(wrapped), call(client)
				}
				bare, diff = append(bare, tb), append(diff, tw-tb)
			}
			b.ReportMetric(100*float64(median(diff))/float64(median(bare)), "%overhead")
			b.ReportMetric(float64(median(bare).Microseconds()), "bare-µs/call")
		})
	}
}

// median is the middle of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// streamerFunc is a Streamer made of a function.
type streamerFunc func(context.Context, llmstream.Request) (llmstream.Message, error)

func (f streamerFunc) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	return f(ctx, r)
}

// BenchmarkWrapperAlone times what the wrapper adds to one call — span,
// attributes, the delta hook, three metrics — around a model that answers
// at once, with one delta. Divided by BenchmarkModel/bare+ondelta it is
// the overhead on a 1,000-event call, without the noise of timing the
// stream; its allocations are the wrapper's and the SDK's exactly.
func BenchmarkWrapperAlone(b *testing.B) {
	tp, mp := benchProviders(b)
	answer := llmstream.Message{Role: "assistant", Content: "done", FinishReason: "stop", Usage: scriptedUsage}
	instant := streamerFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		if r.OnDelta != nil {
			_ = r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "done"})
		}
		return answer, nil
	})
	wrapped := otel.NewModel(instant, otel.WithTracerProvider(tp), otel.WithMeterProvider(mp), otel.WithModelName("m-1"))
	msgs := []llmstream.Message{{Role: "user", Content: "hi"}}
	onDelta := func(llmstream.Delta) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wrapped.Stream(context.Background(), llmstream.Request{Messages: msgs, OnDelta: onDelta}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSDKAlone makes, straight with the SDK, the span and metric
// points BenchmarkWrapperAlone's call makes (every option and attribute
// set built beforehand): the floor under the wrapper's cost, which is the
// SDK's.
func BenchmarkSDKAlone(b *testing.B) {
	tp, mp := benchProviders(b)
	tracer, meter := tp.Tracer("floor"), mp.Meter("floor")
	duration, _ := meter.Float64Histogram("duration")
	firstChunk, _ := meter.Float64Histogram("first_chunk")
	tokens, _ := meter.Int64Histogram("tokens")
	identity := []attribute.KeyValue{attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"), attribute.String("gen_ai.request.model", "m-1")}
	start := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(append(identity, attribute.Bool("gen_ai.request.stream", true))...)}
	set := func(extra ...attribute.KeyValue) []metric.RecordOption {
		return []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(append(identity[:3:3], extra...)...))}
	}
	call, input, output := set(), set(attribute.String("gen_ai.token.type", "input")), set(attribute.String("gen_ai.token.type", "output"))
	finish := attribute.StringSlice("gen_ai.response.finish_reasons", []string{"stop"})
	b.ReportAllocs()
	for b.Loop() {
		ctx, span := tracer.Start(context.Background(), "chat m-1", start...)
		span.SetAttributes(attribute.Float64("gen_ai.response.time_to_first_chunk", 1e-6), finish,
			attribute.Int("gen_ai.usage.input_tokens", 100), attribute.Int("gen_ai.usage.output_tokens", 20),
			attribute.Int("gen_ai.usage.cache_read.input_tokens", 30), attribute.Int("gen_ai.usage.cache_creation.input_tokens", 7),
			attribute.Int("gen_ai.usage.reasoning.output_tokens", 5))
		span.End()
		firstChunk.Record(ctx, 1e-6, call...)
		tokens.Record(ctx, 100, input...)
		tokens.Record(ctx, 20, output...)
		duration.Record(ctx, 1e-5, call...)
	}
}
