package llmstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/llmstream"
)

// bedrockBody is a ConverseStream answer: one event frame per pair of
// event type and payload.
func bedrockBody(t *testing.T, events ...string) []byte {
	t.Helper()
	var out []byte
	for i := 0; i+1 < len(events); i += 2 {
		var err error
		out, err = eventstream.AppendFrame(out, eventstream.Message{
			Headers: []eventstream.Header{
				{Name: ":message-type", Value: eventstream.String("event")},
				{Name: ":event-type", Value: eventstream.String(events[i])},
			},
			Payload: []byte(events[i+1]),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// bedrockServer answers every request with status, header and body, and
// keeps what it was sent.
type bedrockServer struct {
	mu      sync.Mutex
	paths   []string
	headers []http.Header
	bodies  [][]byte
}

func (s *bedrockServer) start(t *testing.T, status int, header http.Header, body []byte) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.EscapedPath())
		s.headers = append(s.headers, r.Header.Clone())
		s.bodies = append(s.bodies, b)
		s.mu.Unlock()
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var bedrockStream = http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}

func TestBedrockClientRequest(t *testing.T) {
	var s bedrockServer
	body := bedrockBody(t,
		"messageStart", `{"role":"assistant"}`,
		"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"think"}}}`,
		"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"sig-1"}}}`,
		"contentBlockStop", `{"contentBlockIndex":0}`,
		"contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tu_1","name":"grep"}}}`,
		"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"q\":\"x\"}"}}}`,
		"contentBlockStop", `{"contentBlockIndex":1}`,
		"messageStop", `{"stopReason":"tool_use"}`,
		"metadata", `{"usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}}`,
	)
	srv := s.start(t, 200, bedrockStream, body)
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL(srv.URL),
		llmstream.WithAPIKey("br-key-123"), llmstream.WithModel("us.anthropic.claude-sonnet-4-v1:0"))
	budget := 2000
	req := llmstream.Request{
		Messages: []llmstream.Message{
			{Role: "system", Content: "Be brief."},
			{Role: "user", Content: "find x"},
		},
		Tools: []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "grep", Description: "search",
			Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}},
		ToolChoice:     llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto},
		ThinkingBudget: &budget,
		Stop:           []string{"END"},
	}
	m, err := c.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "tu_1" || m.Reasoning != "think" || m.StopReason != llmstream.StopToolCalls {
		t.Fatalf("message %+v", m)
	}
	if got, want := s.paths[0], "/model/us.anthropic.claude-sonnet-4-v1:0/converse-stream"; got != want {
		t.Errorf("path %q, want %q", got, want)
	}
	if h := s.headers[0]; h.Get("Authorization") != "Bearer br-key-123" || h.Get("Accept") != "application/vnd.amazon.eventstream" {
		t.Errorf("headers %v", h)
	}
	wantFirst := `{"messages":[{"role":"user","content":[{"text":"find x"}]}],"system":[{"text":"Be brief."}],
		"inferenceConfig":{"maxTokens":10192,"stopSequences":["END"]},
		"toolConfig":{"tools":[{"toolSpec":{"name":"grep","description":"search","inputSchema":{"json":{"type":"object","properties":{"q":{"type":"string"}}}}}}],"toolChoice":{"auto":{}}},
		"additionalModelRequestFields":{"thinking":{"budget_tokens":2000,"type":"enabled"}}}`
	sameJSON(t, s.bodies[0], wantFirst)

	// The answer goes back with its reasoning in place, the two tool
	// answers in one user message.
	req.Messages = append(req.Messages, m,
		llmstream.Message{Role: "tool", ToolCallID: "tu_1", Content: "x.go:1"},
		llmstream.Message{Role: "tool", ToolCallID: "tu_0", Content: "", IsError: true})
	req.ToolChoice = llmstream.ToolChoice{Mode: llmstream.ToolChoiceNone}
	req.ThinkingBudget = nil
	if _, err := c.Stream(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	wantSecond := `{"messages":[{"role":"user","content":[{"text":"find x"}]},
		{"role":"assistant","content":[{"reasoningContent":{"reasoningText":{"text":"think","signature":"sig-1"}}},
			{"toolUse":{"toolUseId":"tu_1","name":"grep","input":{"q":"x"}}}]},
		{"role":"user","content":[{"toolResult":{"toolUseId":"tu_1","content":[{"text":"x.go:1"}],"status":"success"}},
			{"toolResult":{"toolUseId":"tu_0","content":[],"status":"error"}}]}],
		"system":[{"text":"Be brief."}],"inferenceConfig":{"stopSequences":["END"]},
		"toolConfig":{"tools":[{"toolSpec":{"name":"grep","description":"search","inputSchema":{"json":{"type":"object","properties":{"q":{"type":"string"}}}}}}]}}`
	sameJSON(t, s.bodies[1], wantSecond)
}

func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("body (-want +got):\n%s\n%s", d, got)
	}
}

func TestBedrockEncodeRefusals(t *testing.T) {
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL("http://127.0.0.1:1"))
	msgs := []llmstream.Message{{Role: "user", Content: "hi"}}
	for name, r := range map[string]llmstream.Request{
		"no model":              {Messages: msgs},
		"effort for llama":      {Model: "meta.llama3-70b", Messages: msgs, ReasoningEffort: "high"},
		"unknown effort claude": {Model: "anthropic.claude-x", Messages: msgs, ReasoningEffort: "max"},
	} {
		if _, err := c.Stream(context.Background(), r); !errors.Is(err, llmstream.ErrInvalidRequest) {
			t.Errorf("%s: %v, want ErrInvalidRequest", name, err)
		}
	}
}

func TestBedrockHTTPError(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		header    http.Header
		body      string
		typ       string
		kind      llmstream.ErrorKind
		retryable bool
	}{
		{"header type", 400, http.Header{"X-Amzn-Errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}},
			`{"message":"Malformed input request: invented."}`, "ValidationException", llmstream.ErrorInvalidRequest, false},
		{"body type", 429, nil, `{"__type":"com.amazon.coral#ThrottlingException","message":"Too many requests, please wait."}`,
			"ThrottlingException", llmstream.ErrorRateLimited, true},
		{"access denied", 403, http.Header{"X-Amzn-Errortype": {"AccessDeniedException"}}, `{"Message":"You don't have access."}`,
			"AccessDeniedException", llmstream.ErrorPermission, false},
		{"unavailable", 503, http.Header{"X-Amzn-Errortype": {"ServiceUnavailableException"}}, `{"message":"Busy."}`,
			"ServiceUnavailableException", llmstream.ErrorOverloaded, true},
		{"too long", 400, http.Header{"X-Amzn-Errortype": {"ValidationException"}}, `{"message":"Input is too long for requested model."}`,
			"ValidationException", llmstream.ErrorInvalidRequest, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s bedrockServer
			h := http.Header{"Content-Type": {"application/json"}}
			for k, v := range tc.header {
				h[k] = v
			}
			srv := s.start(t, tc.status, h, []byte(tc.body))
			c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL(srv.URL),
				llmstream.WithModel("m"), llmstream.WithHTTPClient(http.DefaultClient))
			_, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
			var api *llmstream.APIError
			if !errors.As(err, &api) {
				t.Fatalf("error %v, want an *APIError", err)
			}
			var body struct{ Message, Message2 string }
			json.Unmarshal([]byte(strings.Replace(tc.body, `"Message"`, `"Message2"`, 1)), &body)
			if api.Message != body.Message+body.Message2 || api.Type != tc.typ || api.Kind != tc.kind || api.Retryable() != tc.retryable || api.StatusCode != tc.status {
				t.Errorf("got %+v (retryable %v)", api, api.Retryable())
			}
		})
	}
}

// A 200 answer that is SSE, not frames, is not Bedrock's stream.
func TestBedrockContentType(t *testing.T) {
	var s bedrockServer
	srv := s.start(t, 200, http.Header{"Content-Type": {"text/event-stream"}}, []byte("data: {}\n\n"))
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL(srv.URL), llmstream.WithModel("m"))
	_, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, llmstream.ErrNotEventStream) {
		t.Fatalf("%v, want ErrNotEventStream", err)
	}
}

func TestBedrockBaseURL(t *testing.T) {
	if got := llmstream.BedrockBaseURL("eu-west-3"); got != "https://bedrock-runtime.eu-west-3.amazonaws.com" {
		t.Errorf("BedrockBaseURL = %q", got)
	}
}
