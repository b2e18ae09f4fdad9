package temporal

import (
	"context"
	"errors"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// modelInput is a model turn's activity argument.
type modelInput struct {
	Turn     int
	Messages []llmstream.Message
}

// modelOutput is what a model turn puts in history: the materialized
// message and its description (which Message's JSON leaves out), and, for a
// turn whose calls may not run, agentloop's answers to them.
type modelOutput struct {
	Message      llmstream.Message
	Usage        *llmstream.Usage
	FinishReason string
	StopReason   llmstream.StopReason
	// Invalid holds one answer per call when a call of the turn is
	// invalid (an unknown tool, arguments that are not one JSON object):
	// then no call runs and these answers go back to the model.
	Invalid []answer
	// Approval says, per call, whether it waits for a person's decision.
	Approval []bool
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
	msg, err := stream(ctx, a.agent.Model, req)
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
	out.Invalid = a.check(ctx, out.Message, err)
	if out.Invalid == nil {
		out.Approval = a.approval(out.Message.ToolCalls)
	}
	return out, nil
}

// stream calls the model with a whole request.
func stream(ctx context.Context, m agentloop.Model, req llmstream.Request) (llmstream.Message, error) {
	if rm, ok := m.(agentloop.RequestModel); ok {
		return rm.Stream(ctx, req)
	}
	return m.Complete(ctx, req.Messages, req.Tools)
}

// schemas returns the tools as offered to the model.
func schemas(tools []agentloop.Tool) []llmstream.Tool {
	out := make([]llmstream.Tool, len(tools))
	for i, t := range tools {
		out[i] = t.Schema()
	}
	return out
}

// approval says, per call, whether its tool needs a person's decision.
func (a *activities) approval(calls []llmstream.ToolCall) []bool {
	var need []bool
	for i, c := range calls {
		for _, t := range a.agent.Tools {
			if t.Name == c.Function.Name && needsApproval(t) {
				if need == nil {
					need = make([]bool, len(calls))
				}
				need[i] = true
			}
		}
	}
	return need
}
