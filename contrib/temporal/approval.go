package temporal

import (
	"slices"

	"github.com/airlock-go/airlock/llmstream"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// PendingCall is a tool call waiting for a person's decision.
type PendingCall struct {
	// Turn is the model turn that made the call.
	Turn int
	// Index is the call's position in its turn's message, from 0.
	Index int
	// CallID, Name and Arguments are the call as the model made it.
	CallID, Name, Arguments string
}

// Decision is a person's verdict on one pending call: run it, or answer
// the model "denied: <Reason>" instead and go on (the model may take
// another way).
type Decision struct {
	CallID string
	Allow  bool
	// Reason is what the model reads when the call is denied.
	Reason string
}

// ErrTypeNotPending is the type of the error that rejects a decision for a
// call that does not wait for one (never pending, or already decided);
// [Run.Decide] reports it as [ErrNotPending].
const ErrTypeNotPending = "airlock.not_pending"

// handle registers the run's query and update handlers.
func (w *run) handle() error {
	if err := workflow.SetQueryHandler(w.ctx, QueryPending, func() ([]PendingCall, error) {
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
		func(_ workflow.Context, d Decision) error {
			w.decided[w.waiting(d.CallID)] = &d
			return nil
		},
		workflow.UpdateHandlerOptions{Validator: func(d Decision) error {
			if w.waiting(d.CallID) < 0 {
				return sdktemporal.NewNonRetryableApplicationError("temporal: call "+d.CallID+" does not wait for a decision", ErrTypeNotPending, nil)
			}
			return nil
		}})
}

// waiting returns the index in w.pending of the undecided call with id,
// or -1.
func (w *run) waiting(id string) int {
	for i, p := range w.pending {
		if p.CallID == id && w.decided[i] == nil {
			return i
		}
	}
	return -1
}

// decide waits for a decision on every call of the turn that needs one
// (approval[i]) and returns the answers of the denied calls, nil for the
// calls that may run.
func (w *run) decide(turn int, calls []llmstream.ToolCall, approval []bool) ([]*answer, error) {
	answers := make([]*answer, len(calls))
	w.pending, w.decided = nil, nil
	for i, c := range calls {
		if i < len(approval) && approval[i] {
			w.pending = append(w.pending, PendingCall{Turn: turn, Index: i, CallID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
	}
	if len(w.pending) == 0 {
		return answers, nil
	}
	w.decided = make([]*Decision, len(w.pending))
	err := workflow.Await(w.ctx, func() bool { return !slices.Contains(w.decided, nil) })
	if err != nil {
		return nil, err
	}
	for i, p := range w.pending {
		if d := w.decided[i]; !d.Allow {
			reason := d.Reason
			if reason == "" {
				reason = "a person denied this call"
			}
			answers[p.Index] = &answer{Content: "denied: " + reason}
		}
	}
	w.pending, w.decided = nil, nil
	return answers, nil
}
