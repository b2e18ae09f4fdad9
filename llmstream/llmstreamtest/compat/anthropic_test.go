package compat

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
)

// anthropicTurn adds reasoning to the tool turn: a thinking block with a
// signature that the SDK must keep.
var anthropicTurn = func() llmstreamtest.Turn {
	t := toolTurn
	t.Reasoning = "Two files — read both."
	t.Signature = "c2lnbmF0dXJlLWZvci1jb21wYXQ="
	return t
}()

// TestAnthropicSDK: anthropic-sdk-go streams llmstreamtest's Anthropic wire
// and assembles the same message airlock does.
func TestAnthropicSDK(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(anthropicTurn, anthropicTurn))
	client := anthropic.NewClient(
		option.WithBaseURL(srv.URL+"/"),
		option.WithAPIKey("sk-ant-test"),
		option.WithHTTPClient(srv.Client()),
		option.WithMaxRetries(0),
	)
	stream := client.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is in go.mod?"))},
		Tools: []anthropic.ToolUnionParam{
			{OfTool: &anthropic.ToolParam{Name: "read_file", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"path": map[string]any{"type": "string"}}}}},
			{OfTool: &anthropic.ToolParam{Name: "list_dir", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"dir": map[string]any{"type": "string"}}}}},
		},
	})
	msg := anthropic.Message{}
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	var got result
	var thinking, signature string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			got.Content += b.Text
		case "tool_use":
			var args any
			if err := json.Unmarshal(b.Input, &args); err != nil {
				t.Fatalf("tool_use %s input %s: %v", b.ID, b.Input, err)
			}
			compact, _ := json.Marshal(args)
			got.Calls = append(got.Calls, call{b.ID, b.Name, string(compact)})
		case "thinking":
			thinking, signature = b.Thinking, b.Signature
		}
	}
	got.Finish = string(msg.StopReason)
	wantSDK := want
	wantSDK.Finish = "tool_use"
	if diff := cmp.Diff(wantSDK, got, cmp.Comparer(jsonText)); diff != "" {
		t.Errorf("anthropic-sdk-go assembled (-want +got):\n%s", diff)
	}
	if thinking != anthropicTurn.Reasoning || signature != anthropicTurn.Signature {
		t.Errorf("thinking %q, signature %q", thinking, signature)
	}
	r := srv.Requests()[0]
	// This SDK version sends the key as a bearer token and its own newer
	// anthropic-version; the server takes either form.
	key := r.Header.Get("X-Api-Key") == "sk-ant-test" || r.Header.Get("Authorization") == "Bearer sk-ant-test"
	if r.Err != nil || r.Method != http.MethodPost || r.Path != "/v1/messages" || r.Model != "claude-test" || !r.Stream || !key || len(r.Tools) != 2 || len(r.Messages) != 1 {
		t.Errorf("request: err %v, %s %s, model %q, stream %v, key sent %v, %d tools, %d messages", r.Err, r.Method, r.Path, r.Model, r.Stream, key, len(r.Tools), len(r.Messages))
	}

	// airlock on the same wire assembles the same message.
	m, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client())).Stream(context.Background(), llmstream.Request{Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	var mine result
	mine.Content, mine.Finish = m.Content, m.FinishReason
	for _, c := range m.ToolCalls {
		mine.Calls = append(mine.Calls, call{c.ID, c.Function.Name, c.Function.Arguments})
	}
	if diff := cmp.Diff(got, mine, cmp.Comparer(jsonText)); diff != "" || m.Reasoning != thinking {
		t.Errorf("airlock and anthropic-sdk-go differ (-sdk +airlock):\n%s", diff)
	}
}

// jsonText compares strings as JSON values when both are JSON, else as text.
func jsonText(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return a == b
	}
	return cmp.Equal(va, vb)
}
