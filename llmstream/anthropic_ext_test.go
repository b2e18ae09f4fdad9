package llmstream_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

// anthropicServer records each request and answers with the recorded
// stream in testdata/providers/<stream>.sse.
type anthropicServer struct {
	*httptest.Server
	paths   []string
	headers []http.Header
	bodies  []map[string]any
}

func newAnthropicServer(t *testing.T, stream string) *anthropicServer {
	t.Helper()
	data, err := os.ReadFile("testdata/providers/" + stream + ".sse")
	if err != nil {
		t.Fatal(err)
	}
	s := &anthropicServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		s.paths, s.headers, s.bodies = append(s.paths, r.URL.Path), append(s.headers, r.Header.Clone()), append(s.bodies, m)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(data)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestAnthropicRequest(t *testing.T) {
	srv := newAnthropicServer(t, "anthropic_text")
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL),
		llmstream.WithAPIKey("sk-ant-test-key-123"), llmstream.WithModel("claude-sonnet-4-5"))
	msgs := []llmstream.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Read go.mod and main.go."},
		{Role: "assistant", Content: "Reading.", ToolCalls: []llmstream.ToolCall{
			{ID: "toolu_1", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod"}`}},
			{ID: "toolu_2", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":`}},
		}},
		{Role: "tool", ToolCallID: "toolu_1", Content: "module x"},
		{Role: "tool", ToolCallID: "toolu_2", Content: "error: bad arguments", IsError: true},
		{Role: "user", Content: "Thanks."},
		{Role: "system", Content: "Answer in English."},
	}
	tools := []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "read_file", Description: "reads a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}, {Function: llmstream.ToolFunction{Name: "now"}}}
	off := false
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: msgs, Tools: tools, ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto},
		ParallelToolCalls: &off, Temperature: ptr(0.5), Stop: []string{"###"}, ReasoningEffort: "medium"})
	if err != nil || m.Content == "" {
		t.Fatalf("Stream: %v", err)
	}
	if srv.paths[0] != "/v1/messages" {
		t.Errorf("path %q, want /v1/messages", srv.paths[0])
	}
	h := srv.headers[0]
	if h.Get("X-Api-Key") != "sk-ant-test-key-123" || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Authorization") != "" || h.Get("Accept") != "text/event-stream" {
		t.Errorf("headers %v", h)
	}
	want := map[string]any{
		"model": "claude-sonnet-4-5", "max_tokens": 16384.0, "stream": true, "temperature": 0.5, "stop_sequences": []any{"###"},
		"system":      "Be brief.\n\nAnswer in English.",
		"thinking":    map[string]any{"type": "enabled", "budget_tokens": 8192.0},
		"tool_choice": map[string]any{"type": "auto", "disable_parallel_tool_use": true},
		"tools": []any{
			map[string]any{"name": "read_file", "description": "reads a file", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
			map[string]any{"name": "now", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}}},
		},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Read go.mod and main.go."}}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Reading."},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": map[string]any{"path": "go.mod"}},
				map[string]any{"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": map[string]any{}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "module x"},
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "content": "error: bad arguments", "is_error": true},
				map[string]any{"type": "text", "text": "Thanks."},
			}},
		},
	}
	if diff := cmp.Diff(want, srv.bodies[0]); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestAnthropicSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    llmstream.Request
		want map[string]any // members checked
	}{
		{"a budget above the default max_tokens raises it", llmstream.Request{ThinkingBudget: ptr(10000)},
			map[string]any{"max_tokens": 18192.0, "thinking": map[string]any{"type": "enabled", "budget_tokens": 10000.0}}},
		{"an explicit max_tokens is kept", llmstream.Request{ThinkingBudget: ptr(1024), MaxTokens: ptr(2000)},
			map[string]any{"max_tokens": 2000.0, "thinking": map[string]any{"type": "enabled", "budget_tokens": 1024.0}}},
		{"max_completion_tokens stands in", llmstream.Request{MaxCompletionTokens: ptr(300)}, map[string]any{"max_tokens": 300.0, "thinking": nil}},
		{"a zero budget switches thinking off", llmstream.Request{ThinkingBudget: ptr(0), ReasoningEffort: "high"},
			map[string]any{"thinking": map[string]any{"type": "disabled"}}},
		{"tool choice none", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceNone}}, map[string]any{"tool_choice": map[string]any{"type": "none"}}},
		{"tool choice function", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceFunction, Name: "f"}}, map[string]any{"tool_choice": map[string]any{"type": "tool", "name": "f"}}},
		{"parallel off alone", llmstream.Request{ParallelToolCalls: new(bool)}, map[string]any{"tool_choice": map[string]any{"type": "auto", "disable_parallel_tool_use": true}}},
		{"no settings", llmstream.Request{}, map[string]any{"tool_choice": nil, "thinking": nil, "max_tokens": 8192.0, "system": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAnthropicServer(t, "anthropic_text")
			c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL+"/v1/"))
			if _, err := c.Stream(t.Context(), tc.r); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if diff := cmp.Diff(v, srv.bodies[0][k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

// TestAnthropicContinuity: thinking blocks, their signatures and the
// redacted block survive a JSON round trip of the message and go back in
// their place; another dialect leaves them out.
func TestAnthropicContinuity(t *testing.T) {
	data, _ := os.ReadFile("testdata/providers/anthropic_thinking_tools.sse")
	m, err := llmstream.ReadMessage(strings.NewReader(string(data)), llmstream.WithDialect(llmstream.DialectAnthropic))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal([]llmstream.Message{{Role: "user", Content: "read both"}, m})
	if err != nil {
		t.Fatal(err)
	}
	var conv []llmstream.Message
	if err := json.Unmarshal(saved, &conv); err != nil {
		t.Fatal(err)
	}
	conv = append(conv, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "a"}, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[1].ID, Content: "b"})

	srv := newAnthropicServer(t, "anthropic_text")
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL))
	if _, err := c.Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}
	got := srv.bodies[0]["messages"].([]any)[1].(map[string]any)["content"]
	want := []any{
		map[string]any{"type": "thinking", "thinking": "The user wants both files. I'll read them in parallel.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDcm9zc1NpZ25hdHVyZSIw"},
		map[string]any{"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2kDkzDhfw"},
		map[string]any{"type": "text", "text": "Reading both files."},
		map[string]any{"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "read_file", "input": map[string]any{"path": "go.mod", "max_bytes": 4096.0}},
		map[string]any{"type": "tool_use", "id": "toolu_01B7rX", "name": "read_file", "input": map[string]any{"path": "README.md", "note": "ünïcødé \"quoted\" 😀"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assistant content (-want +got):\n%s", diff)
	}

	// The text edited: the blocks no longer match, so the raw ones go
	// first, then the text, then the calls.
	conv[1].Content = "Edited."
	srv2 := newAnthropicServer(t, "anthropic_text")
	llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv2.URL)).Stream(t.Context(), llmstream.Request{Messages: conv})
	content := srv2.bodies[0]["messages"].([]any)[1].(map[string]any)["content"].([]any)
	if len(content) != 5 || content[0].(map[string]any)["type"] != "thinking" || content[2].(map[string]any)["text"] != "Edited." {
		t.Errorf("fallback content %v", content)
	}

	// Chat leaves the state out, and sends no member it does not know.
	srv3 := llmstreamtestServer(t)
	if _, err := llmstream.NewClient(llmstream.WithBaseURL(srv3.URL)).Stream(t.Context(), llmstream.Request{Messages: conv[:2]}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv3.Requests()[0].Body); strings.Contains(body, "continuity") || strings.Contains(body, "signature") {
		t.Errorf("the chat request carries Anthropic state: %s", body)
	}
}

// TestAnthropicErrors: the error body in Anthropic's shape, each type to
// its kind.
func TestAnthropicErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		typ    string
		kind   llmstream.ErrorKind
		retry  bool
	}{
		{400, "invalid_request_error", llmstream.ErrorInvalidRequest, false},
		{401, "authentication_error", llmstream.ErrorAuthentication, false},
		{403, "permission_error", llmstream.ErrorPermission, false},
		{404, "not_found_error", llmstream.ErrorNotFound, false},
		{413, "request_too_large", llmstream.ErrorInvalidRequest, false},
		{429, "rate_limit_error", llmstream.ErrorRateLimited, true},
		{500, "api_error", llmstream.ErrorServer, true},
		{529, "overloaded_error", llmstream.ErrorOverloaded, true},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			io.WriteString(w, `{"type":"error","error":{"type":"`+tc.typ+`","message":"the message"},"request_id":"req_1"}`)
		}))
		_, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(&http.Client{})).Stream(t.Context(), llmstream.Request{})
		srv.Close()
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.StatusCode != tc.status || api.Type != tc.typ || api.Message != "the message" || api.Kind != tc.kind || api.Retryable() != tc.retry {
			t.Errorf("%d %s: %+v", tc.status, tc.typ, api)
		}
	}
	// A too-long prompt is a bad request that says so.
	api := &llmstream.APIError{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215000 tokens > 200000 maximum"}}`)
	}))
	defer srv.Close()
	_, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(&http.Client{})).Stream(t.Context(), llmstream.Request{})
	if !errors.As(err, &api) || api.Kind != llmstream.ErrorContextLength {
		t.Errorf("too long: %+v", api)
	}
}

func llmstreamtestServer(t *testing.T) *llmstreamtest.Server {
	return llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "ok"}))
}

// TestAnthropicShouldRetry: Anthropic's "x-should-retry" says whether the
// same request may go again; Retryable follows it where the status alone
// would say otherwise, as the transport's own retries do, so that a
// caller's retry loop does not resend what the server said not to.
func TestAnthropicShouldRetry(t *testing.T) {
	for _, tc := range []struct {
		status int
		header string
		want   bool
	}{
		{529, "false", false}, {529, "", true}, {500, "false", false}, {409, "true", true}, {400, "true", true}, {400, "", false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.header != "" {
				w.Header().Set("X-Should-Retry", tc.header)
			}
			w.WriteHeader(tc.status)
			typ := "invalid_request_error"
			if tc.status >= 500 {
				typ = "overloaded_error"
			}
			io.WriteString(w, `{"type":"error","error":{"type":"`+typ+`","message":"m"}}`)
		}))
		_, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(&http.Client{})).Stream(t.Context(), llmstream.Request{})
		srv.Close()
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.Retryable() != tc.want {
			t.Errorf("%d with x-should-retry %q: Retryable %v, want %v (%v)", tc.status, tc.header, api != nil && api.Retryable(), tc.want, err)
		}
	}
}
