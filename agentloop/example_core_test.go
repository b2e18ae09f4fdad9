package agentloop_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// A driver of its own takes a turn through the Core's steps: here the
// model's message is given, and the calls run one by one; a durable host
// would make the model call and each Dispatch a step of its own.
func ExampleCore() {
	loop := agentloop.Loop{Tools: []agentloop.Tool{{Name: "add", Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var in struct{ A, B int }
		err := json.Unmarshal(args, &in)
		return fmt.Sprint(in.A + in.B), err
	}}}}
	core, err := loop.Core()
	if err != nil {
		panic(err)
	}
	st := agentloop.State{Messages: []llmstream.Message{{Role: "user", Content: "2+3, and 4+4?"}}}
	if _, err := core.Next(&st); err != nil { // the request to send
		panic(err)
	}
	msg := llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{
		{ID: "c1", Function: llmstream.FunctionCall{Name: "add", Arguments: `{"A":2,"B":3}`}},
		{ID: "c2", Function: llmstream.FunctionCall{Name: "add", Arguments: `{"A":4,"B":4}`}},
	}}
	t, err := core.Plan(&st, msg, nil)
	if err != nil || t.Answered {
		panic(err)
	}
	for i, call := range t.Calls {
		if t.Runs(i) {
			t.Answers[i] = core.Dispatch(context.Background(), call)
		}
	}
	fmt.Println(core.Finish(&st, t))
	for _, a := range t.Answers {
		fmt.Println(a.Call.ID, a.Outcome, a.Content)
	}
	fmt.Println(len(st.Messages), "messages,", st.Turns, "turn")
	// Output:
	// <nil>
	// c1 ran 5
	// c2 ran 8
	// 4 messages, 1 turn
}
