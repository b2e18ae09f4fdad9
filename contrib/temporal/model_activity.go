package temporal

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// modelInput is a model turn's activity argument.
type modelInput struct {
	Turn     int
	Messages []llmstream.Message
}

// modelOutput is what a model turn puts in history: the materialized
// message, every field of it.
type modelOutput struct {
	// Turn holds the message alone, as an agentloop.State carries it:
	// llmstream.Message's own JSON is the provider's view, without usage
	// or stop reasons.
	Turn agentloop.State
	// Invalid[i], when the stream ended properly with arguments that are
	// not JSON, says why call i's are not ("" for a valid call); nil
	// otherwise.
	Invalid []string
}

// message returns the turn's message and, for invalid JSON arguments, the
// stream's error as agentloop's Plan reads it.
func (o modelOutput) message() (msg llmstream.Message, err error) {
	if len(o.Turn.Messages) == 1 {
		msg = o.Turn.Messages[0]
	}
	if o.Invalid != nil {
		tce := &llmstream.ToolCallsError{Calls: msg.ToolCalls, Errs: make([]error, len(o.Invalid))}
		for i, why := range o.Invalid {
			if why != "" {
				tce.Errs[i] = errors.New(why)
			}
		}
		err = tce
	}
	return msg, err
}

// answer is a tool call's activity result: the tool message's content,
// and whether it reports a recoverable failure (a failure that stops the
// run is the activity's error, with the answer in its details).
type answer struct {
	Content string
	IsError bool
}

// activities are the agent's workflow and its two activities, bound to
// the worker's Agent.
type activities struct {
	agent Agent
	// hooks serializes the Agent's hooks: activities run at once.
	hooks sync.Mutex
}

// hook calls f(v), unless f is nil, one hook at a time on a's worker.
func hook[T any](a *activities, f func(T), v T) {
	if f != nil {
		a.hooks.Lock()
		defer a.hooks.Unlock()
		f(v)
	}
}

// model streams one turn. Deltas go to the Agent's OnDelta and hook and,
// as the text so far, into heartbeats; the message alone is returned.
func (a *activities) model(ctx context.Context, in modelInput) (modelOutput, error) {
	if a.agent.Model == nil {
		return modelOutput{}, sdktemporal.NewNonRetryableApplicationError(ErrNoModel.Error(), ErrTypeModel, nil)
	}
	b := startBeat(ctx)
	defer b.end()
	follow := a.follower(ctx, b, in.Turn)
	req := a.agent.Request
	req.Messages = in.Messages
	for _, t := range a.agent.Tools {
		req.Tools = append(req.Tools, t.Schema())
	}
	h := &a.agent.Hooks
	req.OnDelta = func(d llmstream.Delta) error {
		follow(d)
		hook(a, h.OnDelta, d)
		return nil
	}
	hook(a, h.BeforeModel, agentloop.ModelStart{Turn: in.Turn, Messages: in.Messages})
	start := time.Now()
	msg, err := a.agent.Model.Stream(ctx, req)
	hook(a, h.AfterModel, agentloop.ModelDone{Turn: in.Turn, Message: msg, Err: err, Duration: time.Since(start)})
	var tce *llmstream.ToolCallsError
	if err != nil && !errors.As(err, &tce) {
		return modelOutput{}, classify(err)
	}
	var out modelOutput
	if tce != nil {
		msg.ToolCalls = tce.Calls
		out.Invalid = make([]string, len(tce.Errs))
		for i, e := range tce.Errs {
			if e != nil {
				out.Invalid[i] = e.Error()
			}
		}
	}
	out.Turn.Messages = []llmstream.Message{msg}
	return out, nil
}
