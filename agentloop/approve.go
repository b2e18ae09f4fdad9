package agentloop

import (
	"context"
	"fmt"

	"github.com/airlock-go/airlock/llmstream"
)

// Verdict is what [Loop.Approve] decided for a call. The zero value is
// unset, which is not a decision.
type Verdict uint8

// The verdicts.
const (
	// Allow lets the call run.
	Allow Verdict = iota + 1
	// Deny answers the call with the Decision's reason, without running
	// it, and the run goes on: the model may take another way.
	Deny
	// Pause stops the run before any call of the turn runs: Run returns
	// [ErrPaused], and Result.Pending lists the calls waiting for a
	// decision, which [Loop.Resume] takes.
	Pause
)

var verdictNames = [...]string{Allow: "allow", Deny: "deny", Pause: "pause"}

// String returns "allow", "deny" or "pause", or "Verdict(n)".
func (v Verdict) String() string {
	if v.valid() {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

func (v Verdict) valid() bool { return v >= Allow && v <= Pause }

// MarshalText writes the verdict's name; an unset or unknown verdict is an
// error, so a saved [State] never holds one.
func (v Verdict) MarshalText() ([]byte, error) {
	if !v.valid() {
		return nil, fmt.Errorf("agentloop: %v is not a verdict", v)
	}
	return []byte(verdictNames[v]), nil
}

// UnmarshalText reads a name MarshalText wrote.
func (v *Verdict) UnmarshalText(b []byte) error {
	for i, n := range verdictNames {
		if n != "" && n == string(b) {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("agentloop: %q is not a verdict", b)
}

// Decision is a verdict on one call, with the reason the model is told
// when the verdict is [Deny] (an empty reason is answered "the call was
// not approved").
type Decision struct {
	Verdict Verdict `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
}

// Call is a tool call waiting for, or getting, a decision, or being run:
// [CallFromContext] gives a Tool's Run the call it answers.
type Call struct {
	// Turn is the 1-based turn (model call) the call belongs to, counted
	// over the whole conversation of a [State].
	Turn int `json:"turn"`
	// Index is the call's position in its turn, from 0.
	Index int `json:"index"`
	// ID is the call's id, the key of its decision in [Loop.Resume].
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the arguments as the model sent them: one JSON object
	// (checked before Approve is asked), or empty text, which the tool
	// gets as {}.
	Arguments string `json:"arguments"`
}

func newCall(turn, index int, c llmstream.ToolCall) Call {
	return Call{Turn: turn, Index: index, ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments}
}

// needsAsking reports whether Approve decides the call: the Loop has an
// Approve function and the call's tool needs approval.
func (r *run) needsAsking(c llmstream.ToolCall) bool {
	t := r.s.byName[c.Function.Name]
	return r.s.Approve != nil && t != nil && t.NeedsApproval
}

// approve gets a decision for every call of the turn that needs one and
// has none yet (a resumed turn has some), in call order, and returns the
// calls decided [Pause]. An error from Approve (or an unset verdict)
// answers every call of the turn and is returned as a *ToolError; a run
// cancelled meanwhile answers every call "not run".
func (r *run) approve(ctx context.Context, turn int, calls []llmstream.ToolCall) ([]Call, error) {
	var pending []Call
	for i, c := range calls {
		d, ok := r.decided[c.ID]
		if !ok && r.needsAsking(c) {
			if err := ctx.Err(); err != nil {
				r.answerRest(calls, "not run: the run was cancelled")
				return nil, fmt.Errorf("agentloop: turn %d: %w", turn, context.Cause(ctx))
			}
			var err error
			d, err = r.ask(ctx, newCall(turn, i, c))
			if err != nil {
				if ctx.Err() != nil {
					r.answerRest(calls, "not run: the run was cancelled")
					return nil, fmt.Errorf("agentloop: turn %d: approval: %w", turn, context.Cause(ctx))
				}
				for j, other := range calls {
					if j == i {
						r.answer(other, "error: the approval of this call failed", true)
					} else {
						r.answer(other, "not run: the approval of call "+c.ID+" failed", false)
					}
				}
				return nil, &ToolError{Name: c.Function.Name, CallID: c.ID, Index: i, Err: err}
			}
			if r.decided == nil {
				r.decided = map[string]Decision{}
			}
			r.decided[c.ID] = d
			ok = true
		}
		if ok && d.Verdict == Pause {
			pending = append(pending, newCall(turn, i, c))
		}
	}
	return pending, nil
}

// ask calls Approve and its hook.
func (r *run) ask(ctx context.Context, c Call) (Decision, error) {
	d, err := r.s.Approve(ctx, c)
	if err == nil && !d.Verdict.valid() {
		err = fmt.Errorf("%w: Approve returned %v for call %s", ErrApproval, d.Verdict, c.ID)
	} else if err != nil {
		err = fmt.Errorf("%w: %w", ErrApproval, err)
	}
	if h := r.s.Hooks.AfterApproval; h != nil {
		h(ApprovalDone{Call: c, Decision: d, Err: err})
	}
	return d, err
}

// denial is the answer to a denied call.
func denial(d Decision) string {
	if d.Reason == "" {
		return "denied: the call was not approved"
	}
	return "denied: " + d.Reason
}
