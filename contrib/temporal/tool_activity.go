package temporal

import (
	"context"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// toolInput is a tool call's activity argument.
type toolInput struct {
	Call           agentloop.Call
	MaxOutputBytes int
	Timeout        time.Duration
}

// errTypeTool is the ApplicationError type of a tool call that failed the
// run (agentloop's *ToolError: the tool's error, a timeout, a panic).
const errTypeTool = "airlock.tool"

// tool runs one call with agentloop's Core.Dispatch. A recoverable
// failure is a result (the model reads it); any other is a non-retryable
// error whose details hold the answer: a tool that failed may have done
// part of its work. Only the activity's context ending is retried.
func (a *activities) tool(ctx context.Context, in toolInput) (answer, error) {
	b := startBeat(ctx)
	defer b.end()
	l := agentloop.Loop{Tools: a.agent.Tools, MaxToolOutputBytes: in.MaxOutputBytes, ToolTimeout: in.Timeout}
	core, err := l.Core()
	if err != nil {
		return answer{}, sdktemporal.NewNonRetryableApplicationError("temporal: the call was not run: "+err.Error(), errTypeTool, nil)
	}
	h := &a.agent.Hooks
	call := llmstream.ToolCall{ID: in.Call.ID, Type: "function", Function: llmstream.FunctionCall{Name: in.Call.Name, Arguments: in.Call.Arguments}}
	hook(a, h.BeforeTool, agentloop.ToolStart{Turn: in.Call.Turn, Index: in.Call.Index, Call: call})
	ans := core.Dispatch(ctx, in.Call)
	if ctx.Err() != nil {
		return answer{}, ctx.Err()
	}
	hook(a, h.AfterTool, agentloop.ToolDone{Turn: in.Call.Turn, Index: in.Call.Index, Call: call, Content: ans.Content,
		OutputBytes: ans.OutputBytes, CutBytes: ans.CutBytes, Err: ans.Err, Duration: ans.Duration, Outcome: ans.Outcome})
	out := answer{Content: ans.Content, IsError: ans.Outcome != agentloop.Ran}
	if ans.Outcome == agentloop.Failed {
		return answer{}, sdktemporal.NewNonRetryableApplicationError(ans.Err.Error(), errTypeTool, nil, out)
	}
	return out, nil
}
