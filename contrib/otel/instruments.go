package otel

import (
	"cmp"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// instrumentationName names the tracer and meter of this package.
const instrumentationName = "github.com/airlock-go/airlock/contrib/otel"

// instruments are the GenAI client metrics. An instrument the meter could
// not make is a no-op one (the OpenTelemetry API hands one back with the
// error), so a bad meter never fails a model call.
type instruments struct {
	tokens           metric.Int64Histogram
	duration         metric.Float64Histogram
	timeToFirstChunk metric.Float64Histogram
}

func newInstruments(p metric.MeterProvider) instruments {
	m := p.Meter(instrumentationName)
	var in instruments
	in.tokens, _ = m.Int64Histogram(metricTokenUsage, metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used."),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	in.duration, _ = m.Float64Histogram(metricDuration, metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.timeToFirstChunk, _ = m.Float64Histogram(metricTimeToFirstChunk, metric.WithUnit("s"),
		metric.WithDescription("Time to receive the first chunk of a streaming response."),
		metric.WithExplicitBucketBoundaries(chunkBuckets...))
	in.tokens = cmp.Or[metric.Int64Histogram](in.tokens, noop.Int64Histogram{})
	in.duration = cmp.Or[metric.Float64Histogram](in.duration, noop.Float64Histogram{})
	in.timeToFirstChunk = cmp.Or[metric.Float64Histogram](in.timeToFirstChunk, noop.Float64Histogram{})
	return in
}
