package agentloop

import (
	"context"
	"fmt"
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
// without an Approve function) or decisions that do not fit
// the State (for a call that is not pending, missing for one that is, or
// with no verdict) are an error wrapping [ErrInvalidState], and nothing
// runs; so is an [ErrInvalidLoop] error. st is not modified; the Result
// owns copies.
func (l *Loop) Resume(ctx context.Context, st State, decisions map[string]Decision) (Result, error) {
	c, err := l.driverCore()
	own := deepCopy(st)
	var t *Turn
	if err == nil {
		t, err = c.resume(&own, decisions)
	}
	if err != nil {
		return Result{Messages: own.Messages, Turns: st.Turns, ToolCalls: st.ToolCalls, Usage: st.Usage,
			DroppedToolOutputs: st.DroppedToolOutputs, Pending: slices.Clone(st.Pending)}, err
	}
	if t != nil {
		for i, call := range t.Calls {
			if h := c.l.Hooks.AfterApproval; h != nil && decisions[call.ID].Verdict != 0 {
				h(ApprovalDone{Call: call, Decision: t.Decisions[i]})
			}
		}
	}
	return c.drive(ctx, &own, t)
}

// resume checks that st fits the Core and decisions fit st, readies st to
// go on (the caps count from here), and returns the pending turn with its
// decisions, or nil when none is pending.
func (c *Core) resume(st *State, decisions map[string]Decision) (*Turn, error) {
	calls, err := checkState(c, st, decisions)
	if err != nil {
		return nil, err
	}
	st.TurnsBefore, st.ToolCallsBefore = st.Turns, st.ToolCalls
	if calls == nil {
		return nil, nil
	}
	t := &Turn{Number: st.Turns, raw: calls, Calls: make([]Call, len(calls)), Ask: make([]bool, len(calls)),
		Decisions: make([]Decision, len(calls)), Answers: make([]Answer, len(calls))}
	for i, tc := range calls {
		t.Calls[i] = newCall(st.Turns, i, tc)
		t.Ask[i] = c.byName[tc.Function.Name].NeedsApproval
		t.Decisions[i] = st.Decisions[tc.ID]
		if d, ok := decisions[tc.ID]; ok {
			t.Decisions[i] = d
		}
	}
	st.Pending, st.Decisions = nil, nil
	return t, nil
}

// checkState checks that st fits the Loop and decisions fit st, and
// returns the calls of the pending turn (nil when none).
func checkState(s *Core, st *State, decisions map[string]Decision) ([]llmstream.ToolCall, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidState, fmt.Sprintf(format, args...))
	}
	n := len(st.Messages)
	if n == 0 {
		return nil, bad("no messages")
	}
	if st.Turns < 0 || st.ToolCalls < 0 {
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
	if s.l.Approve == nil {
		return nil, bad("calls wait for a decision and the Loop has no Approve function: the Loop that resumes a paused run needs one, to decide the calls of the turns after it")
	}
	// Each call of the turn is either pending, decided already, or one
	// that needs no decision; the pending list is exactly the undecided
	// calls that need one, as the loop made it.
	var want []Call
	seen := map[string]bool{}
	for i, c := range last.ToolCalls {
		if seen[c.ID] {
			return nil, bad("two calls have the id %q", c.ID)
		}
		seen[c.ID] = true
		t := s.byName[c.Function.Name]
		if t == nil {
			return nil, bad("call %s is to tool %q, which the Loop does not have", c.ID, c.Function.Name)
		}
		if _, err := parseArguments(c.Function.Arguments); err != nil {
			return nil, bad("call %s: %v", c.ID, err)
		}
		d, decided := st.Decisions[c.ID]
		if decided && (!d.Verdict.valid() || d.Verdict == Pause) {
			return nil, bad("call %s has the saved decision %v", c.ID, d.Verdict)
		}
		if !decided && t.NeedsApproval {
			want = append(want, newCall(st.Turns, i, c))
		}
	}
	for id := range st.Decisions {
		if !seen[id] {
			return nil, bad("a saved decision for call %q, which is not in the turn", id)
		}
	}
	if !slices.Equal(want, st.Pending) {
		return nil, bad("the pending list is not the turn's waiting calls")
	}
	for id, d := range decisions {
		if !slices.ContainsFunc(st.Pending, func(c Call) bool { return c.ID == id }) {
			return nil, bad("a decision for call %q, which is not pending", id)
		}
		if !d.Verdict.valid() {
			return nil, bad("the decision for call %s has no verdict", id)
		}
	}
	for _, c := range st.Pending {
		if _, ok := decisions[c.ID]; !ok {
			return nil, bad("no decision for pending call %s", c.ID)
		}
	}
	return last.ToolCalls, nil
}
