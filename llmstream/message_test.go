package llmstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMessageJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  Message
		want string
	}{{
		name: "assistant with tool calls and no text omits content",
		msg:  Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "f", Arguments: `{"a":1}`}}}, Reasoning: "r", FinishReason: "tool_calls", Usage: &Usage{TotalTokens: 3}},
		want: `{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}`,
	}, {
		name: "assistant with no calls keeps empty content",
		msg:  Message{Role: "assistant"},
		want: `{"role":"assistant","content":""}`,
	}, {
		name: "tool result",
		msg:  Message{Role: "tool", ToolCallID: "c1", Content: "ok"},
		want: `{"role":"tool","content":"ok","tool_call_id":"c1"}`,
	}, {
		name: "provider extras are echoed",
		msg:  Message{Role: "assistant", Content: "x", ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}, Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig"}}}`)}}},
		want: `{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"sig"}}}]}`,
	}, {
		name: "refusal and name",
		msg:  Message{Role: "assistant", Refusal: "no", Name: "bot"},
		want: `{"role":"assistant","content":"","refusal":"no","name":"bot"}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			var back Message
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			want := tc.msg
			want.Reasoning, want.FinishReason, want.Usage = "", "", nil // not part of the wire message
			for i := range want.ToolCalls {
				if want.ToolCalls[i].Type == "" {
					want.ToolCalls[i].Type = "function"
				}
			}
			if diff := cmp.Diff(want, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessageUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Message
		wantErr  bool
	}{
		{name: "content null", in: `{"role":"assistant","content":null}`, want: Message{Role: "assistant"}},
		{name: "content parts", in: `{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{}},{"type":"text","text":"b"}]}`, want: Message{Role: "user", Content: "ab"}},
		{name: "arguments as an object", in: `{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"x":[1]}},"index":0}]}`, want: Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "f", Arguments: `{"x":[1]}`}}}}},
		{name: "content a number", in: `{"role":"user","content":5}`, wantErr: true},
		{name: "not an object", in: `[]`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Message
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolJSON(t *testing.T) {
	got, err := json.Marshal([]Tool{{Function: ToolFunction{Name: "ls"}}, {Type: "function", Function: ToolFunction{Name: "cat", Description: "reads", Parameters: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"function","function":{"name":"ls","parameters":{"type":"object","properties":{}}}},{"type":"function","function":{"name":"cat","description":"reads","parameters":{"type":"object","properties":{"p":{"type":"string"}}}}}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestToolCallExtraMustBeObject(t *testing.T) {
	_, err := json.Marshal(ToolCall{ID: "c", Extra: json.RawMessage(`[1]`)})
	if err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("err = %v", err)
	}
}

// endpoint is the chat endpoint for a base URL, as a Client makes it.
func endpoint(base string) (string, error) {
	u, err := normalizeBase(base, chatProtocol{})
	if err != nil {
		return "", err
	}
	return chatProtocol{}.endpoint(u, "")
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"},
		{"http://localhost:11434", "http://localhost:11434/v1/chat/completions"},
		{"http://localhost:11434/", "http://localhost:11434/v1/chat/completions"},
		{"https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/chat/completions"},
		{"http://h/v1/chat/completions", "http://h/v1/chat/completions"},
		{"http://h/v1/chat/completions/", "http://h/v1/chat/completions"},
		{"https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21"},
	} {
		got, err := endpoint(tc.base)
		if err != nil || got != tc.want {
			t.Errorf("endpoint(%q) = %q, %v; want %q", tc.base, got, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://h/v1", "localhost:8080", "http://", "::"} {
		if _, err := endpoint(bad); err == nil {
			t.Errorf("endpoint(%q) accepted", bad)
		}
	}
}

func TestEndpointKeepsEscapedSlash(t *testing.T) {
	got, err := endpoint("http://h/a%2Fb/v1")
	if want := "http://h/a%2Fb/v1/chat/completions"; err != nil || got != want {
		t.Errorf("endpoint = %q, %v; want %q", got, err, want)
	}
}
