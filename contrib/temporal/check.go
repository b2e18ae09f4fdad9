package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// verdict is agentloop's judgement of one turn's calls before any runs.
type verdict struct {
	// Invalid holds one answer per call when a call of the turn may not run
	// (an unknown tool, arguments that are not one JSON object): then no
	// call runs and these answers go back to the model.
	Invalid []answer
	// LastFailure is the repeated-failure key after an invalid turn.
	LastFailure string
	// Repeated is the error text when the invalid calls repeat the failure
	// just before them: the run stops.
	Repeated string
	// Approval says, per call, whether it waits for a person's decision.
	Approval []bool
}

// check judges the calls of msg as agentloop would (streamErr is the
// stream's *llmstream.ToolCallsError, if it ended with arguments that are
// not JSON; lastFailure the run's repeated-failure key).
//
// It resumes a one-turn agentloop.Loop over stand-ins of the worker's tools
// (copies whose Run does nothing), with
// AnswerInvalidCalls and an Approve that records whom it is asked about,
// so the checks, the words the model reads, the repeat rule and who needs
// approval are agentloop's own rather than a copy. agentloop exports no
// check of its own; a stand-in that runs is how a valid turn shows.
func (a *activities) check(ctx context.Context, msg llmstream.Message, streamErr error, lastFailure string) (verdict, error) {
	calls := msg.ToolCalls
	if len(calls) == 0 {
		return verdict{}, nil
	}
	valid := false
	standIns := make([]agentloop.Tool, len(a.agent.Tools))
	for i, t := range a.agent.Tools {
		// A copy keeps what agentloop checks of a tool (a NewTool's schema
		// error is unexported); only Run is replaced.
		standIns[i] = t
		if t.Run != nil {
			standIns[i].Run = func(context.Context, json.RawMessage) (string, error) {
				valid = true
				return "", nil
			}
		}
	}
	var v verdict
	turn := 0
	l := agentloop.Loop{
		Model: agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			turn++
			if turn == 1 {
				return msg, streamErr
			}
			return llmstream.Message{Role: "assistant"}, nil
		}),
		Tools: standIns, MaxTurns: 2, MaxToolCallsPerTurn: -1, MaxTotalToolCalls: -1, MaxContextBytes: -1,
		ToolTimeout: -1, AnswerInvalidCalls: true,
		Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
			if v.Approval == nil {
				v.Approval = make([]bool, len(calls))
			}
			v.Approval[c.Index] = true
			return agentloop.Decision{Verdict: agentloop.Allow}, nil
		},
	}
	start := agentloop.State{Messages: []llmstream.Message{{Role: "user", Content: "check"}}, LastFailure: lastFailure}
	res, err := l.Resume(ctx, start, nil)
	if errors.Is(err, agentloop.ErrInvalidLoop) {
		return verdict{}, fmt.Errorf("temporal: the worker's tools cannot be offered: %w", err)
	}
	if valid {
		return verdict{Approval: v.Approval}, nil
	}
	if len(res.Messages) < 2+len(calls) {
		// Only the activity's context ending stops the loop before it
		// answers the calls.
		return verdict{}, fmt.Errorf("temporal: checking the calls: %w", err)
	}
	v = verdict{Invalid: make([]answer, len(calls))}
	for i := range v.Invalid {
		m := res.Messages[2+i]
		v.Invalid[i] = answer{Content: m.Content, IsError: m.IsError}
	}
	v.LastFailure = res.State.LastFailure
	if errors.Is(err, agentloop.ErrRepeatedFailure) {
		v.Repeated = err.Error()
	}
	return v, nil
}

// toolsProblem returns agentloop's refusal of the worker's tools (a tool
// without a name or Run, a duplicate name, parameters or a NewTool input
// type that are not a JSON object's schema), nil when they are usable. It
// runs a Loop whose model answers at once, which agentloop refuses before
// calling the model when the tools are unusable: so a misconfigured worker
// fails a turn before anything is sent.
func (a *activities) toolsProblem(ctx context.Context) error {
	l := agentloop.Loop{
		Model: agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			return llmstream.Message{Role: "assistant"}, nil
		}),
		Tools: a.agent.Tools,
	}
	_, err := l.Run(ctx, []llmstream.Message{{Role: "user", Content: "check"}})
	if errors.Is(err, agentloop.ErrInvalidLoop) {
		return fmt.Errorf("temporal: the worker's tools cannot be offered: %w", err)
	}
	return nil
}
