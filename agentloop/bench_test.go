package agentloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

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

// BenchmarkParallelTools: one turn of four calls that each sleep 100 ms,
// run one at a time and four at once. ns/op is the run's wall time.
func BenchmarkParallelTools(b *testing.B) {
	sleep := agentloop.Tool{Name: "sleep", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		select {
		case <-time.After(100 * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}}
	turn := llmstream.Message{Role: "assistant"}
	for i := range 4 {
		turn.ToolCalls = append(turn.ToolCalls, llmstream.ToolCall{ID: fmt.Sprint("c", i), Function: llmstream.FunctionCall{Name: "sleep", Arguments: `{}`}})
	}
	model := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		if len(r.Messages) > 1 {
			return llmstream.Message{Role: "assistant", Content: "done"}, nil
		}
		return turn, nil
	})
	for _, width := range []int{1, 4} {
		b.Run(fmt.Sprintf("ParallelTools=%d", width), func(b *testing.B) {
			loop := agentloop.Loop{Model: model, Tools: []agentloop.Tool{sleep}, ParallelTools: width}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "go"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTurnOverhead: what the loop adds to a model call, per turn. A
// run of 10 turns of one call each through the loop, against the same 10
// model calls and tool runs made by hand (the conversation grown with
// append, the request built once per turn); the difference over 10 is the
// loop's cost per turn.
func BenchmarkTurnOverhead(b *testing.B) {
	const turns = 10
	tool := agentloop.Tool{Name: "t", Run: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}
	turn := llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "a", Function: llmstream.FunctionCall{Name: "t", Arguments: `{}`}}}}
	done := llmstream.Message{Role: "assistant", Content: "done"}
	model := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		if len(r.Messages) >= 1+2*(turns-1) {
			return done, nil
		}
		return turn, nil
	})
	in := []llmstream.Message{{Role: "user", Content: "go"}}
	b.Run("loop", func(b *testing.B) {
		loop := agentloop.Loop{Model: model, Tools: []agentloop.Tool{tool}}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := loop.Run(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		tools := []llmstream.Tool{tool.Schema()}
		b.ReportAllocs()
		for b.Loop() {
			msgs := append([]llmstream.Message(nil), in...)
			for {
				m, err := model.Stream(context.Background(), llmstream.Request{Messages: msgs, Tools: tools})
				if err != nil {
					b.Fatal(err)
				}
				msgs = append(msgs, m)
				if len(m.ToolCalls) == 0 {
					break
				}
				for _, c := range m.ToolCalls {
					out, _ := tool.Run(context.Background(), json.RawMessage(c.Function.Arguments))
					msgs = append(msgs, llmstream.Message{Role: "tool", ToolCallID: c.ID, Content: out})
				}
			}
		}
	})
}
