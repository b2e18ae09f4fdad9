package agentloop

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/airlock-go/airlock/llmstream"
)

// State is a run's position: everything [Loop.Resume] needs to go on in
// another process, with a new Loop of the same tools. It survives
// encoding/json unchanged (see [State.MarshalJSON]). Treat it as opaque:
// Resume checks that it fits and refuses one that does not with
// [ErrInvalidState]. It may gain fields.
type State struct {
	// Messages is the conversation, continuity state included; its last
	// message holds the pending calls, if any, unanswered.
	Messages []llmstream.Message
	// Turns, ToolCalls, Usage and DroppedToolOutputs are the Result's
	// counts so far.
	Turns              int
	ToolCalls          int
	Usage              llmstream.Usage
	DroppedToolOutputs int
	// Dropped are the indexes in Messages of the tool outputs dropped for
	// the context budget, in order.
	Dropped []int
	// LastFailure identifies the last recoverable failure, for the
	// repeated-failure rule; empty after a success.
	LastFailure string
	// Pending are the calls waiting for a decision, as Result.Pending.
	Pending []Call
	// Decisions are the decisions already made on the other calls of the
	// pending turn, by call id.
	Decisions map[string]Decision
	// TurnsBefore and ToolCallsBefore are Turns and ToolCalls when the
	// Run or Resume that made the State began: the caps MaxTurns and
	// MaxTotalToolCalls count from them. Resume sets them.
	TurnsBefore, ToolCallsBefore int
}

// Resume goes on with a run from its saved State, as if it had never
// stopped: the pending calls get the decisions given (keyed by call id;
// a decision of [Pause] leaves its call waiting), the turn's allowed calls
// run, and the loop goes on as [Loop.Run] does. Nothing that already ran
// runs again. With no pending calls (a State saved after ErrMaxTurns, a
// failed model call, a failed tool or a finished run) decisions must be
// empty, and the loop goes on with the next model call; a caller may
// append a user message to st.Messages first.
//
// The caps MaxTurns and MaxTotalToolCalls count from where Resume begins,
// so a run stopped by [ErrMaxTurns] gets as many turns again; the
// Result's counts go on from the State's.
//
// A State that does not fit the Loop (a pending call to a tool the Loop
// lacks, or that does not need approval; a pending list or decisions that
// are not the last message's waiting calls; pending calls and a Loop
// without an Approve function; negative counts) or decisions that do not
// fit the State (for a call that is not pending, missing for one that
// is, or with no verdict) are an error wrapping [ErrInvalidState], and
// nothing runs; so is an [ErrInvalidLoop] error. st is not modified; the Result
// owns copies.
func (l *Loop) Resume(ctx context.Context, st State, decisions map[string]Decision) (Result, error) {
	c, err := l.driverCore()
	own := deepCopy(st)
	var t *Turn
	if err == nil {
		t, err = c.checkState(&own, decisions)
	}
	if err != nil {
		return own.result(), err
	}
	// The caps count from here.
	own.TurnsBefore, own.ToolCallsBefore = own.Turns, own.ToolCalls
	own.Pending, own.Decisions = nil, nil
	if h := c.l.Hooks.AfterApproval; h != nil {
		for _, p := range st.Pending {
			h(ApprovalDone{Call: p, Decision: decisions[p.ID]})
		}
	}
	return c.drive(ctx, &own, t)
}

// result is the Result of a run at st, sharing no slice with st.
func (st *State) result() Result {
	return Result{Messages: deepCopy(st.Messages), Turns: st.Turns, ToolCalls: st.ToolCalls, Usage: st.Usage,
		DroppedToolOutputs: st.DroppedToolOutputs, Pending: slices.Clone(st.Pending)}
}

// checkState checks that st fits the Loop and decisions fit st, and
// returns the pending turn with its decisions (nil when none), judged by
// the rules Plan and Wait made it with.
func (c *Core) checkState(st *State, decisions map[string]Decision) (*Turn, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidState, fmt.Sprintf(format, args...))
	}
	n := len(st.Messages)
	if n == 0 {
		return nil, bad("no messages")
	}
	if st.Turns < 0 || st.ToolCalls < 0 || st.DroppedToolOutputs < 0 {
		return nil, bad("negative counts")
	}
	for _, i := range st.Dropped {
		if i <= 0 || i >= n || st.Messages[i].Role != "tool" {
			return nil, bad("dropped output %d is not a tool message", i)
		}
	}
	last := st.Messages[n-1]
	if len(st.Pending) == 0 {
		if len(st.Decisions) > 0 || len(decisions) > 0 {
			return nil, bad("decisions, and no call waits for one")
		}
		if last.Role == "assistant" && len(last.ToolCalls) > 0 {
			return nil, bad("the last message's calls are not answered, and none is pending")
		}
		return nil, nil
	}
	if last.Role != "assistant" || len(last.ToolCalls) == 0 {
		return nil, bad("calls are pending, and the last message has no calls")
	}
	if c.l.Approve == nil {
		return nil, bad("calls wait for a decision and the Loop has no Approve function: the Loop that resumes a paused run needs one, to decide the calls of the turns after it")
	}
	// Every call of the turn is one Plan let through; the pending list is
	// what Wait recorded with the saved decisions.
	t := c.newTurn(st.Turns, last.ToolCalls)
	for i, call := range t.Calls {
		if problem, _ := c.problem(call, nil, t.ids[call.ID]); problem != "" {
			return nil, bad("call %s: %s", call.ID, problem)
		}
		d, decided := st.Decisions[call.ID]
		if decided && d.Verdict != Allow && d.Verdict != Deny {
			return nil, bad("call %s has the saved decision %v", call.ID, d.Verdict)
		}
		t.Decisions[i] = d
	}
	// Sorted, so that of several bad decisions the error names the same one.
	for _, id := range slices.Sorted(maps.Keys(st.Decisions)) {
		if t.ids[id] == 0 {
			return nil, bad("a saved decision for call %q, which is not in the turn", id)
		}
	}
	if !slices.Equal(t.waiting(), st.Pending) {
		return nil, bad("the pending list is not the turn's waiting calls")
	}
	for _, id := range slices.Sorted(maps.Keys(decisions)) {
		d := decisions[id]
		if !slices.ContainsFunc(st.Pending, func(c Call) bool { return c.ID == id }) {
			return nil, bad("a decision for call %q, which is not pending", id)
		}
		if !d.Verdict.valid() {
			return nil, bad("the decision for call %s has no verdict", id)
		}
	}
	for _, p := range st.Pending {
		d, ok := decisions[p.ID]
		if !ok {
			return nil, bad("no decision for pending call %s", p.ID)
		}
		t.Decisions[p.Index] = d
	}
	return t, nil
}
