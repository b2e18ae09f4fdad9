package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// toolInput is a tool call's activity argument.
type toolInput struct {
	Call           llmstream.ToolCall
	MaxOutputBytes int
	Timeout        time.Duration
}

// errTypeTool is the ApplicationError type of a tool call that failed the
// run (agentloop's *ToolError: the tool's error, a timeout, a panic).
const errTypeTool = "airlock.tool"

// tool runs one call through a one-call agentloop.Loop over the worker's
// tools, so the argument check, timeout, panic recovery, recoverable errors
// and output cut are agentloop's own. A recoverable failure is a result
// (the model reads it); any other failure is a non-retryable error whose
// details hold the answer, since a tool that failed may have done part of
// its work and is not run again. Only a lost worker or a cancellation —
// the activity's context ending — leads Temporal to retry the call.
func (a *activities) tool(ctx context.Context, in toolInput) (answer, error) {
	b := startBeat(ctx)
	defer b.end()
	turn := 0
	l := agentloop.Loop{
		Model: agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			turn++
			if turn == 1 {
				return llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{in.Call}}, nil
			}
			return llmstream.Message{Role: "assistant"}, nil
		}),
		Tools: a.agent.Tools, MaxTurns: 2, MaxContextBytes: -1,
		MaxToolOutputBytes: in.MaxOutputBytes, ToolTimeout: in.Timeout,
	}
	res, err := l.Run(ctx, []llmstream.Message{{Role: "user", Content: "run"}})
	if ctx.Err() != nil {
		return answer{}, ctx.Err()
	}
	if len(res.Messages) < 3 {
		// Only an unusable tool list (agentloop.ErrInvalidLoop) stops the
		// loop before the call is answered.
		return answer{}, sdktemporal.NewNonRetryableApplicationError(fmt.Sprint("temporal: the call was not run: ", err), errTypeTool, nil)
	}
	ans := answer{Content: res.Messages[2].Content, IsError: res.Messages[2].IsError || err != nil}
	if err != nil {
		return answer{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), errTypeTool, nil, ans)
	}
	return ans, nil
}

// toolFailure returns the answer a failed tool activity carried and
// whether err is such a failure.
func toolFailure(err error) (answer, bool) {
	var app *sdktemporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != errTypeTool {
		return answer{}, false
	}
	var ans answer
	if app.HasDetails() && app.Details(&ans) == nil {
		return ans, true
	}
	return answer{Content: "error: " + app.Error(), IsError: true}, true
}
