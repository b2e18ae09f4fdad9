package temporal

import (
	"context"
	"errors"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// modelInput is a model turn's activity argument.
type modelInput struct {
	Turn     int
	Messages []llmstream.Message
	// LastFailure is the run's repeated-failure key (see State).
	LastFailure string
}

// modelOutput is what a model turn puts in history: the materialized
// message and its description (which Message's JSON leaves out), and, for a
// turn with calls, agentloop's judgement of them.
type modelOutput struct {
	Message      llmstream.Message
	Usage        *llmstream.Usage
	FinishReason string
	StopReason   llmstream.StopReason
	// Verdict is agentloop's judgement of the calls.
	Verdict verdict
}

// answer is the tool message for one call.
type answer struct {
	Content string
	IsError bool
}

// activities are the agent's two activities, bound to the worker's Agent.
type activities struct {
	agent Agent
}

// model streams one turn. Deltas go to the Agent's OnDelta and, as the
// text so far, into heartbeats; the message alone is returned.
func (a *activities) model(ctx context.Context, in modelInput) (modelOutput, error) {
	if a.agent.Model == nil {
		return modelOutput{}, sdktemporal.NewNonRetryableApplicationError(ErrNoModel.Error(), ErrTypeModel, nil)
	}
	if err := a.toolsProblem(ctx); err != nil {
		return modelOutput{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), ErrTypeModel, nil)
	}
	b := startBeat(ctx)
	defer b.end()
	follow := a.follower(ctx, b, in.Turn)
	req := a.agent.Request
	req.Messages = in.Messages
	req.Tools = schemas(a.agent.Tools)
	req.OnDelta = func(d llmstream.Delta) error {
		follow(d)
		return nil
	}
	msg, err := a.agent.Model.Stream(ctx, req)
	var tce *llmstream.ToolCallsError
	if err != nil && !errors.As(err, &tce) {
		return modelOutput{}, classify(err)
	}
	out := modelOutput{Message: msg, Usage: msg.Usage, FinishReason: msg.FinishReason, StopReason: msg.StopReason}
	if tce != nil {
		out.Message.ToolCalls = tce.Calls
	}
	if out.Message.Role == "" {
		out.Message.Role = "assistant"
	}
	out.Verdict, err = a.check(ctx, out.Message, err, in.LastFailure)
	if err != nil {
		return modelOutput{}, sdktemporal.NewNonRetryableApplicationError(err.Error(), ErrTypeModel, nil)
	}
	return out, nil
}

// schemas returns the tools as offered to the model.
func schemas(tools []agentloop.Tool) []llmstream.Tool {
	out := make([]llmstream.Tool, len(tools))
	for i, t := range tools {
		out[i] = t.Schema()
	}
	return out
}
