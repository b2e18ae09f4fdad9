package temporal

import (
	"slices"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// decision is the argument of the decide update: a verdict on one call.
type decision struct {
	CallID   string
	Decision agentloop.Decision
}

// Error types of a rejected decision; [Run.Decide] reports them as
// [ErrNotPending] and [ErrInvalidVerdict].
const (
	errTypeNotPending     = "airlock.not_pending"
	errTypeInvalidVerdict = "airlock.invalid_verdict"
)

// handle registers the run's query and update handlers.
func (w *run) handle() error {
	if err := workflow.SetQueryHandler(w.ctx, QueryPending, func() ([]agentloop.Call, error) {
		return slices.Clone(w.pending), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(w.ctx, QueryState, func() (State, error) {
		return w.st, nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(w.ctx, UpdateDecide,
		func(_ workflow.Context, d decision) error {
			// The validator saw the call waiting, but two decisions on it
			// may be validated before either is handled: the first handled
			// wins, the second fails.
			i := w.waiting(d.CallID)
			if i < 0 {
				return notPending(d.CallID)
			}
			w.decided[i] = &d.Decision
			return nil
		},
		workflow.UpdateHandlerOptions{Validator: func(d decision) error {
			if v := d.Decision.Verdict; v != agentloop.Allow && v != agentloop.Deny {
				return sdktemporal.NewNonRetryableApplicationError("temporal: a decision must allow or deny the call, not "+v.String(), errTypeInvalidVerdict, nil)
			}
			if w.waiting(d.CallID) < 0 {
				return notPending(d.CallID)
			}
			return nil
		}})
}

// notPending is the error for a decision on a call that does not wait.
func notPending(id string) error {
	return sdktemporal.NewNonRetryableApplicationError("temporal: call "+id+" does not wait for a decision", errTypeNotPending, nil)
}

// waiting returns the index in w.pending of the undecided call with id,
// or -1.
func (w *run) waiting(id string) int {
	for i, p := range w.pending {
		if p.ID == id && w.decided[i] == nil {
			return i
		}
	}
	return -1
}

// decide waits for a decision on every call of the turn that needs one
// (approval[i]) and returns the answers of the denied calls, nil for the
// calls that may run. The calls wait together and none runs before all are
// decided, as in agentloop.
func (w *run) decide(turn int, calls []llmstream.ToolCall, approval []bool) ([]*answer, error) {
	answers := make([]*answer, len(calls))
	w.pending, w.decided = nil, nil
	for i, c := range calls {
		if i < len(approval) && approval[i] {
			w.pending = append(w.pending, agentloop.Call{Turn: turn, Index: i, ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
	}
	if len(w.pending) == 0 {
		return answers, nil
	}
	w.decided = make([]*agentloop.Decision, len(w.pending))
	err := workflow.Await(w.ctx, func() bool { return !slices.Contains(w.decided, nil) })
	if err != nil {
		return nil, err
	}
	for i, p := range w.pending {
		if d := w.decided[i]; d.Verdict == agentloop.Deny {
			answers[p.Index] = &answer{Content: denial(*d)}
		}
	}
	w.pending, w.decided = nil, nil
	return answers, nil
}

// denial is agentloop's answer to a denied call.
func denial(d agentloop.Decision) string {
	if d.Reason == "" {
		return "denied: the call was not approved"
	}
	return "denied: " + d.Reason
}
