package llmstream_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
)

func chunk(content string) sse.Event {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": content}}}})
	return sse.Event{Type: "message", Data: b}
}

// TestHandleDone: the done sentinel ends the stream; later events change
// nothing.
func TestHandleDone(t *testing.T) {
	b := llmstream.NewBridge()
	for _, ev := range []sse.Event{chunk("a"), {Type: "message", Data: []byte("[DONE]")}, chunk("b"), {Type: "error", Data: []byte(`{"error":"late"}`)}} {
		if err := b.Handle(ev); err != nil {
			t.Fatalf("Handle(%s) = %v", ev.Data, err)
		}
	}
	m, err := b.Message()
	if err != nil || m.Content != "a" {
		t.Errorf("Message = %q, %v; want \"a\" and no error", m.Content, err)
	}
}

// TestHandleStickyError: the first error is returned by every later call and
// by Message, and nothing more is applied.
func TestHandleStickyError(t *testing.T) {
	b := llmstream.NewBridge()
	b.Handle(chunk("a"))
	first := b.Handle(sse.Event{Type: "message", Data: []byte(`{"choices":`)})
	if !errors.Is(first, llmstream.ErrBadEvent) {
		t.Fatalf("bad event: %v", first)
	}
	if err := b.Handle(chunk("b")); err != first {
		t.Errorf("a later Handle = %v, want the first error", err)
	}
	if err := b.Handle(sse.Event{Type: "error", Data: []byte(`{"error":"other"}`)}); err != first {
		t.Errorf("a later error event = %v, want the first error", err)
	}
	m, err := b.Message()
	if err != first || m.Content != "a" {
		t.Errorf("Message = %q, %v; want \"a\" and the first error", m.Content, err)
	}
	if err := b.Handle(chunk("c")); err != first {
		t.Errorf("Handle after Message = %v", err)
	}
}

// TestUnknownSSEFields: fields the standard ignores stay ignored, except
// llama.cpp's "error:".
func TestUnknownSSEFields(t *testing.T) {
	const stream = "warning: {\"message\":\"slow\"}\nfoo: bar\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\nx-error: nope\n\n"
	m, err := llmstream.ReadMessage(strings.NewReader(stream))
	if err != nil || m.Content != "ok" {
		t.Fatalf("unknown fields: %q, %v", m.Content, err)
	}
	_, err = llmstream.ReadMessage(strings.NewReader("error: {\"message\":\"boom\"}\n\n" + stream))
	var api *llmstream.APIError
	if !errors.As(err, &api) || api.Message != "boom" {
		t.Errorf("error line: %v", err)
	}
}

// TestZeroValues: the zero Bridge works; the zero Client says it is misused.
func TestZeroValues(t *testing.T) {
	var b llmstream.Bridge
	if err := b.Handle(sse.Event{Data: []byte(`{"choices":[{"index":0,"delta":{"content":"hi","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)}); err != nil {
		t.Fatal(err)
	}
	m, err := b.Message()
	if err != nil || m.Content != "hi" || len(m.ToolCalls) != 1 {
		t.Errorf("zero Bridge: %+v, %v", m, err)
	}
	var c llmstream.Client
	if _, err := c.Stream(t.Context(), llmstream.Request{}); !errors.Is(err, llmstream.ErrMisuse) {
		t.Errorf("zero Client: %v, want ErrMisuse", err)
	}
}

// TestNoModelSendsNone: a client with no model sends no "model" member
// (single-model servers accept that) instead of "model":"".
func TestNoModelSendsNone(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "a"}, llmstreamtest.Turn{Text: "b"}))
	if _, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL)).Stream(t.Context(), llmstream.Request{}); err != nil {
		t.Fatal(err)
	}
	if _, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithModel("m1")).Stream(t.Context(), llmstream.Request{}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	var first, second map[string]json.RawMessage
	json.Unmarshal(reqs[0].Body, &first)
	json.Unmarshal(reqs[1].Body, &second)
	if _, ok := first["model"]; ok {
		t.Errorf("without a model the request has %s", reqs[0].Body)
	}
	if string(second["model"]) != `"m1"` {
		t.Errorf("with a model the request has %s", reqs[1].Body)
	}
}
