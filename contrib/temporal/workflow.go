package temporal

import (
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the run's query and update handlers.
const (
	// QueryPending lists the calls waiting for a decision ([]agentloop.Call).
	QueryPending = "airlock.pending"
	// QueryState returns the run's [State] so far.
	QueryState = "airlock.state"
	// UpdateDecide decides one waiting call ([Run.Decide]).
	UpdateDecide = "airlock.decide"
)

// Error types of a failed run (temporal.ApplicationError.Type) that are
// not a model turn's ([ErrTypeModel]) or a tool's.
const errTypeOptions = "airlock.options"

// runWorkflow is the agent loop as a workflow. Its code must stay
// deterministic: no clock, no random ids, no map ranging, no goroutines but
// workflow.Go; everything that touches the world is an activity.
func runWorkflow(ctx workflow.Context, in input) (State, error) {
	w := &run{ctx: ctx, o: in.Options.settled(), st: in.State, name: workflow.GetInfo(ctx).WorkflowType.Name}
	if err := w.o.check(); err != nil {
		return w.st, w.fail(err)
	}
	if err := w.handle(); err != nil {
		return w.st, err
	}
	startTurns := w.st.Turns
	for {
		if w.st.Turns > startTurns && w.longHistory() {
			// Between two turns nothing waits, so the state is all there
			// is; updates still running finish first.
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return w.st, err
			}
			next := w.st
			next.Continued++
			return w.st, workflow.NewContinueAsNewError(ctx, w.name, input{Options: in.Options, State: next})
		}
		done, err := w.turn()
		if err != nil || done {
			return w.st, err
		}
	}
}

// run is one workflow execution's state.
type run struct {
	ctx     workflow.Context
	o       Options
	st      State
	name    string
	pending []agentloop.Call
	// decided holds the decision for pending[i], nil until it arrives.
	decided []*agentloop.Decision
}

// longHistory reports whether the run should continue as new.
func (w *run) longHistory() bool {
	info := workflow.GetInfo(w.ctx)
	return info.GetContinueAsNewSuggested() ||
		w.o.MaxHistoryEvents >= 0 && info.GetCurrentHistoryLength() >= w.o.MaxHistoryEvents
}

// turn makes one model turn and answers its calls; done is true when the
// model answered without calls.
func (w *run) turn() (done bool, err error) {
	turn := w.st.Turns + 1
	if w.o.MaxTurns >= 0 && turn > w.o.MaxTurns {
		return false, w.fail(&agentloop.LimitError{Err: agentloop.ErrMaxTurns, Turn: turn, Value: turn - 1, Limit: w.o.MaxTurns})
	}
	actx := workflow.WithActivityOptions(w.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.o.ModelTimeout,
		HeartbeatTimeout:    w.o.HeartbeatTimeout,
		RetryPolicy:         w.o.ModelRetry,
	})
	var out modelOutput
	w.st.Turns = turn
	err = workflow.ExecuteActivity(actx, w.name+modelSuffix, modelInput{Turn: turn, Messages: w.st.Messages, LastFailure: w.st.LastFailure}).Get(actx, &out)
	if w.ctx.Err() != nil {
		// The run was cancelled: it ends cancelled, not failed.
		return false, w.ctx.Err()
	}
	if err != nil {
		return false, w.failed(ErrTypeModel, fmt.Errorf("temporal: turn %d: model: %w", turn, err))
	}
	w.st.Usage.Add(out.Usage)
	w.st.Messages = append(w.st.Messages, out.Message)
	calls := out.Message.ToolCalls
	if len(calls) == 0 {
		// A paused server-side turn (Anthropic's pause_turn) goes on when
		// the conversation is sent again, as in agentloop.
		return out.StopReason != llmstream.StopPause, nil
	}
	if limit := w.o.MaxToolCallsPerTurn; limit >= 0 && len(calls) > limit {
		return false, w.refuse(calls, &agentloop.LimitError{Err: agentloop.ErrTurnToolLimit, Turn: turn, Value: len(calls), Limit: limit})
	}
	if limit := w.o.MaxTotalToolCalls; limit >= 0 && w.st.ToolCalls+len(calls) > limit {
		return false, w.refuse(calls, &agentloop.LimitError{Err: agentloop.ErrTotalToolLimit, Turn: turn, Value: w.st.ToolCalls + len(calls), Limit: limit})
	}
	w.st.ToolCalls += len(calls)
	if v := out.Verdict; v.Invalid != nil {
		for i, c := range calls {
			w.st.answer(c.ID, v.Invalid[i].Content, v.Invalid[i].IsError)
		}
		w.st.LastFailure = v.LastFailure
		if v.Repeated != "" {
			return false, w.fail(fmt.Errorf("%w: %s", agentloop.ErrRepeatedFailure, v.Repeated))
		}
		return false, nil
	}
	answers, err := w.decide(turn, calls, out.Verdict.Approval)
	if err != nil {
		return false, w.cancelled(calls, make([]callResult, len(calls)), err)
	}
	return false, w.runCalls(calls, answers)
}

// refuse answers every call "not run" and fails the run with the limit.
func (w *run) refuse(calls []llmstream.ToolCall, err *agentloop.LimitError) error {
	for _, c := range calls {
		w.st.answer(c.ID, "not run: "+err.Error(), false)
	}
	return w.fail(err)
}

// fail ends the run with err, carrying the state so far as the error's
// details.
func (w *run) fail(err error) error {
	return sdktemporal.NewNonRetryableApplicationError(err.Error(), errType(err), nil, w.st)
}

// failed ends the run with an activity's failure, kept as the cause.
func (w *run) failed(typ string, err error) error {
	var app *sdktemporal.ApplicationError
	if errors.As(err, &app) {
		typ = app.Type()
	}
	return sdktemporal.NewNonRetryableApplicationError(err.Error(), typ, err, w.st)
}
