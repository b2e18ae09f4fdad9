package otel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// conversation is a request whose every message holds the word "PRIVATE".
var conversation = []llmstream.Message{
	{Role: "system", Content: "PRIVATE system prompt"},
	{Role: "user", Content: "PRIVATE question"},
	{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "call_1", Type: "function", Function: llmstream.FunctionCall{Name: "lookup", Arguments: `{"q":"PRIVATE"}`}}}},
	{Role: "tool", ToolCallID: "call_1", Content: "PRIVATE result"},
}

// dump is everything a span carries as text: name, status, attributes,
// events and their attributes.
func dump(s sdktrace.ReadOnlySpan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|", s.Name(), s.Status().Code, s.Status().Description)
	for _, kv := range s.Attributes() {
		fmt.Fprintf(&b, "%s=%s|", kv.Key, kv.Value.String())
	}
	for _, e := range s.Events() {
		fmt.Fprintf(&b, "event %s|", e.Name)
		for _, kv := range e.Attributes {
			fmt.Fprintf(&b, "%s=%s|", kv.Key, kv.Value.String())
		}
	}
	return b.String()
}

// Contents are recorded only with WithContent(true), then in the
// conventions' JSON form: system instructions apart where the dialect
// sends them apart, tool calls and their answers as parts.
func TestContentOnlyWhenOptedIn(t *testing.T) {
	for _, d := range dialects {
		for _, on := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/content=%t", d, on), func(t *testing.T) {
				tel := newTelemetry(t)
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "PRIVATE answer"}))
				m := otel.NewModel(newClient(srv, d), append(tel.opts, otel.WithDialect(d), otel.WithContent(on))...)
				if _, err := m.Stream(context.Background(), llmstream.Request{Messages: conversation}); err != nil {
					t.Fatal(err)
				}
				s := tel.spans.Ended()[0]
				if !on {
					if text := dump(s); strings.Contains(text, "PRIVATE") {
						t.Errorf("content recorded without WithContent: %s", text)
					}
					return
				}
				got := attrs(s.Attributes())
				input := `[{"role":"user","parts":[{"type":"text","content":"PRIVATE question"}]},` +
					`{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"lookup","arguments":{"q":"PRIVATE"}}]},` +
					`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_1","response":"PRIVATE result"}]}]`
				system := `[{"type":"text","content":"PRIVATE system prompt"}]`
				if d == llmstream.DialectChat {
					input = `[{"role":"system","parts":[{"type":"text","content":"PRIVATE system prompt"}]},` + input[1:]
					system = ""
				}
				output := `[{"role":"assistant","parts":[{"type":"text","content":"PRIVATE answer"}],"finish_reason":"` + finishOf(d) + `"}]`
				checkJSON(t, "gen_ai.input.messages", got["gen_ai.input.messages"], input)
				checkJSON(t, "gen_ai.output.messages", got["gen_ai.output.messages"], output)
				if system == "" {
					if v, ok := got["gen_ai.system_instructions"]; ok {
						t.Errorf("chat sends the system prompt as a message, yet system instructions %v", v)
					}
				} else {
					checkJSON(t, "gen_ai.system_instructions", got["gen_ai.system_instructions"], system)
				}
			})
		}
	}
}

func finishOf(d llmstream.Dialect) string {
	return map[llmstream.Dialect]string{llmstream.DialectChat: "stop", llmstream.DialectAnthropic: "end_turn",
		llmstream.DialectResponses: "completed", llmstream.DialectGemini: "STOP", llmstream.DialectBedrock: "end_turn"}[d]
}

// checkJSON compares JSON texts by value.
func checkJSON(t *testing.T, name string, got any, want string) {
	t.Helper()
	s, ok := got.(string)
	if !ok {
		t.Errorf("%s: %v (%T), want a JSON string", name, got, got)
		return
	}
	var g, w any
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		t.Errorf("%s: %v in %s", name, err, s)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// No span carries the API key, raw or escaped — with contents recorded,
// and when the provider echoes the key in its error message.
func TestNoCredentialInSpans(t *testing.T) {
	jsonKey, _ := json.Marshal(testKey)
	forms := []string{testKey, strings.Trim(string(jsonKey), `"`), url.QueryEscape(testKey), url.PathEscape(testKey)}
	for _, d := range dialects {
		t.Run(d.String(), func(t *testing.T) {
			tel := newTelemetry(t)
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
				llmstreamtest.Turn{Text: "fine"},
				llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 400, Type: "invalid_request_error", Message: "bad key " + testKey}},
				llmstreamtest.Turn{Text: "partial answer", Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, After: 1, Message: "key was " + testKey}},
			))
			m := otel.NewModel(newClient(srv, d), append(tel.opts, otel.WithDialect(d), otel.WithContent(true), otel.WithServerURL(srv.URL+"/v1?key="+url.QueryEscape(testKey)))...)
			req := llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}}
			for i := range 3 {
				_, err := m.Stream(context.Background(), req)
				if (err != nil) != (i > 0) {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			spans := tel.spans.Ended()
			if len(spans) != 3 {
				t.Fatalf("%d spans, want 3", len(spans))
			}
			for _, s := range spans {
				text := dump(s)
				for _, f := range forms {
					if strings.Contains(text, f) {
						t.Errorf("span holds the key as %q: %s", f, text)
					}
				}
			}
			// The failed calls' descriptions are their (redacted) error texts.
			if !strings.Contains(spans[1].Status().Description, "bad key") {
				t.Errorf("status %q: with WithContent the description is the error text", spans[1].Status().Description)
			}
		})
	}
}
