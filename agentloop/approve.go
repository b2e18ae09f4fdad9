package agentloop

import "fmt"

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
