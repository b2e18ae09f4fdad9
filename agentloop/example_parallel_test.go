package agentloop_test

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// Three reads run at once; their answers go back in the order the model
// made the calls, whatever order they finish in.
func ExampleLoop_parallelTools() {
	type pathIn struct {
		Path string `json:"path"`
	}
	read := agentloop.NewTool("read_file", "Reads a file.", func(_ context.Context, in pathIn) (string, error) {
		return "contents of " + in.Path, nil
	})
	model := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
			return llmstream.Message{Role: "assistant", Content: "read them all"}, nil
		}
		var calls []llmstream.ToolCall
		for i, p := range []string{"a.go", "b.go", "c.go"} {
			calls = append(calls, llmstream.ToolCall{ID: fmt.Sprint("c", i), Type: "function",
				Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"` + p + `"}`}})
		}
		return llmstream.Message{Role: "assistant", ToolCalls: calls}, nil
	})
	loop := agentloop.Loop{Model: model, Tools: []agentloop.Tool{read}, ParallelTools: 3,
		Hooks: agentloop.Hooks{BeforeTool: func(e agentloop.ToolStart) {
			fmt.Printf("start %s (%d running of %d)\n", e.Call.ID, e.Running, e.Batch)
		}}}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "Read a, b and c."}})
	for _, m := range res.Messages[2:5] {
		fmt.Println(m.ToolCallID, m.Content)
	}
	fmt.Println(err)
	// Output:
	// start c0 (1 running of 3)
	// start c1 (2 running of 3)
	// start c2 (3 running of 3)
	// c0 contents of a.go
	// c1 contents of b.go
	// c2 contents of c.go
	// <nil>
}
