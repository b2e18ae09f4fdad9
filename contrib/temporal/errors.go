package temporal

import (
	"errors"
	"strings"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// RunError is a failed run as [Run.Result] reports it.
type RunError struct {
	// Type says what failed (the workflow's temporal.ApplicationError
	// type): "airlock.model.<kind>" for a model turn ([ErrTypeModel]),
	// "airlock.tool" for a tool call, and otherwise "airlock.", the name of
	// the error's [llmstream.KindOf], then the agentloop sentinel it
	// matches: "airlock.limit.max_turns", "airlock.tool.repeated_failure",
	// "airlock.unknown.invalid_options", "airlock.unknown.invalid_loop"
	// (an Agent whose tools or request template agentloop refuses).
	Type string
	// Err is Temporal's error for the failed workflow.
	Err error
}

// Error returns Temporal's error text.
func (e *RunError) Error() string { return e.Err.Error() }

// Unwrap returns the sentinel Type names, if any, and Err.
func (e *RunError) Unwrap() []error {
	for _, s := range sentinels {
		if strings.HasSuffix(e.Type, "."+s.name) {
			return []error{s.err, e.Err}
		}
	}
	return []error{e.Err}
}

// sentinels are the errors a run's error type names after its kind, for
// errors.Is. A slice, not a map: its order is the only one.
var sentinels = []struct {
	name string
	err  error
}{
	{"max_turns", agentloop.ErrMaxTurns},
	{"turn_tool_calls", agentloop.ErrTurnToolLimit},
	{"total_tool_calls", agentloop.ErrTotalToolLimit},
	{"context_budget", agentloop.ErrContextBudget},
	{"repeated_failure", agentloop.ErrRepeatedFailure},
	{"invalid_loop", agentloop.ErrInvalidLoop},
	{"invalid_options", ErrInvalidOptions},
}

// errType is the [RunError.Type] of a run stopped by err.
func errType(err error) string {
	typ := "airlock." + llmstream.KindOf(err).String()
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return typ + "." + s.name
		}
	}
	return typ
}
