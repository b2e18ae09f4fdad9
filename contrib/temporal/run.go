package temporal

import (
	"context"
	"errors"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdktemporal "go.temporal.io/sdk/temporal"
)

// Run is a started run, as its starter (or anyone with a Temporal client)
// sees it. It is a handle: a plain value, safe for concurrent use.
type Run struct {
	// ID and RunID name the workflow execution; RunID is the first
	// execution's (a continued run keeps its ID).
	ID, RunID string
	c         client.Client
}

// Errors of [Run.Decide]; nothing changes in the run.
var (
	// ErrNotPending: the call does not wait for a decision (no such call,
	// or it was decided already).
	ErrNotPending = errors.New("temporal: the call does not wait for a decision")
	// ErrInvalidVerdict: a decision must be Allow or Deny (a pending call
	// already waits; there is nothing to pause).
	ErrInvalidVerdict = errors.New("temporal: a decision must allow or deny the call")
)

// Start starts a run of the agent opts.Agent on the task queue of so, with
// messages as the conversation so far. so.ID names the run: pick one the
// caller can find again. The messages and opts go into the workflow's
// history, so nothing secret may be in them.
func Start(ctx context.Context, c client.Client, so client.StartWorkflowOptions, messages []llmstream.Message, opts Options) (Run, error) {
	settled := opts.settled()
	if err := settled.check(); err != nil {
		return Run{}, err
	}
	we, err := c.ExecuteWorkflow(ctx, so, settled.Agent, input{Options: opts, State: agentloop.State{Messages: messages}})
	if err != nil {
		return Run{}, err
	}
	return Run{ID: we.GetID(), RunID: we.GetRunID(), c: c}, nil
}

// Attach returns the Run of an existing workflow id (for another process
// than the starter: an approver, a UI).
func Attach(c client.Client, workflowID string) Run {
	return Run{ID: workflowID, c: c}
}

// Pending lists the calls waiting for a decision, in call order; empty
// when none waits.
func (r Run) Pending(ctx context.Context) ([]agentloop.Call, error) {
	v, err := r.c.QueryWorkflow(ctx, r.ID, "", QueryPending)
	if err != nil {
		return nil, err
	}
	var p []agentloop.Call
	return p, v.Get(&p)
}

// State returns the run's state so far: the conversation up to the last
// finished step.
func (r Run) State(ctx context.Context) (agentloop.State, error) {
	v, err := r.c.QueryWorkflow(ctx, r.ID, "", QueryState)
	if err != nil {
		return agentloop.State{}, err
	}
	var st agentloop.State
	return st, v.Get(&st)
}

// Decide decides the pending call callID — agentloop.Allow runs it,
// agentloop.Deny answers the model "denied: " and the reason — and returns
// once the run has taken the decision. The turn's calls run once every
// pending call of the turn is decided. A call that does not wait for a
// decision is [ErrNotPending], a verdict other than Allow or Deny
// [ErrInvalidVerdict]; either way nothing changes. A run that has ended
// has no call waiting: ErrNotPending. A worker takes the
// decision: with none polling the run's task queue, Decide waits for one
// until ctx ends.
func (r Run) Decide(ctx context.Context, callID string, d agentloop.Decision) error {
	if d.Verdict != agentloop.Allow && d.Verdict != agentloop.Deny {
		return ErrInvalidVerdict
	}
	h, err := r.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   r.ID,
		UpdateName:   UpdateDecide,
		Args:         []any{decision{CallID: callID, Decision: d}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	var app *sdktemporal.ApplicationError
	var gone *serviceerror.NotFound
	switch {
	case errors.As(err, &gone):
		// The run ended (or never was): nothing waits.
		return ErrNotPending
	case !errors.As(err, &app):
	case app.Type() == errTypeNotPending:
		return ErrNotPending
	case app.Type() == errTypeInvalidVerdict:
		return ErrInvalidVerdict
	}
	return err
}

// Progress returns the last heartbeat the server has of the model turn
// streaming now, and false when no model turn is running or none has
// reached the server yet (see [Progress] for how late it is).
func (r Run) Progress(ctx context.Context) (Progress, bool, error) {
	d, err := r.c.DescribeWorkflowExecution(ctx, r.ID, "")
	if err != nil {
		return Progress{}, false, err
	}
	for _, a := range d.GetPendingActivities() {
		if a.GetState() != enumspb.PENDING_ACTIVITY_STATE_STARTED || a.GetHeartbeatDetails() == nil {
			continue
		}
		var p Progress
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetHeartbeatDetails(), &p); err == nil && p.Turn > 0 {
			return p, true, nil
		}
	}
	return Progress{}, false, nil
}

// Result waits for the run to end (following continue-as-new) and returns
// its final State. When the run failed, the error is a *RunError carrying
// the state at the failure, whose Unwrap reaches agentloop's sentinels
// (agentloop.ErrMaxTurns, ErrTurnToolLimit, ErrTotalToolLimit) and
// Temporal's own error.
func (r Run) Result(ctx context.Context) (agentloop.State, error) {
	var st agentloop.State
	err := r.c.GetWorkflow(ctx, r.ID, "").Get(ctx, &st)
	if err == nil {
		return st, nil
	}
	var app *sdktemporal.ApplicationError
	if !errors.As(err, &app) {
		return st, err
	}
	if app.HasDetails() {
		_ = app.Details(&st)
	}
	return st, &RunError{Type: app.Type(), Err: err}
}
