package agentloop

import (
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// Hooks lets a front end follow a run. Every field is optional. The loop
// calls them synchronously on the goroutine that called [Loop.Run] or
// [Loop.Resume], never two at once, even while tools run in parallel, so a
// slow hook slows the run; none may call back into the Loop.
// Values passed to hooks must not be modified, and slices in them must not
// be kept after the hook returns.
type Hooks struct {
	// BeforeModel is called before each model call.
	BeforeModel func(ModelStart)
	// AfterModel is called after each model call, failed or not.
	AfterModel func(ModelDone)
	// BeforeTool is called before each tool call the loop dispatches
	// (also for a call that then fails as unknown or with bad
	// arguments); calls answered "skipped" or "not run" get no tool
	// hooks, nor does a denied call (AfterApproval tells of it).
	BeforeTool func(ToolStart)
	// AfterTool is called after each call BeforeTool announced. With
	// Loop.ParallelTools above 1, calls finish in any order: AfterTool
	// follows that order, the conversation the order of the calls.
	AfterTool func(ToolDone)
	// AfterApproval is called after each decision Loop.Approve makes (a
	// [Deny] and a [Pause] included) and when it fails, and for each
	// decision given to [Loop.Resume].
	AfterApproval func(ApprovalDone)
	// OnDelta receives the response's pieces as they arrive, when the
	// Model streams them (as *llmstream.Client does) to the request's
	// OnDelta. A tool call delta is a call still forming and must never
	// be run. Like every hook it cannot change the run's course: to stop
	// the run from here, cancel Run's context (Run then returns the
	// context's error).
	OnDelta func(llmstream.Delta)
}

// ModelStart describes a model call about to be made. It may gain fields.
type ModelStart struct {
	// Turn is the 1-based number of this model call in the run.
	Turn int
	// Messages is the conversation sent, after the context budget was applied.
	Messages []llmstream.Message
}

// ModelDone describes a finished model call. It may gain fields.
type ModelDone struct {
	// Turn is the 1-based number of this model call in the run.
	Turn int
	// Message is the assistant message; meaningless when Err is set.
	Message llmstream.Message
	// Err is the model's error, nil on success.
	Err error
	// Duration is how long the call took.
	Duration time.Duration
}

// ToolStart describes a tool call about to run. It may gain fields.
type ToolStart struct {
	// Turn is the 1-based turn the call belongs to.
	Turn int
	// Index is the call's position in its turn, from 0.
	Index int
	// Call is the call as the model made it.
	Call llmstream.ToolCall
	// Batch is how many calls of the turn run: those not denied.
	Batch int
	// Running is how many calls of the turn are running as this one
	// starts, this one included: always 1 with Loop.ParallelTools 0 or 1.
	Running int
}

// ApprovalDone describes a decision on a call. It may gain fields.
type ApprovalDone struct {
	// Call is the call decided.
	Call Call
	// Decision is the decision; meaningless when Err is set.
	Decision Decision
	// Err is the failure of Approve, wrapping [ErrApproval]; nil when it
	// decided.
	Err error
}

// ToolDone describes a finished tool call. It may gain fields.
type ToolDone struct {
	// Turn is the 1-based turn the call belongs to.
	Turn int
	// Index is the call's position in its turn, from 0.
	Index int
	// Call is the call as the model made it.
	Call llmstream.ToolCall
	// Content is the tool message's content: the output (cut and marked
	// if over the limit) or the error text the model sees.
	Content string
	// OutputBytes is the length of the tool's output before any cut; 0
	// when it failed.
	OutputBytes int
	// CutBytes is how many bytes of output the limit cut; 0 if none.
	CutBytes int
	// Err is nil on success, else a [*ToolError] (whose chain holds a
	// [*RecoverableError] when the failure was recoverable), or the
	// run's context error when the run was cancelled.
	Err error
	// Duration is how long the tool ran.
	Duration time.Duration
	// Outcome is what became of the call: Ran, Recovered, Failed,
	// Invalid, or Cancelled.
	Outcome Outcome
}
