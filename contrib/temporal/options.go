package temporal

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
)

// DefaultName is the workflow type a worker registers when [Agent.Name]
// is empty; its activities are DefaultName+".model" and DefaultName+".tool".
const DefaultName = "airlock"

// Defaults of the zero fields of [Options] that agentloop does not define.
const (
	// DefaultModelTimeout bounds one attempt of a model turn.
	DefaultModelTimeout = 10 * time.Minute
	// DefaultHeartbeatTimeout is how long an activity may go without a
	// heartbeat before Temporal takes its worker for lost and retries it
	// elsewhere. Activities heartbeat on a timer, at most a second apart, so
	// it only has to exceed the longest stall of a live worker's process.
	DefaultHeartbeatTimeout = 30 * time.Second
	// DefaultMaxHistoryEvents is the history length (in events) past which a
	// run continues as new at the next turn; Temporal warns at 10,240.
	DefaultMaxHistoryEvents = 5000
)

// Options configure one run. They are part of the workflow's input, so
// they are in its history and carried over continue-as-new; nothing in
// them may be secret.
//
// A run is agentloop's turn core driven durably (see [agentloop.Core]),
// as an agentloop.Loop with AnswerInvalidCalls set: a turn with an invalid
// call is answered and the model tries again (a durable run should not die
// of one malformed call).
type Options struct {
	// Agent is the workflow type to start: the [Agent.Name] a worker
	// registered. Empty means [DefaultName].
	Agent string

	// MaxTurns is [agentloop.Loop.MaxTurns], counted over every
	// continue-as-new.
	MaxTurns int
	// MaxToolCallsPerTurn, MaxTotalToolCalls, MaxToolOutputBytes,
	// MaxContextBytes and ParallelTools are the [agentloop.Loop] fields:
	// their defaults, limits and errors.
	MaxToolCallsPerTurn int
	MaxTotalToolCalls   int
	MaxToolOutputBytes  int
	MaxContextBytes     int
	ParallelTools       int

	// ToolTimeout bounds one attempt of a tool call (the activity's
	// start-to-close timeout, and the tool's context): 0 means
	// [agentloop.DefaultToolTimeout]; negative is not allowed here, since
	// Temporal needs a bound to notice a lost worker's call.
	ToolTimeout time.Duration
	// ModelTimeout bounds one attempt of a model turn: 0 means
	// [DefaultModelTimeout].
	ModelTimeout time.Duration
	// HeartbeatTimeout is how soon a lost worker's activity is retried
	// elsewhere: 0 means [DefaultHeartbeatTimeout].
	HeartbeatTimeout time.Duration
	// ModelRetry is the retry policy of model turns; nil means 1 s doubling
	// to 1 min, 8 attempts. Which errors are retried is decided by kind
	// (see the package documentation), whatever the policy says.
	ModelRetry *sdktemporal.RetryPolicy
	// ToolRetry is the retry policy of tool calls; nil means 1 s doubling
	// to 1 min, 3 attempts. It retries only timeouts and lost workers: a
	// tool's own error is never retried.
	ToolRetry *sdktemporal.RetryPolicy

	// MaxHistoryEvents is the history length past which the run continues
	// as new between two turns, carrying its agentloop.State: 0 means
	// [DefaultMaxHistoryEvents]; negative, never (the server's own
	// suggestion to continue as new is still followed).
	MaxHistoryEvents int
}

// settled returns o with every zero field that is Temporal's, not the
// loop's, replaced by its default.
func (o Options) settled() Options {
	o.Agent = cmp.Or(o.Agent, DefaultName)
	o.ModelTimeout = cmp.Or(o.ModelTimeout, DefaultModelTimeout)
	o.HeartbeatTimeout = cmp.Or(o.HeartbeatTimeout, DefaultHeartbeatTimeout)
	o.MaxHistoryEvents = cmp.Or(o.MaxHistoryEvents, DefaultMaxHistoryEvents)
	o.ModelRetry = cmp.Or(o.ModelRetry, &sdktemporal.RetryPolicy{InitialInterval: time.Second,
		BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8})
	o.ToolRetry = cmp.Or(o.ToolRetry, &sdktemporal.RetryPolicy{InitialInterval: time.Second,
		BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 3})
	return o
}

// ErrInvalidOptions reports Options no run can use: a negative timeout.
// The run fails before its first turn.
var ErrInvalidOptions = errors.New("temporal: invalid options")

// check reports why settled options cannot be used, or nil.
func (o Options) check() error {
	switch {
	case o.ToolTimeout < 0:
		return fmt.Errorf("%w: ToolTimeout %v is negative", ErrInvalidOptions, o.ToolTimeout)
	case o.ModelTimeout < 0:
		return fmt.Errorf("%w: ModelTimeout %v is negative", ErrInvalidOptions, o.ModelTimeout)
	case o.HeartbeatTimeout < 0:
		return fmt.Errorf("%w: HeartbeatTimeout %v is negative", ErrInvalidOptions, o.HeartbeatTimeout)
	}
	return nil
}
