package agentloop

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Test for them with [errors.Is]; the facts (numbers, the
// tool's name and call ID) are in the struct errors that wrap them,
// [*LimitError] and [*ToolError], which [errors.As] finds.
var (
	// ErrMaxTurns: the model still asked for tools after Loop.MaxTurns
	// model calls.
	ErrMaxTurns = errors.New("agentloop: too many turns")
	// ErrTurnToolLimit: one assistant message asked for more tool calls
	// than Loop.MaxToolCallsPerTurn.
	ErrTurnToolLimit = errors.New("agentloop: too many tool calls in one turn")
	// ErrTotalToolLimit: a turn would take the run's tool calls past
	// Loop.MaxTotalToolCalls.
	ErrTotalToolLimit = errors.New("agentloop: too many tool calls in the run")
	// ErrContextBudget: the conversation is larger than Loop.MaxContextBytes
	// even with every droppable tool output dropped.
	ErrContextBudget = errors.New("agentloop: conversation larger than the context budget")

	// ErrUnknownTool: the model called a tool the Loop does not have.
	ErrUnknownTool = errors.New("agentloop: unknown tool")
	// ErrInvalidArguments: a call's arguments are not a JSON object, or
	// not valid JSON at all (then the stream's *toolcall.ArgumentsError is
	// in the chain too).
	ErrInvalidArguments = errors.New("agentloop: tool arguments are not a JSON object")
	// ErrDuplicateCallID: two calls of one turn have the same id. Answers
	// and decisions are matched to calls by id, so such calls cannot be
	// told apart: each call sharing an id is invalid, as an unknown tool
	// is, and no call of the turn runs or is shown to Loop.Approve.
	ErrDuplicateCallID = errors.New("agentloop: two calls of the turn have the same id")
	// ErrToolTimeout: a tool did not finish within Loop.ToolTimeout.
	ErrToolTimeout = errors.New("agentloop: tool timed out")
	// ErrToolPanic: a tool panicked; the panic value is in the message.
	ErrToolPanic = errors.New("agentloop: tool panicked")
	// ErrRepeatedFailure: a tool failed recoverably with the same
	// arguments and the same error as the failure just before it; or the
	// same invalid calls came twice in a row ([Loop.AnswerInvalidCalls]),
	// or the same answer failed the [Output] check the same way twice.
	ErrRepeatedFailure = errors.New("agentloop: the same recoverable tool failure twice in a row")

	// ErrInvalidLoop: the Loop or the input of Run is unusable ([Loop.Run]
	// and [Loop.Core] list the cases). Nothing was sent to the model.
	ErrInvalidLoop = errors.New("agentloop: invalid loop")
)

// LimitError reports a breached limit with its numbers. It unwraps to
// one of [ErrMaxTurns], [ErrTurnToolLimit], [ErrTotalToolLimit] or
// [ErrContextBudget].
type LimitError struct {
	// Err is the sentinel naming the limit.
	Err error
	// Turn is the turn (1-based model call) at which the limit was hit.
	Turn int
	// Value is the count or size that breached the limit: turns made,
	// calls in the turn, calls in the run including this turn's, or
	// conversation bytes.
	Value int
	// Limit is the configured maximum in effect.
	Limit int
}

// Error says which limit was breached, at which turn, with the value
// reached and the limit, e.g. "agentloop: turn 2 asked for 9 tool calls,
// more than the limit of 8 per turn".
func (e *LimitError) Error() string {
	switch e.Err {
	case ErrMaxTurns:
		return fmt.Sprintf("agentloop: the model still called tools after %d turns, the limit", e.Value)
	case ErrTurnToolLimit:
		return fmt.Sprintf("agentloop: turn %d asked for %d tool calls, more than the limit of %d per turn", e.Turn, e.Value, e.Limit)
	case ErrTotalToolLimit:
		return fmt.Sprintf("agentloop: turn %d would make %d tool calls in the run, more than the limit of %d", e.Turn, e.Value, e.Limit)
	case ErrContextBudget:
		return fmt.Sprintf("agentloop: before turn %d the conversation is %d bytes with every droppable tool output dropped, more than the budget of %d", e.Turn, e.Value, e.Limit)
	}
	return fmt.Sprintf("%v (turn %d: %d, limit %d)", e.Err, e.Turn, e.Value, e.Limit)
}

// Unwrap returns the sentinel.
func (e *LimitError) Unwrap() error { return e.Err }

// ToolError reports a tool call that failed: an unknown tool, arguments
// that are not a JSON object, a timeout, a panic, or the error the tool's
// Run returned. Err holds the cause: one of the sentinels above wrapping
// the tool's own error where there is one, so [errors.Is] reaches both.
type ToolError struct {
	// Name is the tool name the model called.
	Name string
	// CallID is the ID of the call.
	CallID string
	// Index is the call's position in its turn's message, from 0.
	Index int
	// Err is the cause.
	Err error
}

// Error names the tool and the call, then the cause, with one package
// prefix, e.g. `agentloop: tool "read" (call c1): unknown tool`.
func (e *ToolError) Error() string {
	cause := "failed"
	if e.Err != nil {
		cause = strings.TrimPrefix(e.Err.Error(), "agentloop: ")
	}
	return fmt.Sprintf("agentloop: tool %q (call %s): %s", e.Name, e.CallID, cause)
}

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.Err }

// RecoverableError marks a tool failure the model may be able to fix, such
// as a missing file or a bad pattern. The loop answers the call with the
// error text, runs the turn's other calls as usual, and lets the model try
// again; see [Recoverable].
type RecoverableError struct {
	// Err is the failure; its text is what the model sees.
	Err error
}

// Error returns Err's text alone, unprefixed: it is what the model sees.
func (e *RecoverableError) Error() string {
	if e.Err == nil {
		return "agentloop: recoverable failure"
	}
	return e.Err.Error()
}

// Unwrap returns the failure.
func (e *RecoverableError) Unwrap() error { return e.Err }

// Recoverable marks err as a failure the model may recover from; a tool
// returns it from its Run function. Recoverable(nil) is nil. A timeout is
// never recoverable, whatever the tool returns.
func Recoverable(err error) error {
	if err == nil {
		return nil
	}
	return &RecoverableError{Err: err}
}

// Errors of approvals, pauses and saved states.
var (
	// ErrPaused: [Loop.Approve] decided [Pause] for a call, so the run
	// stopped before any call of the turn ran; Result.Pending lists the
	// calls waiting for a decision and Result.State goes on with
	// [Loop.Resume]. Not a failure.
	ErrPaused = errors.New("agentloop: paused for approval")
	// ErrApproval: Loop.Approve returned an error, or no valid verdict,
	// for a call; it is wrapped in a [*ToolError] naming the call, with
	// Approve's own error in the chain.
	ErrApproval = errors.New("agentloop: approval failed")
	// ErrInvalidState: the State given to [Loop.Resume] does not fit the
	// Loop or the decisions do not fit the State (Resume lists the cases).
	// Nothing was run and nothing sent.
	ErrInvalidState = errors.New("agentloop: state does not fit")
)
