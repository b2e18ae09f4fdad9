package mcp_test

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// call is one tool call a scripted model makes.
type call struct{ name, args string }

// scriptedModel answers the turns of a run in order: each turn's calls,
// then, when the script is done, a final message whose text lists the
// tool results it saw. It is the one place the tests depend on the
// Model interface's shape.
func scriptedModel(turns ...[]call) agentloop.Model {
	turn := 0
	return agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
		if turn == len(turns) {
			return llmstream.Message{Role: "assistant", Content: "done"}, nil
		}
		m := llmstream.Message{Role: "assistant"}
		for i, c := range turns[turn] {
			m.ToolCalls = append(m.ToolCalls, llmstream.ToolCall{
				ID: fmt.Sprintf("c%d_%d", turn, i), Type: "function",
				Function: llmstream.FunctionCall{Name: c.name, Arguments: c.args},
			})
		}
		turn++
		return m, nil
	})
}
