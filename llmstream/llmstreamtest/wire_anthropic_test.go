package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	"github.com/google/go-cmp/cmp"
)

const anthropicBody = `{"model":"claude-test","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

var anthropicTurn = Turn{
	Reasoning: "The user wants two files read.",
	Text:      "Reading both — ünïcødé.",
	ToolCalls: []Call{
		{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`},
		{ID: "toolu_given", Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`},
	},
	Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, CachedTokens: 8},
}

func anthropicClient(srv *Server, opts ...llmstream.ClientOption) *llmstream.Client {
	return llmstream.NewClient(append([]llmstream.ClientOption{llmstream.WithDialect(llmstream.DialectAnthropic),
		llmstream.WithBaseURL(srv.URL + "/v1"), llmstream.WithAPIKey("sk-ant-test"), llmstream.WithModel("claude-test"),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(3, time.Millisecond, time.Millisecond)))}, opts...)...)
}

// TestAnthropicWire: a turn served on /v1/messages decodes to the message
// the script describes, whole and one byte at a time.
func TestAnthropicWire(t *testing.T) {
	srv := NewTestServer(t, WithTurns(anthropicTurn))
	r := post(t, srv, "/v1/messages", anthropicBody)
	if r.status != 200 || r.readErr != nil || !strings.HasPrefix(string(r.body), "event: message_start\ndata: ") {
		t.Fatalf("status %d, %v, body %.200s", r.status, r.readErr, r.body)
	}
	want := llmstream.Message{
		Role: "assistant", Content: "Reading both — ünïcødé.", Reasoning: "The user wants two files read.", Model: "claude-test",
		ToolCalls: []llmstream.ToolCall{
			{ID: "toolu_1_0", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`}},
			{ID: "toolu_given", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`}},
		},
		FinishReason: "tool_use", StopReason: llmstream.StopToolCalls,
		Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, CachedTokens: 8, TotalTokens: 73, PromptExcludesCache: true},
		Continuity: &llmstream.Continuity{Dialect: llmstream.DialectAnthropic, Blocks: []llmstream.Block{
			{Type: "thinking", Raw: json.RawMessage(`{"type":"thinking","thinking":"The user wants two files read.","signature":"bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMQ=="}`)},
			{Type: llmstream.BlockText, Bytes: len("Reading both — ünïcødé.")},
			{Type: llmstream.BlockToolCall, Call: 0},
			{Type: llmstream.BlockToolCall, Call: 1},
		}},
	}
	for name, rd := range map[string]io.Reader{"whole": bytes.NewReader(r.body), "one byte at a time": iotest.OneByteReader(bytes.NewReader(r.body))} {
		got, err := llmstream.ReadMessage(rd, llmstream.WithDialect(llmstream.DialectAnthropic))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(jsonEqual)); diff != "" {
			t.Errorf("%s: message (-want +got):\n%s", name, diff)
		}
	}
}

// TestAnthropicWireConversation: the client's second request comes back,
// decoded, with the thinking block and its signature in place, the tool
// results as tool messages and the system prompt.
func TestAnthropicWireConversation(t *testing.T) {
	srv := NewTestServer(t, WithTurns(anthropicTurn, Turn{Text: "Done."}))
	c := anthropicClient(srv)
	conv := []llmstream.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Read them."}}
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: conv})
	if err != nil {
		t.Fatal(err)
	}
	conv = append(conv, m, llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[0].ID, Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: m.ToolCalls[1].ID, Content: "error: no such file", IsError: true})
	if _, err := c.Stream(t.Context(), llmstream.Request{Messages: conv}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[1].Dialect != llmstream.DialectAnthropic || reqs[1].Header.Get("X-Api-Key") != "sk-ant-test" || reqs[1].Model != "claude-test" {
		t.Errorf("request %+v", reqs[1])
	}
	if diff := cmp.Diff(conv, reqs[1].Messages, cmp.Comparer(jsonEqual), cmp.FilterPath(func(p cmp.Path) bool {
		switch p.Last().String() {
		case ".Reasoning", ".FinishReason", ".StopReason", ".Usage", ".Model":
			return true // describe the response; never sent
		}
		return false
	}, cmp.Ignore())); diff != "" {
		t.Errorf("the conversation as the server read it (-sent +read):\n%s", diff)
	}
}

// TestAnthropicWireFaults: every fault in Anthropic's own form reaches the
// client as the same kind of error the real API would give.
func TestAnthropicWireFaults(t *testing.T) {
	base := Turn{Text: "one two three four five", ToolCalls: []Call{{Name: "f", Arguments: `{"a":1}`}}}
	with := func(f Fault) Turn { t := base; t.Fault = f; return t }
	tests := []struct {
		name  string
		turn  Turn
		check func(t *testing.T, m llmstream.Message, err error)
	}{
		{"529 then success", with(Fault{Kind: FaultStatus, Status: 529, Attempts: 2, RetryAfter: "0"}), func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || len(m.ToolCalls) != 1 {
				t.Errorf("after two 529s: %v", err)
			}
		}},
		{"429 with retry-after", with(Fault{Kind: FaultStatus, Status: 429, RetryAfter: "120"}), func(t *testing.T, m llmstream.Message, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.StatusCode != 429 || api.Type != "rate_limit_error" || api.Kind != llmstream.ErrorRateLimited {
				t.Errorf("err = %v", err)
			}
		}},
		{"error event mid-stream", with(Fault{Kind: FaultErrorEvent, After: 5, Message: "Overloaded"}), func(t *testing.T, m llmstream.Message, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Type != "overloaded_error" || api.Message != "Overloaded" || api.Kind != llmstream.ErrorOverloaded || m.Content == "" {
				t.Errorf("err = %v, content %q", err, m.Content)
			}
		}},
		{"cut", with(Fault{Kind: FaultCut, After: 5}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrInterrupted) || len(m.ToolCalls) != 0 {
				t.Errorf("err = %v", err)
			}
		}},
		{"truncated before message_stop", with(Fault{Kind: FaultTruncate, After: 100}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrTruncated) || len(m.ToolCalls) != 0 || m.Content != base.Text {
				t.Errorf("err = %v, content %q", err, m.Content)
			}
		}},
		{"malformed", with(Fault{Kind: FaultMalformed, After: 4}), func(t *testing.T, m llmstream.Message, err error) {
			if !errors.Is(err, llmstream.ErrBadEvent) {
				t.Errorf("err = %v", err)
			}
		}},
		{"pings between events", Turn{Text: "hi", KeepAlive: 2}, func(t *testing.T, m llmstream.Message, err error) {
			if err != nil || m.Content != "hi" {
				t.Errorf("with pings: %q, %v", m.Content, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(tt.turn))
			m, err := anthropicClient(srv).Stream(t.Context(), llmstream.Request{})
			tt.check(t, m, err)
		})
	}
	t.Run("stall", func(t *testing.T) {
		srv := NewTestServer(t, WithTurns(with(Fault{Kind: FaultStall, After: 3})))
		_, err := anthropicClient(srv, llmstream.WithIdleTimeout(100*time.Millisecond)).Stream(t.Context(), llmstream.Request{})
		if !errors.Is(err, llmstream.ErrIdleTimeout) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestAnthropicWireBadRequest: a request the server refuses is answered in
// Anthropic's error shape.
func TestAnthropicWireBadRequest(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "x"}))
	defer srv.Close()
	r := post(t, srv, "/v1/messages", `{"model":"m","stream":true,"messages":[]}`)
	var body struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal(r.body, &body); err != nil || r.status != http.StatusBadRequest || body.Type != "error" || body.Error.Type != "invalid_request_error" || !strings.Contains(body.Error.Message, "max_tokens") {
		t.Errorf("status %d, body %s", r.status, r.body)
	}
}
