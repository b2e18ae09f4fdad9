package agentloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// A *llmstream.Client is the Model: the loop streams each turn (text is
// printed as it arrives through OnDelta) and runs the tool calls of the
// materialized message. The fake server stands in for any
// OpenAI-compatible endpoint.
func ExampleLoop_Run_client() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(
		llmstreamtest.Turn{Text: "Checking. ", ToolCalls: []llmstreamtest.Call{{Name: "time", Arguments: `{"zone":"UTC"}`}}},
		llmstreamtest.Turn{Text: "It is noon."},
	))
	defer srv.Close()

	loop := agentloop.Loop{
		Model: llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithModel("m")),
		Tools: []agentloop.Tool{{Name: "time", Run: func(context.Context, json.RawMessage) (string, error) { return "12:00", nil }}},
		Hooks: agentloop.Hooks{OnDelta: func(d llmstream.Delta) {
			if d.Kind == llmstream.DeltaText {
				fmt.Fprint(os.Stdout, d.Text)
			}
		}},
	}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "What time is it?"}})
	fmt.Printf("\n%d turns, %d tool call, err %v\n", res.Turns, res.ToolCalls, err)
	// Output:
	// Checking. It is noon.
	// 2 turns, 1 tool call, err <nil>
}
