package temporal

import (
	"errors"
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Names of the run's query and update handlers.
const (
	// QueryPending lists the calls waiting for a decision ([]agentloop.Call).
	QueryPending = "airlock.pending"
	// QueryState returns the run's agentloop.State so far.
	QueryState = "airlock.state"
	// UpdateDecide decides one waiting call ([Run.Decide]).
	UpdateDecide = "airlock.decide"
)

// input is the workflow's argument: the options and the state to go on
// from, which continue-as-new carries over as they are.
type input struct {
	Options Options
	State   agentloop.State
	// Continued counts the times the run continued as new.
	Continued int
}

// workflow is a driver of agentloop's turn core. Its own code must be
// deterministic too: no clock, no random ids, no map ranging, no
// goroutines but workflow.Go.
func (a *activities) workflow(ctx workflow.Context, in input) (agentloop.State, error) {
	w := &execution{ctx: ctx, o: in.Options.settled(), st: in.State, name: workflow.GetInfo(ctx).WorkflowType.Name}
	if err := w.o.check(); err != nil {
		return w.st, w.fail(err)
	}
	// The agent's tools, request template and hooks; the options' limits.
	l := agentloop.Loop{
		Model: a.agent.Model, Tools: a.agent.Tools, Request: a.agent.Request, Hooks: a.agent.Hooks, AnswerInvalidCalls: true,
		MaxTurns: w.o.MaxTurns, MaxToolCallsPerTurn: w.o.MaxToolCallsPerTurn, MaxTotalToolCalls: w.o.MaxTotalToolCalls,
		MaxToolOutputBytes: w.o.MaxToolOutputBytes, MaxContextBytes: w.o.MaxContextBytes,
		ParallelTools: w.o.ParallelTools, ToolTimeout: w.o.ToolTimeout,
	}
	core, err := l.Core()
	if err != nil {
		return w.st, w.fail(err)
	}
	w.core, w.loop = core, core.Loop()
	if err := w.handle(); err != nil {
		return w.st, err
	}
	startTurns := w.st.Turns
	for {
		info := workflow.GetInfo(ctx)
		if w.st.Turns > startTurns && (info.GetContinueAsNewSuggested() ||
			w.o.MaxHistoryEvents >= 0 && info.GetCurrentHistoryLength() >= w.o.MaxHistoryEvents) {
			// Between two turns nothing waits, so the state is all there
			// is; updates still running finish first.
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return w.st, err
			}
			return w.st, workflow.NewContinueAsNewError(ctx, w.name, input{Options: in.Options, State: w.st, Continued: in.Continued + 1})
		}
		done, err := w.turn()
		if err != nil || done {
			return w.st, err
		}
	}
}

// execution is one workflow execution's state.
type execution struct {
	ctx  workflow.Context
	o    Options
	core *agentloop.Core
	loop agentloop.Loop // the core's, defaults resolved
	st   agentloop.State
	name string
	// open is the turn whose calls wait for decisions, nil when none waits.
	open *agentloop.Turn
}

// turn takes one turn through the core; done is true when the model
// answered without calls.
func (w *execution) turn() (done bool, err error) {
	req, err := w.core.Next(&w.st)
	if err != nil {
		return false, w.fail(err)
	}
	actx := workflow.WithActivityOptions(w.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.o.ModelTimeout,
		HeartbeatTimeout:    w.o.HeartbeatTimeout,
		RetryPolicy:         w.o.ModelRetry,
	})
	var out modelOutput
	err = workflow.ExecuteActivity(actx, w.name+modelSuffix, modelInput{Turn: w.st.Turns, Messages: req.Messages}).Get(actx, &out)
	if w.ctx.Err() != nil {
		// The run was cancelled: it ends cancelled, not failed.
		return false, w.ctx.Err()
	}
	if err != nil {
		return false, w.failed(ErrTypeModel, fmt.Sprintf("temporal: turn %d: model", w.st.Turns), err)
	}
	msg, streamErr := out.message()
	t, err := w.core.Plan(&w.st, msg, streamErr)
	if err != nil {
		return false, w.fail(err)
	}
	if t.Answered {
		return t.Done, nil
	}
	// Every call that needs a decision waits for one (an Update), Wait
	// keeping those still waiting in the State for the queries; as in
	// agentloop, none runs before all are decided.
	w.open = t
	err = workflow.Await(w.ctx, func() bool { return w.core.Wait(&w.st, t) == nil })
	w.open = nil
	if err != nil {
		// Cancelled while waiting: every call is answered "not run".
		_ = w.core.Finish(&w.st, t)
		return false, err
	}
	err = w.runCalls(t)
	switch {
	case w.ctx.Err() != nil:
		return false, w.ctx.Err()
	case errors.Is(err, agentloop.ErrRepeatedFailure):
		return false, w.fail(err)
	case err != nil:
		return false, w.failed(errTypeTool, fmt.Sprintf("temporal: turn %d: tool", t.Number), err)
	}
	return false, nil
}

// fail ends the run with err, carrying the state so far as the error's
// details.
func (w *execution) fail(err error) error {
	return sdktemporal.NewNonRetryableApplicationError(err.Error(), errType(err), nil, w.st)
}

// failed ends the run with an activity's failure, kept as the cause (so
// its text is said once, by the cause), under msg.
func (w *execution) failed(typ, msg string, err error) error {
	var app *sdktemporal.ApplicationError
	if errors.As(err, &app) {
		typ = app.Type()
	}
	return sdktemporal.NewNonRetryableApplicationError(msg, typ, err, w.st)
}
