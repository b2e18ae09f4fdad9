package otel_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// A failed call in any dialect ends its span with an Error status and the
// error.type of the failure's kind, and the duration metric carries it.
func TestModelFaultErrorType(t *testing.T) {
	faults := []struct {
		name  string
		fault llmstreamtest.Fault
		want  string
	}{
		{"bad request", llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 400, Type: "invalid_request_error"}, "invalid_request"},
		{"rate limited, no retry", llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 429, Type: "rate_limit_error", Attempts: 9}, "rate_limited"},
		{"in-stream overload", llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, After: 2, Type: "overloaded_error", Code: json.RawMessage(`"overloaded_error"`)}, "overloaded"},
		{"truncated", llmstreamtest.Fault{Kind: llmstreamtest.FaultTruncate, After: 2}, "interrupted"},
		{"cut", llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 2}, "interrupted"},
		{"malformed", llmstreamtest.Fault{Kind: llmstreamtest.FaultMalformed, After: 1}, "bad_response"},
		{"stalled past the deadline", llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: 1}, "deadline_exceeded"},
	}
	for _, d := range dialects {
		for _, f := range faults {
			t.Run(d.String()+"/"+f.name, func(t *testing.T) {
				tel := newTelemetry(t)
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "one two three four five", Fault: f.fault}))
				c := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithModel("m-1"), llmstream.WithAPIKey(testKey))...)
				m := otel.NewModel(c, append(tel.opts, otel.WithDialect(d), otel.WithModelName("m-1"))...)
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				_, err := m.Stream(ctx, llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
				if err == nil {
					t.Fatal("no error")
				}
				spans := tel.spans.Ended()
				if len(spans) != 1 {
					t.Fatalf("%d spans, want 1", len(spans))
				}
				s := spans[0]
				if k := llmstream.KindOf(err).String(); k != f.want {
					t.Errorf("KindOf(%v) = %s; error.type is not its name", err, k)
				}
				if got := attrs(s.Attributes())["error.type"]; got != f.want {
					t.Errorf("error.type %v, want %q (error: %v)", got, f.want, err)
				}
				// Without WithContent the description is the type alone:
				// an error text may quote the conversation.
				if s.Status().Code != codes.Error || s.Status().Description != f.want {
					t.Errorf("status %+v, want Error %q", s.Status(), f.want)
				}
				op := "chat"
				if d == llmstream.DialectGemini {
					op = "generate_content"
				}
				checkHistogram[float64](t, tel.metrics(t), "gen_ai.client.operation.duration", attribute.NewSet(
					attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", providerName(d)),
					attribute.String("gen_ai.request.model", "m-1"), attribute.String("error.type", f.want)), 1, 0)
			})
		}
	}
}

// A call whose context is cancelled before it starts is "canceled".
func TestModelCanceled(t *testing.T) {
	tel := newTelemetry(t)
	srv := llmstreamtest.NewTestServer(t)
	m := otel.NewModel(newClient(srv, llmstream.DialectChat), tel.opts...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Stream(ctx, llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}}); err == nil {
		t.Fatal("no error")
	}
	s := tel.spans.Ended()[0]
	if got := attrs(s.Attributes())["error.type"]; got != "canceled" {
		t.Errorf("error.type %v, want canceled", got)
	}
	if s.Name() != "chat" {
		t.Errorf("span %q: a call with no model is named by the operation alone", s.Name())
	}
}

func providerName(d llmstream.Dialect) string {
	switch d {
	case llmstream.DialectAnthropic:
		return "anthropic"
	case llmstream.DialectGemini:
		return "gcp.gemini"
	}
	return "openai"
}
