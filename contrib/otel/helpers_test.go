package otel_test

import (
	"context"
	"testing"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// dialects are the four wires llmstreamtest serves.
var dialects = []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses, llmstream.DialectGemini, llmstream.DialectBedrock}

// testKey is the API key of the tests' clients: characters that JSON and
// URL escaping both change, so a scan for its escaped forms means
// something.
const testKey = `sk-otel/test+key"<&>=secret`

// telemetry is an in-memory trace and metric pipeline.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	opts   []otel.Option
}

func newTelemetry(t testing.TB) *telemetry {
	t.Helper()
	tel := &telemetry{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tel.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel.opts = []otel.Option{otel.WithTracerProvider(tp), otel.WithMeterProvider(mp)}
	return tel
}

// metrics collects the metrics recorded so far, by name.
func (tel *telemetry) metrics(t testing.TB) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tel.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// newClient is an llmstream client of dialect d for srv with the test key
// and model "m-1".
func newClient(srv *llmstreamtest.Server, d llmstream.Dialect) *llmstream.Client {
	return llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithModel("m-1"), llmstream.WithAPIKey(testKey))...)
}

// attrs returns a span's attributes as a map of their values.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

func ptr[T any](v T) *T { return &v }
