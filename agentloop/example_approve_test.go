package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// deleteModel asks to delete a file, then says what happened.
func deleteModel(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
	if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
		return llmstream.Message{Role: "assistant", Content: "The tool said: " + last.Content}, nil
	}
	return llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "c1", Type: "function",
		Function: llmstream.FunctionCall{Name: "delete_file", Arguments: `{"path":"go.mod"}`}}}}, nil
}

var deleteFile = agentloop.Tool{
	Name: "delete_file", NeedsApproval: true,
	Run: func(context.Context, json.RawMessage) (string, error) { return "deleted", nil },
}

// Approve is asked before a tool with NeedsApproval runs; a denial is
// answered to the model with the reason, and the run goes on.
func ExampleLoop_approve() {
	loop := agentloop.Loop{
		Model: agentloop.ModelFunc(deleteModel),
		Tools: []agentloop.Tool{deleteFile},
		Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
			fmt.Printf("asked: %s %s\n", c.Name, c.Arguments)
			return agentloop.Decision{Verdict: agentloop.Deny, Reason: "go.mod stays"}, nil
		},
	}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "Delete go.mod."}})
	fmt.Println(res.Messages[len(res.Messages)-1].Content, err)
	// Output:
	// asked: delete_file {"path":"go.mod"}
	// The tool said: denied: go.mod stays <nil>
}

// A Pause stops the run before the call runs; its State, saved as JSON,
// goes on later — in another process, with a fresh Loop — once a person
// decided.
func ExampleLoop_Resume() {
	pause := func(context.Context, agentloop.Call) (agentloop.Decision, error) {
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	}
	loop := agentloop.Loop{Model: agentloop.ModelFunc(deleteModel), Tools: []agentloop.Tool{deleteFile}, Approve: pause}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "Delete go.mod."}})
	fmt.Println(errors.Is(err, agentloop.ErrPaused), res.Pending[0].ID, res.Pending[0].Name)
	saved, _ := json.Marshal(res.State)

	// Later: load the state, and resume with the person's decision.
	var st agentloop.State
	if err := json.Unmarshal(saved, &st); err != nil {
		fmt.Println(err)
		return
	}
	later := agentloop.Loop{Model: agentloop.ModelFunc(deleteModel), Tools: []agentloop.Tool{deleteFile}, Approve: pause}
	res, err = later.Resume(context.Background(), st, map[string]agentloop.Decision{"c1": {Verdict: agentloop.Allow}})
	fmt.Println(res.Messages[len(res.Messages)-1].Content, err)
	// Output:
	// true c1 delete_file
	// The tool said: deleted <nil>
}
