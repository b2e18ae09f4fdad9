package temporal

import (
	"errors"

	"github.com/airlock-go/airlock/agentloop"
)

// RunError is a failed run as [Run.Result] reports it.
type RunError struct {
	// Type says what failed (the workflow's temporal.ApplicationError
	// type): "airlock.model..." for a model turn ([ErrTypeModel]),
	// "airlock.tool" for a tool call, "airlock.limit..." for a cap,
	// "airlock.options" for unusable Options.
	Type string
	// Err is Temporal's error for the failed workflow.
	Err error
}

// Error returns Temporal's error text.
func (e *RunError) Error() string { return e.Err.Error() }

// Unwrap returns the sentinel of Type, when it has one (agentloop's
// limit errors and ErrRepeatedFailure, [ErrInvalidOptions]), and Err.
func (e *RunError) Unwrap() []error {
	for _, s := range sentinels {
		if s.typ == e.Type {
			return []error{s.err, e.Err}
		}
	}
	return []error{e.Err}
}

// sentinels maps the run's error types to errors callers test with
// errors.Is. A slice, not a map: its order is the only one.
var sentinels = []struct {
	typ string
	err error
}{
	{"airlock.limit.max_turns", agentloop.ErrMaxTurns},
	{"airlock.limit.turn_tool_calls", agentloop.ErrTurnToolLimit},
	{"airlock.limit.total_tool_calls", agentloop.ErrTotalToolLimit},
	{"airlock.repeated_failure", agentloop.ErrRepeatedFailure},
	{errTypeOptions, ErrInvalidOptions},
}

// errType returns the error type of a run stopped by err.
func errType(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.typ
		}
	}
	return "airlock"
}
