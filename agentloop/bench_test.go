package agentloop_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// BenchmarkRun measures the loop's own cost: a run of four turns, three
// with two tool calls, against a model and tools that do no work.
// SetBytes counts the tool output bytes moved.
func BenchmarkRun(b *testing.B) {
	out := string(make([]byte, 1024))
	tool := agentloop.Tool{Name: "t", Run: func(context.Context, json.RawMessage) (string, error) { return out, nil }}
	turn := llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{
		{ID: "a", Function: llmstream.FunctionCall{Name: "t", Arguments: `{"path":"a.go"}`}},
		{ID: "b", Function: llmstream.FunctionCall{Name: "t", Arguments: `{"path":"b.go"}`}},
	}}
	done := llmstream.Message{Role: "assistant", Content: "done"}
	model := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		msgs := r.Messages
		if len(msgs) >= 1+3*3 {
			return done, nil
		}
		return turn, nil
	})
	loop := agentloop.Loop{Model: model, Tools: []agentloop.Tool{tool}}
	in := []llmstream.Message{{Role: "user", Content: "go"}}
	b.SetBytes(6 * int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loop.Run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}
