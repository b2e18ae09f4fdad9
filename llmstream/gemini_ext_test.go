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

// geminiServer records each request and answers with the recorded stream
// in testdata/providers/<stream>.sse.
type geminiServer struct {
	*httptest.Server
	urls    []string
	headers []http.Header
	bodies  []map[string]any
}

func newGeminiServer(t *testing.T, stream string) *geminiServer {
	t.Helper()
	data, err := os.ReadFile("testdata/providers/" + stream + ".sse")
	if err != nil {
		t.Fatal(err)
	}
	s := &geminiServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		s.urls, s.headers, s.bodies = append(s.urls, r.URL.String()), append(s.headers, r.Header.Clone()), append(s.bodies, m)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(data)
	}))
	t.Cleanup(s.Close)
	return s
}

func geminiClient(srv *geminiServer, opts ...llmstream.ClientOption) *llmstream.Client {
	return llmstream.NewClient(append([]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectGemini),
		llmstream.WithBaseURL(srv.URL), llmstream.WithAPIKey("AIzaSyTest-key-0123456789"), llmstream.WithModel("gemini-2.5-flash")}, opts...)...)
}

func TestGeminiRequest(t *testing.T) {
	srv := newGeminiServer(t, "gemini_text")
	msgs := []llmstream.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Read go.mod and main.go."},
		{Role: "user", Content: "Both, please."},
		{Role: "assistant", Content: "Reading.", ToolCalls: []llmstream.ToolCall{
			{ID: "call_0", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod"}`}},
			{ID: "call_1", Function: llmstream.FunctionCall{Name: "list_dir", Arguments: `{"path":`}},
		}},
		{Role: "tool", ToolCallID: "call_0", Content: "module x"},
		{Role: "tool", ToolCallID: "call_1", Content: "error: bad arguments", IsError: true},
		{Role: "user", Content: "Thanks."},
		{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "call_0", Function: llmstream.FunctionCall{Name: "stat", Arguments: `{}`}}}},
		{Role: "tool", ToolCallID: "call_0", Content: `{"size": 12}`},
		{Role: "developer", Content: "Answer in English."},
	}
	tools := []llmstream.Tool{
		{Function: llmstream.ToolFunction{Name: "read_file", Description: "reads a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		{Function: llmstream.ToolFunction{Name: "now"}},
		{Function: llmstream.ToolFunction{Name: "ping", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
	}
	m, err := geminiClient(srv).Stream(t.Context(), llmstream.Request{Messages: msgs, Tools: tools,
		ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceFunction, Name: "read_file"}, ParallelToolCalls: new(bool),
		MaxTokens: ptr(512), Temperature: ptr(0.5), TopP: ptr(0.9), Stop: []string{"###"}, ReasoningEffort: "low", Seed: ptr(int64(7))})
	if err != nil || m.Content == "" {
		t.Fatalf("Stream: %v", err)
	}
	if want := "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"; srv.urls[0] != want {
		t.Errorf("URL %q, want %q", srv.urls[0], want)
	}
	h := srv.headers[0]
	if h.Get("X-Goog-Api-Key") != "AIzaSyTest-key-0123456789" || h.Get("Authorization") != "" || h.Get("Accept") != "text/event-stream" {
		t.Errorf("headers %v", h)
	}
	text := func(s string) map[string]any { return map[string]any{"text": s} }
	want := map[string]any{
		"systemInstruction": map[string]any{"parts": []any{text("Be brief."), text("Answer in English.")}},
		"contents": []any{
			map[string]any{"role": "user", "parts": []any{text("Read go.mod and main.go."), text("Both, please.")}},
			map[string]any{"role": "model", "parts": []any{
				text("Reading."),
				map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"path": "go.mod"}}},
				map[string]any{"functionCall": map[string]any{"name": "list_dir", "args": map[string]any{}}},
			}},
			map[string]any{"role": "user", "parts": []any{
				map[string]any{"functionResponse": map[string]any{"name": "read_file", "response": map[string]any{"result": "module x"}}},
				map[string]any{"functionResponse": map[string]any{"name": "list_dir", "response": map[string]any{"error": "error: bad arguments"}}},
				text("Thanks."),
			}},
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "stat", "args": map[string]any{}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "stat", "response": map[string]any{"size": 12.0}}}}},
		},
		"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "read_file", "description": "reads a file", "parametersJsonSchema": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
			map[string]any{"name": "now"},
			map[string]any{"name": "ping"},
		}}},
		"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY", "allowedFunctionNames": []any{"read_file"}}},
		"generationConfig": map[string]any{"maxOutputTokens": 512.0, "temperature": 0.5, "topP": 0.9, "stopSequences": []any{"###"},
			"thinkingConfig": map[string]any{"thinkingLevel": "LOW", "includeThoughts": true}},
	}
	if diff := cmp.Diff(want, srv.bodies[0]); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestGeminiSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    llmstream.Request
		want map[string]any // members checked
	}{
		{"no settings", llmstream.Request{}, map[string]any{"generationConfig": nil, "toolConfig": nil, "tools": nil, "systemInstruction": nil, "model": nil, "stream": nil}},
		{"a budget wins over an effort", llmstream.Request{ThinkingBudget: ptr(2048), ReasoningEffort: "high"},
			map[string]any{"generationConfig": map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 2048.0, "includeThoughts": true}}}},
		{"a zero budget turns thinking off", llmstream.Request{ThinkingBudget: ptr(0)},
			map[string]any{"generationConfig": map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 0.0}}}},
		{"max_completion_tokens stands in", llmstream.Request{MaxCompletionTokens: ptr(300)}, map[string]any{"generationConfig": map[string]any{"maxOutputTokens": 300.0}}},
		{"auto", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto}}, map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO"}}}},
		{"none", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceNone}}, map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "NONE"}}}},
		{"required", llmstream.Request{ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceRequired}}, map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY"}}}},
		{"extra members", llmstream.Request{Extra: map[string]any{"safetySettings": []any{map[string]any{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}}}},
			map[string]any{"safetySettings": []any{map[string]any{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newGeminiServer(t, "gemini_text")
			if _, err := geminiClient(srv).Stream(t.Context(), tc.r); err != nil {
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

// TestGeminiToolSchema: a tool's JSON Schema goes as it is, under
// parametersJsonSchema; under "parameters" Gemini refuses the request for
// additionalProperties, $schema, $ref and $defs, which schemas generated
// from Go types and MCP tools carry.
func TestGeminiToolSchema(t *testing.T) {
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"path":{"type":"string"},"opts":{"$ref":"#/$defs/opts"}},` +
		`"required":["path"],"additionalProperties":false,"$defs":{"opts":{"type":"object","additionalProperties":{"type":"integer"}}}}`
	srv := newGeminiServer(t, "gemini_text")
	tools := []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "read_file", Parameters: json.RawMessage(schema)}}}
	if _, err := geminiClient(srv).Stream(t.Context(), llmstream.Request{Tools: tools}); err != nil {
		t.Fatal(err)
	}
	var want any
	json.Unmarshal([]byte(schema), &want)
	decl := srv.bodies[0]["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)[0].(map[string]any)
	if diff := cmp.Diff(map[string]any{"name": "read_file", "parametersJsonSchema": want}, decl); diff != "" {
		t.Errorf("declaration (-want +got):\n%s", diff)
	}
}

// TestGeminiEndpoint: the model goes in the path, escaped; a collection
// given with it is kept; a base URL's own query stays; no model fails
// before anything is sent.
func TestGeminiEndpoint(t *testing.T) {
	for _, tc := range []struct{ base, model, want string }{
		{"", "gemini-2.5-flash", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"},
		{"/v1beta/", "models/gemini-3-pro-preview", "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"},
		{"/v1alpha", "tunedModels/my model", "/v1alpha/tunedModels/my%20model:streamGenerateContent?alt=sse"},
		{"/proxy/v1beta?tenant=a", "gemini-2.5-pro", "/proxy/v1beta/models/gemini-2.5-pro:streamGenerateContent?tenant=a&alt=sse"},
	} {
		srv := newGeminiServer(t, "gemini_text")
		c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithBaseURL(srv.URL+tc.base))
		if _, err := c.Stream(t.Context(), llmstream.Request{Model: tc.model}); err != nil {
			t.Fatalf("%s %s: %v", tc.base, tc.model, err)
		}
		if srv.urls[0] != tc.want {
			t.Errorf("base %q model %q: URL %q, want %q", tc.base, tc.model, srv.urls[0], tc.want)
		}
	}
	srv := newGeminiServer(t, "gemini_text")
	for _, model := range []string{"", "  ", "models/../x", "models//x"} {
		c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithBaseURL(srv.URL))
		if _, err := c.Stream(t.Context(), llmstream.Request{Model: model}); !errors.Is(err, llmstream.ErrInvalidRequest) {
			t.Errorf("model %q: err = %v, want ErrInvalidRequest", model, err)
		}
	}
	if len(srv.urls) != 0 {
		t.Errorf("a request without a model was sent: %v", srv.urls)
	}
}

// TestGeminiContinuity: thought blocks, signatures and Gemini's call ids
// survive a JSON round trip of the message and go back on the parts they
// came with; another dialect leaves them out.
func TestGeminiContinuity(t *testing.T) {
	data, _ := os.ReadFile("testdata/providers/gemini_thinking_tools.sse")
	m, err := llmstream.ReadMessage(strings.NewReader(string(data)), llmstream.WithDialect(llmstream.DialectGemini))
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
	conv = append(conv, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[1].ID, Content: "package main"})

	srv := newGeminiServer(t, "gemini_text")
	if _, err := geminiClient(srv).Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}
	contents := srv.bodies[0]["contents"].([]any)
	want := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "read both"}}},
		map[string]any{"role": "model", "parts": []any{
			map[string]any{"thought": true, "text": "**Reading the files**\n\nThe user wants both go.mod and main.go; I'll call read_file twice — ünïcødé \"quoted\".", "thoughtSignature": "EpYDCpMDAdHtim9fake+thought/signature+one=="},
			map[string]any{"text": "Reading both files."},
			map[string]any{"functionCall": map[string]any{"name": "read_file", "args": map[string]any{"path": "go.mod", "max_bytes": 4096.0}}, "thoughtSignature": "CsYBAdHtim9fake+call/signature+two=="},
			map[string]any{"functionCall": map[string]any{"id": "fc_7d1e2a", "name": "read_file", "args": map[string]any{"path": "main.go", "note": "😀 é <tag>"}}},
		}},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"name": "read_file", "response": map[string]any{"result": "module x"}}},
			map[string]any{"functionResponse": map[string]any{"id": "fc_7d1e2a", "name": "read_file", "response": map[string]any{"result": "package main"}}},
		}},
	}
	if diff := cmp.Diff(want, contents); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}

	// The text edited: the blocks no longer match, so the thought goes
	// first, then the text, then the calls, with neither signature nor id.
	conv[1].Content = "Edited."
	srv2 := newGeminiServer(t, "gemini_text")
	geminiClient(srv2).Stream(t.Context(), llmstream.Request{Messages: conv})
	parts := srv2.bodies[0]["contents"].([]any)[1].(map[string]any)["parts"].([]any)
	answers := srv2.bodies[0]["contents"].([]any)[2].(map[string]any)["parts"].([]any)
	if len(parts) != 4 || parts[0].(map[string]any)["thought"] != true || parts[1].(map[string]any)["text"] != "Edited." ||
		parts[2].(map[string]any)["thoughtSignature"] != nil || answers[1].(map[string]any)["functionResponse"].(map[string]any)["id"] != nil {
		t.Errorf("fallback parts %v, answers %v", parts, answers)
	}

	// Chat leaves the state out.
	srv3 := llmstreamtestServer(t)
	if _, err := llmstream.NewClient(llmstream.WithBaseURL(srv3.URL)).Stream(t.Context(), llmstream.Request{Messages: conv[:2]}); err != nil {
		t.Fatal(err)
	}
	if body := string(srv3.Requests()[0].Body); strings.Contains(body, "continuity") || strings.Contains(body, "thoughtSignature") {
		t.Errorf("the chat request carries Gemini state: %s", body)
	}
}

// TestGeminiForeignCalls: calls from another dialect go without ids, and
// a signature that Gemini's OpenAI endpoint put on a call comes along.
func TestGeminiForeignCalls(t *testing.T) {
	srv := newGeminiServer(t, "gemini_text")
	conv := []llmstream.Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []llmstream.ToolCall{
			{ID: "toolu_01", Function: llmstream.FunctionCall{Name: "a", Arguments: `{"x":1}`}, Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig-from-openai-endpoint"}}}`)},
		}},
		{Role: "tool", ToolCallID: "toolu_01", Content: "done"},
		{Role: "tool", ToolCallID: "unknown", Name: "b", Content: "named"},
	}
	if _, err := geminiClient(srv).Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}
	contents := srv.bodies[0]["contents"].([]any)
	call := contents[1].(map[string]any)["parts"].([]any)[0]
	if diff := cmp.Diff(map[string]any{"functionCall": map[string]any{"name": "a", "args": map[string]any{"x": 1.0}}, "thoughtSignature": "sig-from-openai-endpoint"}, call); diff != "" {
		t.Errorf("call (-want +got):\n%s", diff)
	}
	if got := contents[2].(map[string]any)["parts"].([]any)[1].(map[string]any)["functionResponse"].(map[string]any)["name"]; got != "b" {
		t.Errorf("an answer to an unknown call is named %v, want its Name", got)
	}
	// An answer to no known call and without a name cannot be sent.
	conv[3].Name = ""
	if _, err := geminiClient(srv).Stream(t.Context(), llmstream.Request{Messages: conv}); !errors.Is(err, llmstream.ErrInvalidRequest) {
		t.Errorf("err = %v, want ErrInvalidRequest", err)
	}
}

// TestGeminiReplayToGemini3: a conversation begun with a chat-completions
// provider goes on with Gemini 3, which refuses calls without a signature:
// the first call of the chat step goes with Google's sentinel, the parallel
// one without, and a call Gemini signed itself keeps its own signature, as
// the test server reads them back.
func TestGeminiReplayToGemini3(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}, {Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "list_dir", Arguments: `{"path":"."}`}}, Signature: "Z2VtaW5pLW93bg=="},
		llmstreamtest.Turn{Text: "done"},
	))
	chat := llmstream.NewClient(srv.ClientOptions()...)
	gemini := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithModel("gemini-3-pro-preview"))...)

	conv := []llmstream.Message{{Role: "user", Content: "read both"}}
	m, err := chat.Stream(t.Context(), llmstream.Request{Messages: conv})
	if err != nil || len(m.ToolCalls) != 2 {
		t.Fatalf("chat: %v, %d calls", err, len(m.ToolCalls))
	}
	conv = append(conv, m, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[1].ID, Content: "package main"})
	if m, err = gemini.Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil || len(m.ToolCalls) != 1 {
		t.Fatalf("gemini: %v, %d calls", err, len(m.ToolCalls))
	}
	conv = append(conv, m, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "go.mod main.go"})
	if _, err := gemini.Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}

	// The signatures of each call of each assistant message, as sent.
	signatures := func(r llmstreamtest.Request) [][]string {
		var out [][]string
		for _, m := range r.Messages {
			if m.Role != "assistant" {
				continue
			}
			sigs := make([]string, len(m.ToolCalls))
			if c := m.Continuity; c != nil {
				for _, b := range c.Blocks {
					if b.Type == llmstream.BlockToolCall {
						sigs[b.Call] = b.Signature
					}
				}
			}
			out = append(out, sigs)
		}
		return out
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	const skip = "skip_thought_signature_validator"
	if diff := cmp.Diff([][]string{{skip, ""}}, signatures(reqs[1])); diff != "" {
		t.Errorf("second request's call signatures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{skip, ""}, {"Z2VtaW5pLW93bg=="}}, signatures(reqs[2])); diff != "" {
		t.Errorf("third request's call signatures (-want +got):\n%s", diff)
	}
}

// TestGeminiErrors: Gemini's error body, each status to its kind; a key
// Gemini rejects is an authentication failure, though sent as a 400.
func TestGeminiErrors(t *testing.T) {
	for _, tc := range []struct {
		status  int
		gstatus string
		details string
		kind    llmstream.ErrorKind
		retry   bool
	}{
		{400, "INVALID_ARGUMENT", ``, llmstream.ErrorInvalidRequest, false},
		{400, "INVALID_ARGUMENT", `,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]`, llmstream.ErrorAuthentication, false},
		{400, "FAILED_PRECONDITION", ``, llmstream.ErrorInvalidRequest, false},
		{401, "UNAUTHENTICATED", ``, llmstream.ErrorAuthentication, false},
		{403, "PERMISSION_DENIED", ``, llmstream.ErrorPermission, false},
		{404, "NOT_FOUND", ``, llmstream.ErrorNotFound, false},
		{429, "RESOURCE_EXHAUSTED", `,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"40s"}]`, llmstream.ErrorRateLimited, true},
		{500, "INTERNAL", ``, llmstream.ErrorServer, true},
		{503, "UNAVAILABLE", ``, llmstream.ErrorOverloaded, true},
		{504, "DEADLINE_EXCEEDED", ``, llmstream.ErrorServer, true},
	} {
		for _, array := range []bool{false, true} {
			body := `{"error":{"code":` + jsonInt(tc.status) + `,"message":"the message","status":"` + tc.gstatus + `"` + tc.details + `}}`
			if array {
				body = "[" + body + "]"
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, body)
			}))
			_, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithBaseURL(srv.URL), llmstream.WithModel("m"),
				llmstream.WithHTTPClient(&http.Client{})).Stream(t.Context(), llmstream.Request{})
			srv.Close()
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.StatusCode != tc.status || api.Type != tc.gstatus || api.Message != "the message" || api.Kind != tc.kind || api.Retryable() != tc.retry {
				t.Errorf("%d %s (array %v): %+v", tc.status, tc.gstatus, array, api)
			}
		}
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestGeminiKeyNeverInURL: the key goes in the header alone; an error
// that echoes it shows it redacted.
func TestGeminiKeyNeverInURL(t *testing.T) {
	const key = "AIzaSySecretKey-0123456789"
	var seen string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.URL.String()
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"code":400,"message":"API key not valid: `+key+`","status":"INVALID_ARGUMENT"}}`)
	}))
	defer srv.Close()
	_, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithBaseURL(srv.URL), llmstream.WithModel("m"),
		llmstream.WithAPIKey(key)).Stream(t.Context(), llmstream.Request{})
	if strings.Contains(seen, key) || strings.Contains(seen, "key=") {
		t.Errorf("the key is in the URL %q", seen)
	}
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("err = %v", err)
	}
	var api *llmstream.APIError
	if !errors.As(err, &api) || strings.Contains(api.Message, key) || !strings.Contains(api.Message, "REDACTED") {
		t.Errorf("APIError %+v", api)
	}
}
