package llmstream

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// encodeAnthropic returns the messages of r's Anthropic request.
func encodeAnthropic(t *testing.T, r Request) []any {
	t.Helper()
	body, err := anthropicProtocol{}.encode(&r, &config{})
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Messages []any }
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	return w.Messages
}

// TestAnthropicEmptyToolResult: Anthropic refuses a tool_result whose
// content is "" ("content cannot be empty if is_error is true", and a 400
// for a plain one too: bytedance/trae-agent#230, zed#27130). A tool that
// printed nothing is a tool_result without content, which the API
// documents; a failure that said nothing gets a short text.
func TestAnthropicEmptyToolResult(t *testing.T) {
	got := encodeAnthropic(t, Request{Messages: []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "toolu_1", Function: FunctionCall{Name: "touch", Arguments: `{}`}}, {ID: "toolu_2", Function: FunctionCall{Name: "rm", Arguments: `{}`}}}},
		{Role: "tool", ToolCallID: "toolu_1", Content: ""},
		{Role: "tool", ToolCallID: "toolu_2", Content: "", IsError: true},
	}})
	want := []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_1"},
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": anthropicEmptyError},
	}
	if diff := cmp.Diff(want, got[2].(map[string]any)["content"]); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
}

// TestAnthropicBlankAssistantText: Anthropic refuses a message whose text
// blocks are all blank ("text content blocks must contain non-whitespace
// text"), and its own replies can be such text around a call or a server
// tool (LibreChat-AI/agents#124): sent back as they came, the conversation
// could never go on. Blank text goes only when the message has other text.
func TestAnthropicBlankAssistantText(t *testing.T) {
	calls := []ToolCall{{ID: "toolu_1", Function: FunctionCall{Name: "f", Arguments: `{}`}}}
	placed := &Continuity{Dialect: DialectAnthropic, Blocks: []Block{
		{Type: "thinking", Raw: json.RawMessage(`{"type":"thinking","thinking":"t","signature":"s"}`)},
		{Type: BlockText, Bytes: 2}, {Type: BlockToolCall}, {Type: BlockText, Bytes: 1},
	}}
	for _, tc := range []struct {
		name string
		m    Message
		want []string // the types of the assistant's blocks, text with its text
	}{
		{"blank text alone", Message{Role: "assistant", Content: "\n\n", ToolCalls: calls}, []string{"tool_use"}},
		{"blank text in place", Message{Role: "assistant", Content: "\n\n ", ToolCalls: calls, Continuity: placed}, []string{"thinking", "tool_use"}},
		{"blank beside real text stays", Message{Role: "assistant", Content: "\n\nA", ToolCalls: calls, Continuity: placed}, []string{"thinking", "text:\n\n", "tool_use", "text:A"}},
		{"real text", Message{Role: "assistant", Content: " ok ", ToolCalls: calls}, []string{"text: ok ", "tool_use"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := encodeAnthropic(t, Request{Messages: []Message{{Role: "user", Content: "go"}, tc.m}})
			var types []string
			for _, b := range got[1].(map[string]any)["content"].([]any) {
				b := b.(map[string]any)
				s := b["type"].(string)
				if s == "text" {
					s += ":" + b["text"].(string)
				}
				types = append(types, s)
			}
			if diff := cmp.Diff(tc.want, types); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnthropicToolIDs: Anthropic takes tool ids of [A-Za-z0-9_-] only; a
// conversation begun on another provider (Kimi's "functions.read:0") goes
// on here with the ids made valid, the same way on the call and on its
// answer, and two ids that differ stay apart.
func TestAnthropicToolIDs(t *testing.T) {
	ids := []string{"functions.read:0", "functions.read_0", "functions-read:0", "toolu_01A-b"}
	var calls []ToolCall
	msgs := []Message{{Role: "user", Content: "go"}, {Role: "assistant"}}
	for _, id := range ids {
		calls = append(calls, ToolCall{ID: id, Function: FunctionCall{Name: "read", Arguments: `{}`}})
		msgs = append(msgs, Message{Role: "tool", ToolCallID: id, Content: "x"})
	}
	msgs[1].ToolCalls = calls
	got := encodeAnthropic(t, Request{Messages: msgs})
	uses := got[1].(map[string]any)["content"].([]any)
	results := got[2].(map[string]any)["content"].([]any)
	seen := map[string]bool{}
	for i, id := range ids {
		use := uses[i].(map[string]any)["id"].(string)
		res := results[i].(map[string]any)["tool_use_id"].(string)
		if use != res || use == "" || strings.Trim(use, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" || seen[use] {
			t.Errorf("%q became tool_use %q, tool_result %q", id, use, res)
		}
		seen[use] = true
	}
	if uses[3].(map[string]any)["id"] != "toolu_01A-b" {
		t.Errorf("a valid id changed: %v", uses[3])
	}
}

// TestAnthropicReasoningEffort: an effort becomes a thinking budget, "none"
// turns thinking off, and an effort with no budget ("xhigh", which the
// other dialects pass on) is an error rather than a request sent silently
// without thinking.
func TestAnthropicReasoningEffort(t *testing.T) {
	for effort, want := range map[string]string{
		"minimal": `{"budget_tokens":1024,"type":"enabled"}`,
		"high":    `{"budget_tokens":24576,"type":"enabled"}`,
		"none":    `{"type":"disabled"}`,
		"xhigh":   "error",
		"High":    "error",
	} {
		if want == "error" {
			sent := false
			c := NewClient(WithDialect(DialectAnthropic), WithHTTPClient(countingDoer{&sent}))
			_, err := c.Stream(t.Context(), Request{ReasoningEffort: effort})
			if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), effort) || sent {
				t.Errorf("%q: err %v, sent %v; want ErrInvalidRequest naming it, nothing sent", effort, err, sent)
			}
			continue
		}
		body, err := anthropicProtocol{}.encode(&Request{ReasoningEffort: effort}, &config{})
		var w struct{ Thinking json.RawMessage }
		if err != nil || json.Unmarshal(body, &w) != nil || string(w.Thinking) != want {
			t.Errorf("%q: thinking %s (err %v), want %s", effort, w.Thinking, err, want)
		}
	}
}
