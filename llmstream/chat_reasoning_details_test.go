package llmstream

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestChatReasoningDetailsRoundTrip: the encrypted reasoning an
// OpenRouter-style stream sends in reasoning_details goes back, as
// OpenRouter documents, on the assistant message's reasoning_details, each
// entry unchanged; a message with none sends no such member.
func TestChatReasoningDetailsRoundTrip(t *testing.T) {
	m, err := ReadMessage(bytes.NewReader(readTestdata(t, "providers/openrouter_reasoning_details.sse")))
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Model: "anthropic/claude-sonnet-4.5", Messages: []Message{
		{Role: "user", Content: "Weather in Lyon?"}, m,
		{Role: "tool", ToolCallID: "toolu_1", Content: "sunny"},
		{Role: "assistant", Content: "plain"},
	}}
	body, err := chatProtocol{}.encode(&req, &config{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages []struct {
			Role             string            `json:"role"`
			ReasoningDetails []json.RawMessage `json:"reasoning_details"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"reasoning.encrypted","data":"EqQBCkgIBxABGAIqQKz4opaque==","id":"rs_1","format":"anthropic-claude-v1","index":1}`
	if d := got.Messages[1].ReasoningDetails; len(d) != 1 || string(d[0]) != want {
		t.Fatalf("assistant reasoning_details = %s; want [%s]", d, want)
	}
	for _, i := range []int{0, 2, 3} {
		if got.Messages[i].ReasoningDetails != nil {
			t.Errorf("message %d has reasoning_details", i)
		}
	}
}
