package temporal

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// check returns agentloop's answers to the calls of msg when one of them
// may not run (an unknown tool, arguments that are not one JSON object, or
// a stream that ended with calls whose arguments are not JSON: streamErr is
// then its *llmstream.ToolCallsError), or nil when every call may run.
//
// It runs a one-turn agentloop.Loop over stand-ins of the worker's tools,
// with AnswerInvalidCalls, so the rules and the words the model reads are
// agentloop's own rather than a copy. agentloop exports no check of its own;
// a stand-in that runs is how a valid turn shows.
func (a *activities) check(ctx context.Context, msg llmstream.Message, streamErr error) []answer {
	calls := msg.ToolCalls
	if len(calls) == 0 {
		return nil
	}
	valid := false
	standIns := make([]agentloop.Tool, len(a.agent.Tools))
	for i, t := range a.agent.Tools {
		standIns[i] = agentloop.Tool{Name: t.Name, Parameters: t.Parameters, Run: func(context.Context, json.RawMessage) (string, error) {
			valid = true
			return "", nil
		}}
	}
	turn := 0
	l := agentloop.Loop{
		Model: agentloop.ModelFunc(func(context.Context, []llmstream.Message, []llmstream.Tool) (llmstream.Message, error) {
			turn++
			if turn == 1 {
				return msg, streamErr
			}
			return llmstream.Message{Role: "assistant"}, nil
		}),
		Tools: standIns, MaxTurns: 2, MaxToolCallsPerTurn: -1, MaxTotalToolCalls: -1, MaxContextBytes: -1,
		ToolTimeout: -1, AnswerInvalidCalls: true,
	}
	res, err := l.Run(ctx, []llmstream.Message{{Role: "user", Content: "check"}})
	if valid {
		return nil
	}
	out := make([]answer, len(calls))
	for i := range out {
		if 2+i >= len(res.Messages) {
			// Only an unusable tool list (agentloop.ErrInvalidLoop) stops
			// the loop before it answers; then no call can run.
			out[i] = answer{Content: fmt.Sprintf("error: the tools cannot be offered: %v", err), IsError: true}
			continue
		}
		m := res.Messages[2+i]
		out[i] = answer{Content: m.Content, IsError: m.IsError}
	}
	return out
}
