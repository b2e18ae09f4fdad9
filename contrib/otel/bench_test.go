package otel_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
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

// BenchmarkModel compares one 1,000-event chat call through the bare
// client with the same call through a Model recording to the SDK's
// tracer (sampled, no exporter) and meter (a manual reader), with and
// without a delta callback of the caller's.
func BenchmarkModel(b *testing.B) {
	data := recordStream(b)
	client := llmstream.NewClient(llmstream.WithHTTPClient(data), llmstream.WithBaseURL("http://replay.invalid"), llmstream.WithModel("m-1"))
	tp := sdktrace.NewTracerProvider()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
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
