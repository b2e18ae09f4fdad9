package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

// TestSameAsAgentloop runs the same scripts through the plain
// agentloop.Loop (answering invalid calls, as the workflow always does) and
// through the workflow: the conversations and the stop must be the same,
// whatever the workflow re-expresses (caps, fan-out, failure rules).
func TestSameAsAgentloop(t *testing.T) {
	call := func(id, name, args string) llmstreamtest.Call {
		return llmstreamtest.Call{ID: id, Name: name, Arguments: args}
	}
	calls := func(cs ...llmstreamtest.Call) llmstreamtest.Turn { return llmstreamtest.Turn{ToolCalls: cs} }
	answer := llmstreamtest.Turn{Text: "done"}
	tests := []struct {
		name  string
		turns []llmstreamtest.Turn
		opts  Options
	}{
		{"two turns of calls", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"1"}`), call("b", "echo", `{"text":"2"}`)),
			calls(call("c", "echo", `{"text":"3"}`)), answer}, Options{}},
		{"recoverable failure amid calls", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"1"}`), call("b", "soft", `{}`), call("c", "echo", `{"text":"3"}`)), answer}, Options{}},
		{"fatal failure amid calls", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"1"}`), call("b", "hard", `{}`), call("c", "echo", `{"text":"3"}`)), answer}, Options{}},
		// With a fatal failure in parallel, whether a sibling finished or
		// was cancelled first is a race in both; a recoverable one is not.
		{"recoverable failure, parallel", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"1"}`), call("b", "soft", `{}`), call("c", "echo", `{"text":"3"}`)), answer}, Options{ParallelTools: 3}},
		{"recoverable failure repeated", []llmstreamtest.Turn{
			calls(call("a", "soft", `{}`)), calls(call("b", "soft", `{}`)), answer}, Options{}},
		{"invalid, then valid", []llmstreamtest.Turn{
			calls(call("a", "nope", `{}`), call("b", "echo", `{"text":"2"}`)),
			calls(call("c", "echo", `{"text":"3"}`)), answer}, Options{}},
		{"per-turn cap", []llmstreamtest.Turn{
			calls(call("a", "echo", `{}`), call("b", "echo", `{}`), call("c", "echo", `{}`)), answer}, Options{MaxToolCallsPerTurn: 2}},
		{"total cap", []llmstreamtest.Turn{
			calls(call("a", "echo", `{}`)), calls(call("b", "echo", `{}`), call("c", "echo", `{}`)), answer}, Options{MaxTotalToolCalls: 2}},
		{"turn cap", []llmstreamtest.Turn{
			calls(call("a", "echo", `{}`)), calls(call("b", "echo", `{}`)), answer}, Options{MaxTurns: 2}},
		{"output cut", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"a long line of output"}`)), answer}, Options{MaxToolOutputBytes: 8}},
		// Each echo answer is about 60 bytes: the budget drops the oldest
		// outputs from the third turn on, then cannot fit at all.
		{"context budget reached", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"`+strings.Repeat("a", 50)+`"}`)),
			calls(call("b", "echo", `{"text":"`+strings.Repeat("b", 50)+`"}`)),
			calls(call("c", "echo", `{"text":"`+strings.Repeat("c", 50)+`"}`)),
			calls(call("d", "echo", `{"text":"`+strings.Repeat("d", 400)+`"}`)), answer}, Options{MaxContextBytes: 400}},
		{"duplicate ids", []llmstreamtest.Turn{
			calls(call("a", "echo", `{"text":"1"}`), call("a", "echo", `{"text":"2"}`)), answer}, Options{}},
		{"denied and allowed", []llmstreamtest.Turn{
			calls(call("a", "gated", `{"text":"1"}`), call("b", "gated", `{"text":"2"}`)), answer}, Options{}},
	}
	gated := echoTool("gated", &journal{})
	gated.NeedsApproval = true
	tools := func() []agentloop.Tool {
		var j journal
		return []agentloop.Tool{
			echoTool("echo", &j),
			{Name: "soft", Run: func(context.Context, json.RawMessage) (string, error) {
				return "", agentloop.Recoverable(errors.New("no such file"))
			}},
			{Name: "hard", Run: func(context.Context, json.RawMessage) (string, error) {
				return "", errors.New("disk full")
			}},
			gated,
		}
	}
	// The same decisions both ways: a denies, b allows.
	decide := func(c agentloop.Call) agentloop.Decision {
		if c.ID == "a" {
			return agentloop.Decision{Verdict: agentloop.Deny, Reason: "no"}
		}
		return agentloop.Decision{Verdict: agentloop.Allow}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, _ := newModel(t, llmstreamtest.WithTurns(tt.turns...))
			loop := agentloop.Loop{Model: model, Tools: tools(), AnswerInvalidCalls: true,
				MaxTurns: tt.opts.MaxTurns, MaxToolCallsPerTurn: tt.opts.MaxToolCallsPerTurn,
				MaxTotalToolCalls: tt.opts.MaxTotalToolCalls, MaxToolOutputBytes: tt.opts.MaxToolOutputBytes,
				MaxContextBytes: tt.opts.MaxContextBytes, ParallelTools: tt.opts.ParallelTools,
				Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) { return decide(c), nil }}
			res, loopErr := loop.Run(context.Background(), user("go"))
			if tt.opts.MaxContextBytes > 0 && (!errors.Is(loopErr, agentloop.ErrContextBudget) || res.DroppedToolOutputs == 0) {
				t.Fatalf("the budget was not reached: %v, %d outputs dropped", loopErr, res.DroppedToolOutputs)
			}

			model, _ = newModel(t, llmstreamtest.WithTurns(tt.turns...))
			env := newEnv(t, Agent{Model: model, Tools: tools()})
			env.RegisterDelayedCallback(func() {
				v, err := env.QueryWorkflow(QueryPending)
				var pending []agentloop.Call
				if err == nil {
					err = v.Get(&pending)
				}
				if err != nil {
					t.Error(err)
				}
				for _, c := range pending {
					env.UpdateWorkflow(UpdateDecide, c.ID, &updateCallbacks{reject: func(err error) { t.Error(err) }, complete: func(any, error) {}},
						decision{CallID: c.ID, Decision: decide(c)})
				}
			}, time.Minute)
			st, err := execute(t, env, input{Options: tt.opts, State: agentloop.State{Messages: user("go")}})
			if err != nil {
				st = runError(t, err).state
			}
			if diff := cmp.Diff(res.Messages, st.Messages); diff != "" {
				t.Errorf("conversation (-agentloop +workflow):\n%s", diff)
			}
			if diff := cmp.Diff(res.State, st); diff != "" {
				t.Errorf("state (-agentloop +workflow):\n%s", diff)
			}
			if (loopErr == nil) != (err == nil) {
				t.Errorf("agentloop stopped with %v, the workflow with %v", loopErr, err)
			}
			for _, sentinel := range []error{agentloop.ErrMaxTurns, agentloop.ErrTurnToolLimit, agentloop.ErrTotalToolLimit, agentloop.ErrRepeatedFailure, agentloop.ErrContextBudget} {
				if err != nil && errors.Is(loopErr, sentinel) != errors.Is(runError(t, err), sentinel) {
					t.Errorf("agentloop stopped with %v, the workflow with %v", loopErr, err)
				}
			}
			if res.Turns != st.Turns || res.ToolCalls != st.ToolCalls {
				t.Errorf("turns and calls: agentloop %d, %d; workflow %d, %d", res.Turns, res.ToolCalls, st.Turns, st.ToolCalls)
			}
		})
	}
}
