package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// lookupTool answers with its argument q and traces one span of its own
// under the context it is given.
func lookupTool(tp trace.TracerProvider) agentloop.Tool {
	return agentloop.Tool{
		Name:        "lookup",
		Description: "Looks a word up.",
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			_, span := tp.Tracer("tool").Start(ctx, "inside lookup")
			defer span.End()
			var in struct{ Q string }
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			if in.Q == "fail" {
				return "", agentloop.Recoverable(errors.New("no such word"))
			}
			return "found " + in.Q, nil
		},
	}
}

// A run is one invoke_agent span; its model calls and tool calls are its
// children, each tool call with its call id, and what a tool traces is
// the tool span's child. The loop's own hooks still run.
func TestRunSpans(t *testing.T) {
	tel := newTelemetry(t)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tel.spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{Usage: scriptedUsage, ToolCalls: []llmstreamtest.Call{
			{ID: "call_a", Name: "lookup", Arguments: `{"q":"a"}`},
			{ID: "call_b", Name: "lookup", Arguments: ` {"q":"a"}`},
			{ID: "call_c", Name: "lookup", Arguments: `{"q":"fail"}`},
		}},
		llmstreamtest.Turn{Text: "done", Usage: scriptedUsage, Model: "m-1-last"},
	))
	model := otel.NewModel(newClient(srv, llmstream.DialectChat), append(tel.opts, otel.WithModelName("m-1"))...)
	var hooked []string
	loop := &agentloop.Loop{
		Model: model,
		Tools: []agentloop.Tool{lookupTool(tp)},
		Hooks: agentloop.Hooks{BeforeTool: func(s agentloop.ToolStart) { hooked = append(hooked, s.Call.ID) }},
	}
	res, err := otel.Run(context.Background(), loop, []llmstream.Message{{Role: "user", Content: "look a up"}},
		append(tel.opts, otel.WithAgentName("helper"), otel.WithModelName("m-1"))...)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 2 || !cmp.Equal(hooked, []string{"call_a", "call_b", "call_c"}) {
		t.Errorf("turns %d, hooked %v", res.Turns, hooked)
	}

	spans := tel.spans.Ended()
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	agents, chats, tools, inner := byName["invoke_agent helper"], byName["chat m-1"], byName["execute_tool lookup"], byName["inside lookup"]
	if len(agents) != 1 || len(chats) != 2 || len(tools) != 3 || len(inner) != 3 || len(spans) != 9 {
		t.Fatalf("spans %v", names(spans))
	}
	agent := agents[0]
	if agent.SpanKind() != trace.SpanKindInternal || agent.Parent().IsValid() {
		t.Errorf("invoke_agent: kind %v, parent %v; want internal root", agent.SpanKind(), agent.Parent())
	}
	wantAgent := map[string]any{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai", "gen_ai.agent.name": "helper",
		"gen_ai.request.model": "m-1", "gen_ai.usage.input_tokens": int64(200), "gen_ai.usage.output_tokens": int64(40),
		"gen_ai.usage.cache_read.input_tokens": int64(60), "gen_ai.usage.cache_creation.input_tokens": int64(14),
		"gen_ai.usage.reasoning.output_tokens": int64(10),
		"gen_ai.response.finish_reasons":       []string{"stop"},
		"gen_ai.response.model":                "m-1-last", // the last turn's
	}
	if diff := cmp.Diff(wantAgent, attrs(agent.Attributes())); diff != "" {
		t.Errorf("invoke_agent attributes (-want +got):\n%s", diff)
	}
	for _, s := range append(chats, tools...) {
		if s.Parent().SpanID() != agent.SpanContext().SpanID() {
			t.Errorf("%s: parent %v, want the invoke_agent span", s.Name(), s.Parent().SpanID())
		}
	}
	var ids []string
	for i, s := range tools {
		a := attrs(s.Attributes())
		ids = append(ids, a["gen_ai.tool.call.id"].(string))
		want := map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.type": "function",
			"gen_ai.tool.description": "Looks a word up.", "gen_ai.tool.call.id": ids[i]}
		if ids[i] == "call_c" {
			want["error.type"] = "_OTHER"
			if s.Status().Code != codes.Error {
				t.Errorf("failed tool's status %v", s.Status())
			}
		}
		if diff := cmp.Diff(want, a); diff != "" {
			t.Errorf("tool span %d (-want +got):\n%s", i, diff)
		}
		if s.SpanKind() != trace.SpanKindInternal || inner[i].Parent().SpanID() != s.SpanContext().SpanID() {
			t.Errorf("tool span %d: kind %v; the tool's own span is not its child", i, s.SpanKind())
		}
	}
	if !cmp.Equal(ids, []string{"call_a", "call_b", "call_c"}) {
		t.Errorf("call ids %v, want call_a call_b call_c", ids)
	}
}

// A run that fails has error.type and an Error status on its span.
func TestRunError(t *testing.T) {
	tel := newTelemetry(t)
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "nope"}}}))
	loop := &agentloop.Loop{Model: otel.NewModel(newClient(srv, llmstream.DialectChat), tel.opts...)}
	if _, err := otel.Run(context.Background(), loop, []llmstream.Message{{Role: "user", Content: "hi"}}, tel.opts...); err == nil {
		t.Fatal("no error")
	}
	for _, s := range tel.spans.Ended() {
		if s.Name() != "invoke_agent" {
			continue
		}
		if got := attrs(s.Attributes())["error.type"]; got != "invalid_tool_calls" || s.Status().Code != codes.Error {
			t.Errorf("error.type %v, status %v; want invalid_tool_calls, Error", got, s.Status())
		}
		return
	}
	t.Errorf("no invoke_agent span among %v", names(tel.spans.Ended()))
}

// Outside Run a wrapped tool has a span without a call id; wrapped twice,
// still one span; a panic is recorded and goes on up.
func TestWrapTools(t *testing.T) {
	tel := newTelemetry(t)
	boom := agentloop.Tool{Name: "boom", Run: func(context.Context, json.RawMessage) (string, error) { panic("boom") }}
	tools := otel.WrapTools(otel.WrapTools([]agentloop.Tool{lookupTool(noop.NewTracerProvider()), boom}, tel.opts...), append(tel.opts, otel.WithContent(true))...)
	out, err := tools[0].Run(context.Background(), json.RawMessage(`{"q":"x"}`))
	if out != "found x" || err != nil {
		t.Fatalf("Run: %q, %v", out, err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not go on up")
			}
		}()
		_, _ = tools[1].Run(context.Background(), nil)
	}()
	spans := tel.spans.Ended()
	if len(spans) != 2 {
		t.Fatalf("spans %v, want one per call", names(spans))
	}
	if a := attrs(spans[0].Attributes()); a["gen_ai.tool.call.id"] != nil || a["gen_ai.tool.call.arguments"] != `{"q":"x"}` || a["gen_ai.tool.call.result"] != "found x" {
		t.Errorf("lookup span %v", a)
	}
	if a := attrs(spans[1].Attributes()); a["error.type"] != "tool" || spans[1].Status().Code != codes.Error {
		t.Errorf("boom span %v %v", a, spans[1].Status())
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}
