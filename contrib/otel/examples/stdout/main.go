// Command stdout traces one offline agent run and prints its spans to
// stdout with the OpenTelemetry SDK's stdout exporter: an invoke_agent
// span, a chat span per model call and an execute_tool span per tool call,
// each with its GenAI attributes.
//
//	cd contrib/otel && go run ./examples/stdout
//
// The model is llmstreamtest's scripted server, so it needs no key; with
// an *llmstream.Client of a real provider the code is the same. In a
// service, give the tracer provider an OTLP exporter instead.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stdout:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
		llmstreamtest.Turn{Text: "The module is airlock."},
	))
	defer srv.Close()
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)) // each span printed as it ends
	defer tp.Shutdown(ctx)

	client := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithModel("gpt-4o-mini"))...)
	tools := []agentloop.Tool{{
		Name:        "read_file",
		Description: "Reads a file of the workspace.",
		Run: func(context.Context, json.RawMessage) (string, error) {
			return "module github.com/airlock-go/airlock", nil
		},
	}}
	messages := []llmstream.Message{{Role: "user", Content: "What is the module called?"}}
	// readme:begin spans
	// an agentloop.Model, as the client is; the client tells its dialect, model and URL
	model := otel.NewModel(client, otel.WithTracerProvider(tp))
	loop := &agentloop.Loop{Model: model, Tools: tools} // otel.Run makes a span of each tool call
	res, err := otel.Run(ctx, loop, messages, otel.WithTracerProvider(tp), otel.WithAgentName("helper"))
	// readme:end
	if err != nil {
		return err
	}
	fmt.Fprintln(out, res.Messages[len(res.Messages)-1].Content)
	return nil
}
