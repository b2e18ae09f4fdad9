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
}

// save records the run's position in its Result.
func (r *run) save() {
	res := r.res
	st := &State{
		Messages:           deepCopy(res.Messages),
		Turns:              res.Turns,
		ToolCalls:          res.ToolCalls,
		Usage:              res.Usage,
		DroppedToolOutputs: res.DroppedToolOutputs,
		LastFailure:        r.lastFailure,
		Pending:            slices.Clone(res.Pending),
	}
	for i := range r.dropped {
		st.Dropped = append(st.Dropped, i)
	}
	slices.Sort(st.Dropped)
	if len(res.Pending) > 0 {
		for id, d := range r.decided {
			if d.Verdict != Pause {
				if st.Decisions == nil {
					st.Decisions = map[string]Decision{}
				}
				st.Decisions[id] = d
			}
		}
	}
	res.State = st
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
// are not the last message's waiting calls) or decisions that do not fit
// the State (for a call that is not pending, missing for one that is, or
// with no verdict) are an error wrapping [ErrInvalidState], and nothing
// runs; so is an [ErrInvalidLoop] error. st is not modified; the Result
// owns copies.
func (l *Loop) Resume(ctx context.Context, st State, decisions map[string]Decision) (Result, error) {
	res := Result{
		Messages:           deepCopy(st.Messages),
		Turns:              st.Turns,
		ToolCalls:          st.ToolCalls,
		Usage:              st.Usage,
		DroppedToolOutputs: st.DroppedToolOutputs,
		Pending:            slices.Clone(st.Pending),
	}
	s, err := l.settle()
	if err != nil {
		return res, err
	}
	pending, err := checkState(s, &st, decisions)
	if err != nil {
		return res, err
	}
	r := &run{
		s: s, res: &res, dropped: map[int]bool{}, decided: map[string]Decision{},
		lastFailure: st.LastFailure, startTurns: st.Turns, startCalls: st.ToolCalls,
	}
	for _, i := range st.Dropped {
		r.dropped[i] = true
	}
	maps.Copy(r.decided, st.Decisions)
	res.Pending = nil
	for _, c := range st.Pending {
		d := decisions[c.ID]
		r.decided[c.ID] = d
		if h := s.Hooks.AfterApproval; h != nil {
			h(ApprovalDone{Call: c, Decision: d})
		}
	}
	err = r.loop(ctx, pending)
	r.save()
	return res, err
}

// checkState checks that st fits the Loop and decisions fit st, and
// returns the calls of the pending turn (nil when none).
func checkState(s *settings, st *State, decisions map[string]Decision) ([]llmstream.ToolCall, error) {
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
		if !decided && t.NeedsApproval && s.Approve != nil {
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
