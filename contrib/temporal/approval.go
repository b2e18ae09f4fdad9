package temporal

import (
	"slices"

	"github.com/airlock-go/airlock/agentloop"
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
func (w *execution) handle() error {
	if err := workflow.SetQueryHandler(w.ctx, QueryPending, func() ([]agentloop.Call, error) {
		return slices.Clone(w.st.Pending), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(w.ctx, QueryState, func() (agentloop.State, error) {
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
			w.open.Decisions[i] = d.Decision
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

// waiting returns the index in the open turn of the undecided call with
// id, or -1.
func (w *execution) waiting(id string) int {
	if w.open == nil {
		return -1
	}
	for _, p := range w.st.Pending {
		if p.ID == id && w.open.Decisions[p.Index].Verdict == 0 {
			return p.Index
		}
	}
	return -1
}
