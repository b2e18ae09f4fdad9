package aisdk_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

func call(id, name, args string) llmstream.ToolCall {
	return llmstream.ToolCall{ID: id, Type: "function", Function: llmstream.FunctionCall{Name: name, Arguments: args}}
}

// TestConversionCases: conversations through ToUIMessages and back, each
// equal to itself but for what the UI has no place for.
func TestConversionCases(t *testing.T) {
	tests := []struct {
		name string
		in   []llmstream.Message
		want []llmstream.Message // nil: in itself
	}{
		{"plain", []llmstream.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}, nil},
		{"steps and answers", []llmstream.Message{
			{Role: "user", Content: "go"},
			{Role: "assistant", Reasoning: "think", Content: "a", ToolCalls: []llmstream.ToolCall{call("1", "read", `{"p":1}`), call("2", "read", `{}`)}},
			{Role: "tool", ToolCallID: "1", Content: "one"},
			{Role: "tool", ToolCallID: "2", Content: "boom", IsError: true},
			{Role: "assistant", ToolCalls: []llmstream.ToolCall{call("3", "write", `{"q":[1,2]}`)}},
			{Role: "tool", ToolCallID: "3", Content: "denied: no"},
			{Role: "assistant", Content: "done"},
			{Role: "user", Content: "again"},
			{Role: "assistant", Content: "sure"},
		}, nil},
		{"a call not answered yet", []llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: []llmstream.ToolCall{call("1", "write", `{}`)}}}, nil},
		{"arguments spaced and empty", []llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: []llmstream.ToolCall{call("1", "a", `{ "x" : 1 }`), call("2", "b", "")}}},
			[]llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: []llmstream.ToolCall{call("1", "a", `{"x":1}`), call("2", "b", "{}")}}}},
		{"arguments not JSON", []llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: []llmstream.ToolCall{call("1", "a", `{"x":`)}}}, nil},
		{"an answer that is JSON text", []llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: []llmstream.ToolCall{call("1", "a", `{}`)}}, {Role: "tool", ToolCallID: "1", Content: `{"ok":true}`}}, nil},
		{"a refusal comes back as text", []llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", Refusal: "no"}},
			[]llmstream.Message{{Role: "user", Content: "go"}, {Role: "assistant", Content: "no"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := aisdk.FromUIMessages(aisdk.ToUIMessages(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == nil {
				want = tt.in
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFromUIMessagesInvalid(t *testing.T) {
	tests := []struct {
		name          string
		in            []aisdk.UIMessage
		message, part int
	}{
		{"unknown role", []aisdk.UIMessage{{Role: "tool"}}, 0, -1},
		{"a file in a user message", []aisdk.UIMessage{{Role: "user", Parts: []aisdk.UIPart{{Type: "text"}, {Type: "file"}}}}, 0, 1},
		{"an unknown assistant part", []aisdk.UIMessage{{Role: "user"}, {Role: "assistant", Parts: []aisdk.UIPart{{Type: "source-url"}}}}, 1, 0},
		{"tool input not JSON", []aisdk.UIMessage{{Role: "assistant", Parts: []aisdk.UIPart{{Type: "tool-a", Input: json.RawMessage(`{"x":`)}}}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := aisdk.FromUIMessages(tt.in)
			var me *aisdk.MessageError
			if !errors.Is(err, aisdk.ErrInvalidMessages) || !errors.As(err, &me) || me.Message != tt.message || me.Part != tt.part {
				t.Fatalf("err = %v, want a *MessageError at message %d part %d", err, tt.message, tt.part)
			}
		})
	}
}
