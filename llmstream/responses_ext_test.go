package llmstream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/sse"
	"github.com/google/go-cmp/cmp"
)

var responses = llmstream.WithDialect(llmstream.DialectResponses)

func responsesClient(url string, o ...llmstream.ClientOption) *llmstream.Client {
	return llmstream.NewClient(append([]llmstream.ClientOption{responses, llmstream.WithBaseURL(url), llmstream.WithHTTPClient(&http.Client{})}, o...)...)
}

func TestResponsesRequest(t *testing.T) {
	srv := newAnthropicServer(t, "responses_text")
	c := responsesClient(srv.URL, llmstream.WithAPIKey("sk-proj-test-key-123"), llmstream.WithModel("gpt-5-mini"))
	msgs := []llmstream.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Read go.mod and main.go."},
		{Role: "assistant", Content: "Reading.", ToolCalls: []llmstream.ToolCall{
			{ID: "call_1", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod"}`}},
			{ID: "call_2", Function: llmstream.FunctionCall{Name: "now"}},
		}},
		{Role: "tool", ToolCallID: "call_1", Content: "module x"},
		{Role: "tool", ToolCallID: "call_2", Content: "error: no clock", IsError: true},
		{Role: "user", Content: ""},
		{Role: "developer", Content: "Answer in English."},
		{Role: "user", Content: "Thanks."},
	}
	strict := true
	tools := []llmstream.Tool{
		{Function: llmstream.ToolFunction{Name: "read_file", Description: "reads a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`), Strict: &strict}},
		{Function: llmstream.ToolFunction{Name: "now"}},
	}
	off := false
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: msgs, Tools: tools, ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceRequired},
		ParallelToolCalls: &off, Temperature: ptr(0.5), TopP: ptr(0.9), MaxTokens: ptr(1000), Stop: []string{"###"}, Seed: ptr(int64(7)),
		ReasoningEffort: "low", ThinkingBudget: ptr(4096)})
	if err != nil || m.Content == "" {
		t.Fatalf("Stream: %v", err)
	}
	if srv.paths[0] != "/v1/responses" {
		t.Errorf("path %q, want /v1/responses", srv.paths[0])
	}
	if h := srv.headers[0]; h.Get("Authorization") != "Bearer sk-proj-test-key-123" || h.Get("Accept") != "text/event-stream" || h.Get("X-Api-Key") != "" {
		t.Errorf("headers %v", h)
	}
	want := map[string]any{
		"model": "gpt-5-mini", "stream": true, "store": false, "include": []any{"reasoning.encrypted_content"},
		"instructions": "Be brief.\n\nAnswer in English.",
		"temperature":  0.5, "top_p": 0.9, "max_output_tokens": 1000.0, "parallel_tool_calls": false, "tool_choice": "required",
		"reasoning": map[string]any{"effort": "low", "summary": "auto"},
		"tools": []any{
			map[string]any{"type": "function", "name": "read_file", "description": "reads a file", "strict": true,
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}, "additionalProperties": false}},
			map[string]any{"type": "function", "name": "now", "strict": false, "parameters": map[string]any{"type": "object", "properties": map[string]any{}}},
		},
		"input": []any{
			map[string]any{"type": "message", "role": "user", "content": "Read go.mod and main.go."},
			map[string]any{"type": "message", "role": "assistant", "content": "Reading."},
			map[string]any{"type": "function_call", "call_id": "call_1", "name": "read_file", "arguments": `{"path":"go.mod"}`},
			map[string]any{"type": "function_call", "call_id": "call_2", "name": "now", "arguments": "{}"},
			map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "module x"},
			map[string]any{"type": "function_call_output", "call_id": "call_2", "output": "error: no clock"},
			map[string]any{"type": "message", "role": "user", "content": "Thanks."},
		},
	}
	if diff := cmp.Diff(want, srv.bodies[0]); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

// TestResponsesSettings: each setting in its Responses member, and the
// three members Extra may set in place of the dialect's own.
func TestResponsesSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    llmstream.Request
		want map[string]any // members checked; nil means absent
	}{
		{"no settings", llmstream.Request{}, map[string]any{"store": false, "include": []any{"reasoning.encrypted_content"},
			"reasoning": nil, "tool_choice": nil, "max_output_tokens": nil, "instructions": nil, "tools": nil, "input": []any{}, "stop": nil, "seed": nil}},
		{"max_completion_tokens stands in", llmstream.Request{MaxCompletionTokens: ptr(300)}, map[string]any{"max_output_tokens": 300.0}},
		{"max_tokens wins", llmstream.Request{MaxTokens: ptr(10), MaxCompletionTokens: ptr(300)}, map[string]any{"max_output_tokens": 10.0}},
		{"tool choice auto", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto}}, map[string]any{"tool_choice": "auto"}},
		{"tool choice none", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceNone}}, map[string]any{"tool_choice": "none"}},
		{"tool choice function", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceFunction, Name: "f"}},
			map[string]any{"tool_choice": map[string]any{"type": "function", "name": "f"}}},
		{"parallel on", llmstream.Request{ParallelToolCalls: ptr(true)}, map[string]any{"parallel_tool_calls": true}},
		{"a thinking budget alone sends no reasoning", llmstream.Request{ThinkingBudget: ptr(2048)}, map[string]any{"reasoning": nil}},
		{"Extra store true keeps the default include", llmstream.Request{Extra: map[string]any{"store": true}},
			map[string]any{"store": true, "include": []any{"reasoning.encrypted_content"}}},
		{"a model that reasons asks for its encrypted reasoning", llmstream.Request{Model: "o4-mini"},
			map[string]any{"include": []any{"reasoning.encrypted_content"}}},
		{"gpt-5 asks for it", llmstream.Request{Model: "gpt-5.1-codex"}, map[string]any{"include": []any{"reasoning.encrypted_content"}}},
		{"gpt-4o refuses it", llmstream.Request{Model: "gpt-4o-mini"}, map[string]any{"include": nil, "store": false}},
		{"gpt-4.1 behind a provider prefix refuses it", llmstream.Request{Model: "openai/GPT-4.1"}, map[string]any{"include": nil}},
		{"a chat-latest alias refuses it", llmstream.Request{Model: "gpt-5-chat-latest"}, map[string]any{"include": nil}},
		{"gpt-3.5 refuses it", llmstream.Request{Model: "gpt-3.5-turbo"}, map[string]any{"include": nil}},
		{"chatgpt-4o refuses it", llmstream.Request{Model: "chatgpt-4o-latest"}, map[string]any{"include": nil}},
		{"a reasoning effort asks for it whatever the name", llmstream.Request{Model: "gpt-4o", ReasoningEffort: "low"},
			map[string]any{"include": []any{"reasoning.encrypted_content"}}},
		{"Extra include replaces it", llmstream.Request{Extra: map[string]any{"include": []string{}}}, map[string]any{"store": false, "include": []any{}}},
		{"Extra reasoning replaces the effort's", llmstream.Request{ReasoningEffort: "high", Extra: map[string]any{"reasoning": map[string]string{"effort": "high"}}},
			map[string]any{"reasoning": map[string]any{"effort": "high"}}},
		{"Extra adds what the dialect does not write", llmstream.Request{Extra: map[string]any{"text": map[string]string{"verbosity": "low"}, "truncation": "auto"}},
			map[string]any{"text": map[string]any{"verbosity": "low"}, "truncation": "auto"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAnthropicServer(t, "responses_text")
			if _, err := responsesClient(srv.URL+"/v1/").Stream(t.Context(), tc.r); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if diff := cmp.Diff(v, srv.bodies[0][k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
	// Extra still may not replace what the dialect writes from the Request.
	for _, member := range []string{"input", "model", "stream", "tools", "instructions"} {
		r := llmstream.Request{Model: "m", Messages: []llmstream.Message{{Role: "system", Content: "s"}}, Tools: []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "f"}}},
			Extra: map[string]any{member: "x"}}
		if _, err := responsesClient("http://127.0.0.1:1").Stream(t.Context(), r); !errors.Is(err, llmstream.ErrInvalidRequest) {
			t.Errorf("Extra %q: %v", member, err)
		}
	}
}

// TestResponsesContinuity: a reasoning item with its encrypted content
// survives a JSON round trip of the message and goes back in its place,
// with the ids of the items after it; an edited message falls back to the
// raw items, then the text, then the calls, with no ids; another dialect
// leaves it all out.
func TestResponsesContinuity(t *testing.T) {
	data, _ := os.ReadFile("testdata/providers/responses_reasoning_tools.sse")
	m, err := llmstream.ReadMessage(bytes.NewReader(data), responses)
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

	srv := newAnthropicServer(t, "responses_text")
	if _, err := responsesClient(srv.URL).Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}
	reasoning := map[string]any{"id": "rs_68c1f2b1d5e08190a0b1c2d3e4f5a6b7", "type": "reasoning", "encrypted_content": "gAAAAABowfKxZmFrZS1lbmNyeXB0ZWQtcmVhc29uaW5nLWJsb2ItZm9yLXRlc3Rz",
		"summary": []any{
			map[string]any{"type": "summary_text", "text": "**Planning the reads**\n\nThe user wants both files."},
			map[string]any{"type": "summary_text", "text": "**Reading**\n\nI'll read them in parallel."},
		}}
	want := []any{
		map[string]any{"type": "message", "role": "user", "content": "read both"},
		reasoning,
		map[string]any{"type": "message", "id": "msg_68c1f2b2e7f48190b8c9d0e1f2a3b4c5", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "Reading both files.", "annotations": []any{}}}},
		map[string]any{"type": "function_call", "id": "fc_68c1f2b3a9b08190c1d2e3f4a5b6c7d8", "call_id": "call_Xk2p9QwErTy", "name": "read_file", "arguments": `{"path":"go.mod","max_bytes":4096}`},
		map[string]any{"type": "function_call", "id": "fc_68c1f2b4b0c18190d2e3f4a5b6c7d8e9", "call_id": "call_Lm7Zq1VbNh", "name": "read_file", "arguments": `{"path":"README.md","note":"ünïcødé \"q\" 😀"}`},
		map[string]any{"type": "function_call_output", "call_id": "call_Xk2p9QwErTy", "output": "a"},
		map[string]any{"type": "function_call_output", "call_id": "call_Lm7Zq1VbNh", "output": "b"},
	}
	if diff := cmp.Diff(want, srv.bodies[0]["input"]); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}

	// The text edited: the blocks no longer match, so the raw items go
	// first, then the text, then the calls, none with an id.
	edited := append([]llmstream.Message(nil), conv...)
	edited[1].Content = "Edited."
	srv2 := newAnthropicServer(t, "responses_text")
	if _, err := responsesClient(srv2.URL).Stream(t.Context(), llmstream.Request{Messages: edited}); err != nil {
		t.Fatal(err)
	}
	want2 := append([]any{want[0], reasoning,
		map[string]any{"type": "message", "role": "assistant", "content": "Edited."},
		map[string]any{"type": "function_call", "call_id": "call_Xk2p9QwErTy", "name": "read_file", "arguments": `{"path":"go.mod","max_bytes":4096}`},
		map[string]any{"type": "function_call", "call_id": "call_Lm7Zq1VbNh", "name": "read_file", "arguments": `{"path":"README.md","note":"ünïcødé \"q\" 😀"}`},
	}, want[5:]...)
	if diff := cmp.Diff(want2, srv2.bodies[0]["input"]); diff != "" {
		t.Errorf("fallback input (-want +got):\n%s", diff)
	}

	// Chat leaves the state out, and sends no member it does not know.
	srv3 := llmstreamtestServer(t)
	if _, err := llmstream.NewClient(llmstream.WithBaseURL(srv3.URL)).Stream(t.Context(), llmstream.Request{Messages: conv[:2]}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv3.Requests()[0].Body); strings.Contains(body, "continuity") || strings.Contains(body, "encrypted") || strings.Contains(body, "rs_") {
		t.Errorf("the chat request carries Responses state: %s", body)
	}
}

// TestResponsesReasoningWithoutContent: a reasoning item with no encrypted
// content cannot go back to a server that stores nothing (it would be
// looked up by id and not found), nor can the ids tied to it; with
// "store": true it goes back as it is.
func TestResponsesReasoningWithoutContent(t *testing.T) {
	data, _ := os.ReadFile("testdata/providers/responses_reasoning_text.sse")
	m, err := llmstream.ReadMessage(bytes.NewReader(data), responses)
	if err != nil || m.Continuity == nil {
		t.Fatalf("%v, continuity %v", err, m.Continuity)
	}
	conv := []llmstream.Message{{Role: "user", Content: "hi"}, m, {Role: "user", Content: "again"}}
	for _, tc := range []struct {
		extra map[string]any
		want  []any
	}{
		{nil, []any{
			map[string]any{"type": "message", "role": "assistant", "content": "Hi there!"},
		}},
		{map[string]any{"store": false}, []any{
			map[string]any{"type": "message", "role": "assistant", "content": "Hi there!"},
		}},
		{map[string]any{"store": true}, []any{
			map[string]any{"id": "rs_oss", "type": "reasoning", "summary": []any{}, "content": []any{map[string]any{"type": "reasoning_text", "text": "User greets. Reply briefly."}},
				"encrypted_content": nil, "status": "completed"},
			map[string]any{"type": "message", "id": "msg_oss", "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": "Hi there!", "annotations": []any{}}}},
		}},
	} {
		srv := newAnthropicServer(t, "responses_text")
		if _, err := responsesClient(srv.URL).Stream(t.Context(), llmstream.Request{Messages: conv, Extra: tc.extra}); err != nil {
			t.Fatal(err)
		}
		input := srv.bodies[0]["input"].([]any)
		if diff := cmp.Diff(tc.want, input[1:len(input)-1]); diff != "" {
			t.Errorf("Extra %v: the assistant's items (-want +got):\n%s", tc.extra, diff)
		}
	}
}

// TestResponsesErrors: OpenAI's error bodies, each to its kind.
func TestResponsesErrors(t *testing.T) {
	for _, tc := range []struct {
		status    int
		typ, code string
		kind      llmstream.ErrorKind
		retry     bool
	}{
		{400, "invalid_request_error", "null", llmstream.ErrorInvalidRequest, false},
		{400, "invalid_request_error", `"context_length_exceeded"`, llmstream.ErrorContextLength, false},
		{401, "invalid_request_error", `"invalid_api_key"`, llmstream.ErrorAuthentication, false},
		{403, "invalid_request_error", `"unsupported_country_region_territory"`, llmstream.ErrorInvalidRequest, false},
		{404, "invalid_request_error", `"model_not_found"`, llmstream.ErrorNotFound, false},
		{429, "insufficient_quota", `"insufficient_quota"`, llmstream.ErrorPermission, false},
		{429, "requests", `"rate_limit_exceeded"`, llmstream.ErrorRateLimited, true},
		{500, "server_error", "null", llmstream.ErrorServer, true},
		{503, "server_error", `"server_is_overloaded"`, llmstream.ErrorOverloaded, true},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tc.status)
			io.WriteString(w, `{"error":{"message":"the message","type":"`+tc.typ+`","param":null,"code":`+tc.code+`}}`)
		}))
		_, err := responsesClient(srv.URL).Stream(t.Context(), llmstream.Request{})
		srv.Close()
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.StatusCode != tc.status || api.Type != tc.typ || api.Message != "the message" || api.Kind != tc.kind || api.Retryable() != tc.retry {
			t.Errorf("%d %s %s: %+v", tc.status, tc.typ, tc.code, api)
		}
	}
}

// TestResponsesStreamErrors: the in-stream failures, each to its kind,
// with the partial text kept for display and no call handed out.
func TestResponsesStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		typ, code    string
		kind         llmstream.ErrorKind
	}{
		{"flat error event", ev("error", `{"type":"error","code":"server_error","message":"m","param":null,"sequence_number":3}`), "", "server_error", llmstream.ErrorServer},
		{"flat, null code", ev("error", `{"type":"error","code":null,"message":"m","param":null,"sequence_number":3}`), "", "", llmstream.ErrorUnknown},
		{"nested error event", ev("error", `{"type":"error","error":{"type":"insufficient_quota","code":"credit_balance_exhausted","message":"m","param":null},"sequence_number":2}`), "insufficient_quota", "credit_balance_exhausted", llmstream.ErrorPermission},
		{"error data with no event name", "data: " + `{"type":"error","code":"rate_limit_exceeded","message":"m","param":null}` + "\n\n", "", "rate_limit_exceeded", llmstream.ErrorRateLimited},
		{"response.failed", ev("response.failed", `{"type":"response.failed","response":{"status":"failed","error":{"code":"invalid_prompt","message":"m"}}}`), "", "invalid_prompt", llmstream.ErrorInvalidRequest},
		{"response.failed, null code", ev("response.failed", `{"type":"response.failed","response":{"status":"failed","error":{"code":null,"message":"m"}}}`), "", "", llmstream.ErrorUnknown},
		{"a completed response whose status failed", ev("response.completed", `{"type":"response.completed","response":{"status":"failed","error":{"code":"vector_store_timeout","message":"m"}}}`), "", "vector_store_timeout", llmstream.ErrorServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := textStream("Partial") + callStart(1, "call_1", "f") + ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{}"}`) + tc.stream
			m, err := llmstream.ReadMessage(strings.NewReader(stream), responses)
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Message != "m" || api.Type != tc.typ || api.Code != tc.code || api.Kind != tc.kind || api.StatusCode != 0 {
				t.Fatalf("err = %v (%+v)", err, api)
			}
			if m.Content != "Partial" || len(m.ToolCalls) != 0 {
				t.Errorf("message %+v", m)
			}
		})
	}
	// response.failed with no error at all still fails, as the provider's.
	_, err := llmstream.ReadMessage(strings.NewReader(ev("response.failed", `{"type":"response.failed","response":{"status":"failed","error":null}}`)), responses)
	var api *llmstream.APIError
	if !errors.As(err, &api) || api.Kind != llmstream.ErrorServer {
		t.Errorf("failed without an error: %v", err)
	}
}

// ev is one named SSE event.
func ev(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

// textStream is a message item at output index 0 with text, not closed.
func textStream(text string) string {
	q, _ := json.Marshal(text)
	return ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}`) +
		ev("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":`+string(q)+`}`)
}

// callStart adds a function_call item at index n.
func callStart(n int, callID, name string) string {
	return ev("response.output_item.added", `{"type":"response.output_item.added","output_index":`+itoa(n)+`,"item":{"id":"fc_`+itoa(n)+`","type":"function_call","call_id":"`+callID+`","name":"`+name+`","arguments":""}}`)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const completed = "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"

// TestResponsesRules: the decode rules the goldens do not show one by one.
func TestResponsesRules(t *testing.T) {
	delta := func(n, part int, text string) string {
		q, _ := json.Marshal(text)
		return ev("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"rotated_`+itoa(part)+`","output_index":`+itoa(n)+`,"content_index":`+itoa(part)+`,"delta":`+string(q)+`}`)
	}
	for _, tc := range []struct {
		name      string
		stream    string
		content   string
		reasoning string
		calls     string // id:name:arguments, joined by ";"
		err       error
	}{
		// vLLM numbered every delta as a part of its own, and its *.done
		// events as yet other parts: a streamed item's done texts, whatever
		// part they name, add nothing — except that a done text of the
		// part the deltas last filled, with more text than they carried,
		// completes it (the deltas were a prefix: only the rest is added).
		{"a streamed item takes no done text but the rest of its own part", textStream("ab") +
			ev("response.output_text.done", `{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"abc"}`) +
			ev("response.output_text.done", `{"type":"response.output_text.done","output_index":0,"content_index":1,"text":"+second"}`) +
			ev("response.content_part.done", `{"type":"response.content_part.done","output_index":0,"content_index":1,"part":{"type":"output_text","text":"+again"}}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"x"},{"type":"output_text","text":"y"},{"type":"output_text","text":"+third"}]}}`) +
			completed, "abc", "", "", nil},
		{"a done text fills only a part no other done text filled, of an item no delta gave text",
			ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message"}}`) +
				ev("response.output_text.done", `{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"one"}`) +
				ev("response.content_part.done", `{"type":"response.content_part.done","output_index":0,"content_index":0,"part":{"type":"output_text","text":"one"}}`) +
				ev("response.output_text.done", `{"type":"response.output_text.done","output_index":0,"content_index":1,"text":"+two"}`) +
				ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","content":[{"type":"output_text","text":"one"},{"type":"output_text","text":"+two"},{"type":"output_text","text":"+three"}]}}`) +
				completed, "one+two+three", "", "", nil},
		{"a streamed refusal does not stop done text", textStream("a") +
			ev("response.refusal.done", `{"type":"response.refusal.done","output_index":0,"content_index":1,"refusal":"no"}`) +
			ev("response.output_text.done", `{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"a"}`) + completed, "a", "", "", nil},
		{"an empty delta fills nothing", textStream("") + ev("response.output_text.done", `{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"full"}`) + completed,
			"full", "", "", nil},
		{"many parts", func() string {
			var b strings.Builder
			for i := range 20 {
				b.WriteString(delta(0, i%12, string(rune('a'+i))))
			}
			return b.String() + ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","content":[`+
				strings.Repeat(`{"type":"output_text","text":"no"},`, 12)+`{"type":"output_text","text":"!"}]}}`) + completed
		}(), "abcdefghijklmnopqrst", "", "", nil},
		{"many parts of a done item", ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","content":[`+
			strings.Repeat(`{"type":"output_text","text":"a"},`, 12)+`{"type":"output_text","text":"!"}]}}`) + completed, strings.Repeat("a", 12) + "!", "", "", nil},
		{"a delta for an item never added opens it", delta(3, 0, "lenient") + completed, "lenient", "", "", nil},
		{"text deltas name their item by output_index, not item_id", delta(0, 0, "a") + delta(0, 0, "b") + delta(1, 0, "c") + completed, "abc", "", "", nil},
		{"reasoning parts and items read as paragraphs",
			ev("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"one"}`) +
				ev("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":" more"}`) +
				ev("response.reasoning_summary_text.done", `{"type":"response.reasoning_summary_text.done","output_index":0,"summary_index":0,"text":"one more"}`) +
				ev("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"two"}`) +
				ev("response.reasoning_summary_part.added", `{"type":"response.reasoning_summary_part.added","output_index":0,"summary_index":2,"part":{"type":"summary_text","text":""}}`) +
				ev("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":2,"delta":"2b"}`) +
				ev("response.reasoning_text.delta", `{"type":"response.reasoning_text.delta","output_index":2,"content_index":0,"delta":"three"}`) + completed,
			"", "one more\n\ntwo\n\n2b\n\nthree", "", nil},
		// vLLM numbered every reasoning delta as a part of its own.
		{"a new part index with no part event between is no paragraph",
			ev("response.reasoning_text.delta", `{"type":"response.reasoning_text.delta","output_index":0,"content_index":1,"delta":"one"}`) +
				ev("response.reasoning_text.delta", `{"type":"response.reasoning_text.delta","output_index":0,"content_index":2,"delta":" two"}`) +
				ev("response.reasoning_text.done", `{"type":"response.reasoning_text.done","output_index":0,"content_index":3,"text":"one two"}`) + completed,
			"", "one two", "", nil},
		{"the parts of a done reasoning item read as paragraphs",
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}]}}`) + completed,
			"", "one\n\ntwo", "", nil},
		{"call_id is the id, the done arguments win, a changed call_id does not split the call", callStart(0, "call_a", "f") +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\":1}"}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"call_other","name":"g","arguments":"{\"a\":2}"}}`) + completed,
			"", "", "call_a:f:{\"a\":2}", nil},
		{"the name and call id may come only at the end", ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call"}}`) +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"[1]"}`) +
			ev("response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","output_index":0,"arguments":"","name":"late"}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"call_late"}}`) + completed,
			"", "", "call_late:late:[1]", nil},
		{"arguments that came with output_item.added alone", ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f","arguments":"{\"x\":true}"}}`) + completed,
			"", "", "c:f:{\"x\":true}", nil},
		{"a terminal output closes what is open and adds what never streamed", callStart(0, "c0", "f") +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{\"a\""}`) +
			ev("response.completed", `{"type":"response.completed","response":{"status":"completed","output":[{"type":"function_call","call_id":"c0","name":"f","arguments":"{\"a\":1}"},{"type":"message","content":[{"type":"output_text","text":"late text"}]},{"type":"function_call","call_id":"c2","name":"g","arguments":"{}"}]}}`),
			"late text", "", "c0:f:{\"a\":1};c2:g:{}", nil},
		{"a mismatched terminal item leaves the stream's", textStream("mine") +
			ev("response.completed", `{"type":"response.completed","response":{"status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"no"}]}]}}`),
			"mine", "", "", nil},
		{"[DONE] before a terminal event is no end", textStream("x") + "data: [DONE]\n\n", "x", "", "", llmstream.ErrTruncated},
		{"an event with no type goes by its SSE name", "event: response.output_text.delta\ndata: {\"output_index\":0,\"delta\":\"named\"}\n\n" + completed, "named", "", "", nil},
		{"an escaped type", ev("x", `{"type":"response.output_text.d\u0065lta","output_index":0,"delta":"esc"}`) + completed, "esc", "", "", nil},
		{"unknown events and members are ignored", textStream("a") + ev("response.future_thing", `{"type":"response.future_thing","output_index":0,"delta":"no"}`) +
			ev("response.output_text.annotation.added", `{"type":"response.output_text.annotation.added","output_index":0,"annotation":{"type":"url_citation","url":"u"}}`) +
			ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":0,"delta":"b","obfuscation":"zz","logprobs":[{"token":"b","logprob":-0.1}],"new_member":{"deep":[1,2]}}`) + completed,
			"ab", "", "", nil},
		{"events after the terminal one are not read", textStream("a") + completed + "data: not json\n\n", "a", "", "", nil},

		{"arguments for an item never added", ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"arguments for an item never added, then other items", ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":3,"delta":"{}"}`) +
			callStart(0, "c", "f") + completed, "", "", "", llmstream.ErrOutOfOrder},
		// Ollama adds its first call at the output_index of the message
		// before it, which it leaves open; older vLLM its message at the
		// reasoning's.
		{"an item added at a used output_index ends the item there", textStream("a") + callStart(0, "c", "f") +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call"}}`) +
			ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c2","name":"g"}}`) +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"[1]"}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c2","name":"g","arguments":"[1]"}}`) +
			callStart(1, "c3", "h") + completed, "a", "", "c:f:{};c2:g:[1];c3:h:{}", nil},
		// open-responses-server numbers its message 0 and its calls from 0,
		// and may close the message last.
		{"a late output_item.done for the item that gave up its index", textStream("a") + callStart(0, "c", "f") +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c","arguments":"{}"}}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message","content":[{"type":"output_text","text":"a"}]}}`) + completed,
			"a", "", "c:f:{}", nil},
		{"an item added twice", textStream("a") + ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message"}}`) + delta(0, 0, "b") + completed, "ab", "", "", nil},
		{"an item added over an open call", callStart(0, "c", "f") + ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message"}}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		// A server's argument deltas may overtake their output_item.added.
		{"arguments before their item", ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":1,"delta":"{\"a\""}`) +
			callStart(0, "c0", "f") + callStart(1, "c1", "g") +
			ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":1,"delta":":1}"}`) + completed,
			"", "", "c0:f:{};c1:g:{\"a\":1}", nil},
		{"arguments named only by their output_item.done", ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"[2]"}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c","name":"f"}}`) + completed,
			"", "", "c:f:[2]", nil},
		{"text before its item", delta(0, 0, "a") + ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message"}}`) + delta(0, 0, "b") + completed, "ab", "", "", nil},
		{"arguments before an item of another type", ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"}`) +
			textStream("a") + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"an item done twice", textStream("a") + ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`) +
			ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`) + completed, "a", "", "", llmstream.ErrOutOfOrder},
		{"a delta after the item's done", textStream("a") + ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`) + delta(0, 0, "b") + completed, "a", "", "", llmstream.ErrOutOfOrder},
		{"text for a call", callStart(0, "c", "f") + delta(0, 0, "b") + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"arguments for a message", textStream("a") + ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{}"}`) + completed, "a", "", "", llmstream.ErrOutOfOrder},
		{"an item done as another type", textStream("a") + ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call"}}`) + completed, "a", "", "", llmstream.ErrOutOfOrder},
		// llama.cpp sends no output_index: a delta goes to the newest open
		// item of its kind, a done event to the one with its call_id or id,
		// else the oldest, a new item to the next index.
		{"no output_index", ev("response.output_text.delta", `{"type":"response.output_text.delta","delta":"a"}`) +
			ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":null,"delta":"b"}`) + completed, "ab", "", "", nil},
		{"no output_index, calls closed out of order by call_id",
			ev("response.output_item.added", `{"type":"response.output_item.added","item":{"type":"function_call","call_id":"c1","name":"f"}}`) +
				ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","delta":"[1"}`) +
				ev("response.output_item.added", `{"type":"response.output_item.added","item":{"type":"function_call","call_id":"c2","name":"g"}}`) +
				ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","delta":"[2"}`) +
				ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"function_call","call_id":"c2","name":"g","arguments":"[2]"}}`) +
				ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"function_call","call_id":"c1","name":"f","arguments":"[1]"}}`) + completed,
			"", "", "c1:f:[1];c2:g:[2]", nil},
		{"no output_index, items closed oldest first",
			ev("response.output_item.added", `{"type":"response.output_item.added","item":{"type":"function_call","name":"f"}}`) +
				ev("response.output_item.added", `{"type":"response.output_item.added","item":{"type":"function_call","name":"g"}}`) +
				ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"function_call","arguments":"[1]"}}`) +
				ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"function_call","arguments":"[2]"}}`) +
				ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"function_call","call_id":"c3","name":"h","arguments":"[3]"}}`) + completed,
			"", "", "call_0:f:[1];call_1:g:[2];c3:h:[3]", nil},
		{"no output_index after indexed items", textStream("a") + ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":{"type":"message"}}`) +
			ev("response.output_text.delta", `{"type":"response.output_text.delta","delta":"b"}`) + completed, "ab", "", "", nil},
		{"a negative output_index", ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":-1,"delta":"a"}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"a fractional content_index", ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":0,"content_index":0.5,"delta":"a"}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"an output_index past the limit", ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":1073741824,"delta":"a"}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"the largest output_index", ev("response.output_text.delta", `{"type":"response.output_text.delta","output_index":1073741823,"delta":"a"}`) + completed, "a", "", "", nil},
		{"arguments done twice", callStart(0, "c", "f") +
			ev("response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","output_index":0,"arguments":"{}"}`) +
			ev("response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","output_index":0,"arguments":"[]"}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"added without an item", ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":null}`) + completed, "", "", "", llmstream.ErrOutOfOrder},
		{"a bad event changes nothing", textStream("a") + "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"b\",}\n\n", "a", "", "", llmstream.ErrBadEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llmstream.ReadMessage(strings.NewReader(tc.stream), responses)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			var calls []string
			for _, c := range m.ToolCalls {
				calls = append(calls, c.ID+":"+c.Function.Name+":"+c.Function.Arguments)
			}
			if m.Content != tc.content || m.Reasoning != tc.reasoning || strings.Join(calls, ";") != tc.calls {
				t.Errorf("content %q, reasoning %q, calls %q", m.Content, m.Reasoning, strings.Join(calls, ";"))
			}
		})
	}
}

// TestResponsesFinish: the terminal event's status and reason, to the raw
// finish and the stop reason; usage with its details.
func TestResponsesFinish(t *testing.T) {
	for _, tc := range []struct {
		name, terminal string
		finish         string
		stop           llmstream.StopReason
		usage          *llmstream.Usage
	}{
		{"completed", `{"type":"response.completed","response":{"status":"completed"}}`, "completed", llmstream.StopEndTurn, nil},
		{"incomplete by length", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`, "max_output_tokens", llmstream.StopLength, nil},
		{"incomplete by filter", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`, "content_filter", llmstream.StopContentFilter, nil},
		{"incomplete, no reason", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":null}}`, "incomplete", llmstream.StopOther, nil},
		{"a completed event that says incomplete", `{"type":"response.completed","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`, "max_output_tokens", llmstream.StopLength, nil},
		{"an unknown reason", `{"type":"response.incomplete","response":{"incomplete_details":{"reason":"budget"}}}`, "budget", llmstream.StopOther, nil},
		{"usage with details", `{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":60},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":30},"total_tokens":140}}}`,
			"completed", llmstream.StopEndTurn, &llmstream.Usage{PromptTokens: 100, CompletionTokens: 40, TotalTokens: 140, CachedTokens: 60, ReasoningTokens: 30}},
		{"usage with no total is the sum", `{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":3,"output_tokens":4,"input_tokens_details":null}}}`,
			"completed", llmstream.StopEndTurn, &llmstream.Usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}},
		{"a usage of the wrong shape is ignored", `{"type":"response.completed","response":{"status":"completed","usage":[1]}}`, "completed", llmstream.StopEndTurn, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var typ struct{ Type string }
			json.Unmarshal([]byte(tc.terminal), &typ)
			m, err := llmstream.ReadMessage(strings.NewReader(textStream("t")+ev(typ.Type, tc.terminal)), responses)
			if err != nil || m.FinishReason != tc.finish || m.StopReason != tc.stop || !cmp.Equal(m.Usage, tc.usage) {
				t.Errorf("err %v, finish %q, stop %v, usage %+v", err, m.FinishReason, m.StopReason, m.Usage)
			}
		})
	}
	// A length stop with complete calls keeps the length, and the calls.
	m, err := llmstream.ReadMessage(strings.NewReader(callStart(0, "c", "f")+ev("response.incomplete", `{"type":"response.incomplete","response":{"incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"function_call","arguments":"{}"}]}}`)), responses)
	if err != nil || m.StopReason != llmstream.StopLength || len(m.ToolCalls) != 1 {
		t.Errorf("incomplete with a call: %v, %v, %d calls", err, m.StopReason, len(m.ToolCalls))
	}
}

// TestResponsesEverySplitPoint splits each Responses stream at every
// offset into two reads: the result must not change.
func TestResponsesEverySplitPoint(t *testing.T) {
	files, _ := filepath.Glob("testdata/providers/responses_*.sse")
	if len(files) < 10 {
		t.Fatalf("only %d Responses streams", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := decodedJSON(t, bytes.NewReader(data))
			for at := 1; at < len(data); at++ {
				if got := decodedJSON(t, io.MultiReader(bytes.NewReader(data[:at]), bytes.NewReader(data[at:]))); got != want {
					t.Fatalf("split at %d:\n%s\nwhole:\n%s", at, got, want)
				}
			}
		})
	}
}

// decodedJSON is every field of the decoded message and the error, as
// text to compare.
func decodedJSON(t *testing.T, r io.Reader) string {
	t.Helper()
	m, err := llmstream.ReadMessage(r, responses)
	j, jerr := json.Marshal(struct {
		M                          llmstream.Message
		Reasoning, Refusal, Finish string
		Stop                       llmstream.StopReason
		Usage                      *llmstream.Usage
		Err                        string
	}{M: m, Reasoning: m.Reasoning, Refusal: m.Refusal, Finish: m.FinishReason, Stop: m.StopReason, Usage: m.Usage, Err: errText(err)})
	if jerr != nil {
		t.Fatal(jerr)
	}
	return string(j)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestResponsesBridgeByHand: events fed to a Bridge one by one (data not
// known to be valid UTF-8) give what ReadMessage gives, and the deltas
// spell the message.
func TestResponsesBridgeByHand(t *testing.T) {
	data, _ := os.ReadFile("testdata/providers/responses_reasoning_tools.sse")
	want, err := llmstream.ReadMessage(bytes.NewReader(data), responses)
	if err != nil {
		t.Fatal(err)
	}
	var text, reasoning strings.Builder
	calls := 0
	b := llmstream.NewBridge(responses, llmstream.WithOnDelta(func(d llmstream.Delta) error {
		switch d.Kind {
		case llmstream.DeltaText:
			text.WriteString(d.Text)
		case llmstream.DeltaReasoning:
			reasoning.WriteString(d.Text)
		case llmstream.DeltaToolCall:
			calls++
		}
		return nil
	}))
	rd := sse.NewReader(bytes.NewReader(data), sse.WithDoneSentinel(""))
	for {
		e, err := rd.Next()
		if err != nil {
			break
		}
		if err := b.Handle(sse.Event{Type: e.Type, Data: bytes.Clone(e.Data)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.Message()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })); diff != "" {
		t.Errorf("by hand (-ReadMessage +Bridge):\n%s", diff)
	}
	if text.String() != want.Content || reasoning.String() != want.Reasoning || calls == 0 {
		t.Errorf("deltas spell %q / %q with %d call deltas", text.String(), reasoning.String(), calls)
	}
}

// TestResponsesKeepsTheKeyOut: an error event that echoes the key shows it
// redacted.
func TestResponsesKeepsTheKeyOut(t *testing.T) {
	const key = "sk-proj-secret-4242"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ev("error", `{"type":"error","code":"invalid_api_key","message":"Incorrect API key provided: `+key+`.","param":null}`))
	}))
	defer srv.Close()
	_, err := responsesClient(srv.URL, llmstream.WithAPIKey(key)).Stream(t.Context(), llmstream.Request{})
	var api *llmstream.APIError
	if !errors.As(err, &api) || strings.Contains(err.Error(), key) || strings.Contains(api.Message, key) || api.Kind != llmstream.ErrorAuthentication {
		t.Errorf("err = %v", err)
	}
}

// TestResponsesTrailingReasoningStaysOut: a turn that stopped while
// reasoning (a length stop) has a reasoning item and nothing after it; the
// API refuses such an item ("... of type 'reasoning' was provided without
// its required following item"), so the next request leaves it out, and
// keeps one that something follows.
func TestResponsesTrailingReasoningStaysOut(t *testing.T) {
	reasoning := `{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"Thinking."}],"encrypted_content":"gAAAAB1"}`
	stream := ev("response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`) +
		ev("response.output_item.done", `{"type":"response.output_item.done","output_index":0,"item":`+reasoning+`}`) +
		ev("response.incomplete", `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}}`)
	cut, err := llmstream.ReadMessage(strings.NewReader(stream), responses)
	if err != nil || cut.StopReason != llmstream.StopLength || cut.Continuity == nil {
		t.Fatalf("%v, stop %v, continuity %v", err, cut.StopReason, cut.Continuity)
	}
	answered := cut
	answered.Content = "Done."
	answered.Continuity = &llmstream.Continuity{Dialect: llmstream.DialectResponses, Blocks: append(append([]llmstream.Block(nil), cut.Continuity.Blocks...), llmstream.Block{Type: llmstream.BlockText, Bytes: 5, ID: "msg_1"})}
	for _, tc := range []struct {
		name string
		m    llmstream.Message
		want []any
	}{
		{"nothing after it", cut, nil},
		{"a message after it", answered, []any{"reasoning", "message"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAnthropicServer(t, "responses_text")
			conv := []llmstream.Message{{Role: "user", Content: "hi"}, tc.m, {Role: "user", Content: "go on"}}
			if _, err := responsesClient(srv.URL).Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
				t.Fatal(err)
			}
			input := srv.bodies[0]["input"].([]any)
			var types []any
			for _, it := range input[1 : len(input)-1] {
				types = append(types, it.(map[string]any)["type"])
			}
			if diff := cmp.Diff(tc.want, types); diff != "" {
				t.Errorf("the assistant's items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResponsesNoIndexDoneMatchLimit: with no output_index, an
// output_item.done is matched by its id among the 64 oldest open items of
// its kind (so that many open items keep the stream linear), else closes
// the oldest.
func TestResponsesNoIndexDoneMatchLimit(t *testing.T) {
	for _, tc := range []struct{ open, want int }{{63, 63}, {64, 64}, {65, 1}} { // want: the block, after the reasoning's
		var b strings.Builder
		// A reasoning item, so that the message keeps its blocks.
		b.WriteString(ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"reasoning","id":"rs","encrypted_content":"e"}}`))
		for i := range tc.open {
			b.WriteString(ev("response.output_item.added", `{"type":"response.output_item.added","item":{"type":"message","id":"m`+itoa(i)+`"}}`))
		}
		b.WriteString(ev("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"message","id":"m`+itoa(tc.open-1)+`","content":[{"type":"output_text","text":"x"}]}}`))
		m, err := llmstream.ReadMessage(strings.NewReader(b.String()+completed), responses)
		if err != nil || m.Content != "x" || m.Continuity == nil {
			t.Fatalf("%d open: %v, %q", tc.open, err, m.Content)
		}
		got := -1
		for i, blk := range m.Continuity.Blocks {
			if blk.Bytes > 0 {
				got = i
			}
		}
		if got != tc.want {
			t.Errorf("%d open: the text went to item %d, want %d", tc.open, got, tc.want)
		}
	}
}
