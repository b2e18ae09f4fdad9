package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// An agent run traced: one invoke_agent span, a span per model call and
// one per tool call, with the call's id.
func ExampleRun() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "call_1", Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
		llmstreamtest.Turn{Text: "The module is airlock."},
	))
	defer srv.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())

	client := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithModel("gpt-4o"))...)
	opts := []otel.Option{otel.WithTracerProvider(tp), otel.WithModelName("gpt-4o"), otel.WithServerURL(srv.URL)}
	loop := &agentloop.Loop{
		Model: otel.NewModel(client, opts...),
		Tools: []agentloop.Tool{{
			Name: "read_file",
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				return "module github.com/airlock-go/airlock", nil
			},
		}},
	}
	res, err := otel.Run(context.Background(), loop, []llmstream.Message{{Role: "user", Content: "What is the module called?"}},
		append(opts, otel.WithAgentName("reader"))...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Messages[len(res.Messages)-1].Content)
	ended := spans.Ended()
	slices.SortFunc(ended, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	for _, s := range ended {
		id := ""
		for _, kv := range s.Attributes() {
			if kv.Key == "gen_ai.tool.call.id" {
				id = " " + kv.Value.AsString()
			}
		}
		fmt.Printf("%s (%v)%s\n", s.Name(), s.SpanKind(), id)
	}
	// Output:
	// The module is airlock.
	// invoke_agent reader (internal)
	// chat gpt-4o (client)
	// execute_tool read_file (internal) call_1
	// chat gpt-4o (client)
}
