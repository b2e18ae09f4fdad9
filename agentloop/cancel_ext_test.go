package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// A run cancelled at any step stops with the context's error, every call
// it made answered, and its State goes on with Resume to the same end; no
// call runs twice.
func TestCancelAtEveryStep(t *testing.T) {
	steps := []string{"before model", "in model", "in approve", "in tool a", "after tool a", "in tool b", "after turn"}
	for _, step := range steps {
		for _, parallel := range []int{1, 2} {
			t.Run(step+map[int]string{1: "", 2: ", parallel"}[parallel], func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				at := func(s string) {
					if s == step {
						cancel()
					}
				}
				r := &ran{}
				tool := func(name string) agentloop.Tool {
					return agentloop.Tool{Name: name, NeedsApproval: name == "b", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
						at("in tool " + name)
						r.add(name)
						return name + " ok", nil
					}}
				}
				turn := 0
				model := agentloop.ModelFunc(func(ctx context.Context, req llmstream.Request) (llmstream.Message, error) {
					turn++
					if turn == 1 {
						at("in model")
					}
					if err := ctx.Err(); err != nil {
						return llmstream.Message{}, err
					}
					if turn == 1 {
						return asst("", call("a", "a", `{}`), call("b", "b", `{}`)), nil
					}
					return asst("done"), nil
				})
				l := agentloop.Loop{Model: model, Tools: []agentloop.Tool{tool("a"), tool("b")}, ParallelTools: parallel,
					Approve: func(ctx context.Context, c agentloop.Call) (agentloop.Decision, error) {
						at("in approve")
						return agentloop.Decision{Verdict: agentloop.Allow}, ctx.Err()
					},
					Hooks: agentloop.Hooks{
						BeforeModel: func(e agentloop.ModelStart) {
							if e.Turn == 1 {
								at("before model")
							} else {
								at("after turn")
							}
						},
						AfterTool: func(e agentloop.ToolDone) { at("after tool " + e.Call.ID) },
					}}
				res, err := l.Run(ctx, user)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err %v, want context.Canceled", err)
				}
				checkAllAnswered(t, res.Messages)
				res2, err := l.Resume(context.Background(), throughJSON(t, res.State), nil)
				if err != nil {
					t.Fatalf("Resume: %v", err)
				}
				checkAllAnswered(t, res2.Messages)
				if last := res2.Messages[len(res2.Messages)-1]; last.Content != "done" {
					t.Errorf("the resumed run ends with %+v", last)
				}
				seen := map[string]int{}
				for _, id := range r.ids {
					if seen[id]++; seen[id] > 1 {
						t.Errorf("call %s ran twice: %v", id, r.ids)
					}
				}
			})
		}
	}
}
