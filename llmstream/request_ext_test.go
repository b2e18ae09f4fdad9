package llmstream_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// sentBody streams r through a chat client built with opts and returns the
// request body the server saw, decoded.
func sentBody(t *testing.T, r llmstream.Request, opts ...llmstream.ClientOption) map[string]any {
	t.Helper()
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "ok"}))
	c := llmstream.NewClient(append(opts, llmstream.WithBaseURL(srv.URL))...)
	if _, err := c.Stream(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func TestRequestDefaults(t *testing.T) {
	defaults := llmstream.WithRequestDefaults(llmstream.Request{
		Model: "default-model", Temperature: ptr(0.2), MaxTokens: ptr(100), Stop: []string{"END"},
		ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceRequired}, ReasoningEffort: "low",
		Extra: map[string]any{"user": "u1", "service_tier": "flex"},
	})
	body := sentBody(t, llmstream.Request{
		Temperature: ptr(0.9), Extra: map[string]any{"user": "u2"},
		Messages: []llmstream.Message{{Role: "user", Content: "hi"}},
	}, defaults, llmstream.WithModel("client-model"))
	want := map[string]any{
		"model": "default-model", "temperature": 0.9, "max_tokens": 100.0, "stop": []any{"END"},
		"tool_choice": "required", "reasoning_effort": "low", "user": "u2", "service_tier": "flex",
		"stream": true, "stream_options": map[string]any{"include_usage": true},
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestToolChoiceChat(t *testing.T) {
	for _, tc := range []struct {
		choice llmstream.ToolChoice
		want   any
	}{
		{llmstream.ToolChoice{}, nil},
		{llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto}, "auto"},
		{llmstream.ToolChoice{Mode: llmstream.ToolChoiceNone}, "none"},
		{llmstream.ToolChoice{Mode: llmstream.ToolChoiceRequired}, "required"},
		{llmstream.ToolChoice{Mode: llmstream.ToolChoiceFunction, Name: "f"}, map[string]any{"type": "function", "function": map[string]any{"name": "f"}}},
	} {
		body := sentBody(t, llmstream.Request{ToolChoice: tc.choice})
		if diff := cmp.Diff(tc.want, body["tool_choice"]); diff != "" {
			t.Errorf("%v: tool_choice (-want +got):\n%s", tc.choice.Mode, diff)
		}
	}
}

func TestInvalidRequestSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    *llmstream.Client
		r    llmstream.Request
	}{
		{"a function choice without a name", llmstream.NewClient(), llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceFunction}}},
		{"a name with another mode", llmstream.NewClient(), llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto, Name: "f"}}},
		{"an unknown mode", llmstream.NewClient(), llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: 99}}},
		{"defaults with messages", llmstream.NewClient(llmstream.WithRequestDefaults(llmstream.Request{Messages: []llmstream.Message{{Role: "user"}}})), llmstream.Request{}},
		{"defaults with a callback", llmstream.NewClient(llmstream.WithRequestDefaults(llmstream.Request{OnDelta: func(llmstream.Delta) error { return nil }})), llmstream.Request{}},
	} {
		if _, err := tc.c.Stream(t.Context(), tc.r); !errors.Is(err, llmstream.ErrInvalidRequest) {
			t.Errorf("%s: err = %v, want ErrInvalidRequest", tc.name, err)
		}
	}
}

// TestRequestOnDelta: a request's own callback is used instead of the
// client's, and a request's settings travel with it.
func TestRequestOnDelta(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "one two"}))
	var client, own []string
	c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithOnDelta(func(d llmstream.Delta) error { client = append(client, d.Text); return nil }))
	_, err := c.Stream(t.Context(), llmstream.Request{Temperature: ptr(0.5), OnDelta: func(d llmstream.Delta) error { own = append(own, d.Text); return nil }})
	if err != nil || len(client) != 0 || len(own) != 2 {
		t.Fatalf("err %v; client saw %q, the request's callback %q", err, client, own)
	}
	var body map[string]any
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if body["temperature"] != 0.5 {
		t.Errorf("temperature = %v", body["temperature"])
	}
}
