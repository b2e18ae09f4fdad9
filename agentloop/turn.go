package agentloop

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// Turn is one model turn's calls on their way from the model's message to
// their answers: [Core.Plan] makes it, the driver fills in Decisions and
// Answers, [Core.Finish] answers it.
type Turn struct {
	// Number is the 1-based turn, counted over the State's conversation.
	Number int
	// Done: the model answered without calls; the run is over.
	Done bool
	// Answered: nothing is to be decided or run: the calls are answered
	// (refused by a cap, or invalid), or there were none.
	Answered bool
	// Calls are the turn's calls, in the model's order.
	Calls []Call
	// Ask[i]: call i's tool has NeedsApproval, so it needs a decision
	// (Loop.Run asks Approve, or allows it when there is none).
	Ask []bool
	// Decisions[i] is the decision on call i, zero while there is none.
	Decisions []Decision
	// Answers[i] is what [Core.Dispatch] returned for call i, its Outcome
	// set to [Cancelled] by a driver that stopped it while it ran; zero
	// for a call not started. Finish writes the rest.
	Answers []Answer

	raw []llmstream.ToolCall // the calls as the model sent them, for the hooks
	ids map[string]int       // how many calls have each id
}

func (c *Core) newTurn(number int, calls []llmstream.ToolCall) *Turn {
	n := len(calls)
	t := &Turn{Number: number, raw: calls, Calls: make([]Call, n), Ask: make([]bool, n), Decisions: make([]Decision, n),
		Answers: make([]Answer, n), ids: make(map[string]int, n)}
	for i, tc := range calls {
		t.ids[tc.ID]++
		t.Calls[i] = Call{Turn: number, Index: i, ID: tc.ID, Name: tc.Function.Name,
			Arguments: tc.Function.Arguments}
		if tool := c.byName[tc.Function.Name]; tool != nil {
			t.Ask[i] = tool.NeedsApproval
		}
	}
	return t
}

// waiting returns the calls that need a decision and have neither Allow
// nor Deny.
func (t *Turn) waiting() []Call {
	var out []Call
	for i, call := range t.Calls {
		if t.Ask[i] && t.Decisions[i].Verdict != Allow && t.Decisions[i].Verdict != Deny {
			out = append(out, call)
		}
	}
	return out
}

// Runs reports whether call i is to be run: it is not denied.
func (t *Turn) Runs(i int) bool { return t.Decisions[i].Verdict != Deny }

// Outcome is what became of one call. The zero value is unset: a call not
// answered yet.
type Outcome uint8

// The outcomes. A tool ran for Ran, Recovered and Failed, and may have
// (in part) for Cancelled; for the others it did not.
const (
	Ran       Outcome = iota + 1 // the tool returned; the answer is its output, cut at Loop.MaxToolOutputBytes
	Recovered                    // the tool failed with a [Recoverable] error: the model reads it, the run goes on
	Failed                       // the call failed and stops the run: the tool's error, a timeout, a panic, a failed approval
	Denied                       // the decision was [Deny]: "denied: " and its reason
	Invalid                      // the call may not run (see [Loop.AnswerInvalidCalls]); the answer says why
	Skipped                      // not run: another call of the turn failed or is invalid
	Cancelled                    // was running when the run was cancelled or another call of the turn failed it
	NotRun                       // not run: a cap stopped the turn, or the run was cancelled before the call started
)

var outcomeNames = [...]string{Ran: "ran", Recovered: "recovered", Failed: "failed", Denied: "denied",
	Invalid: "invalid", Skipped: "skipped", Cancelled: "cancelled", NotRun: "not run"}

// String returns the outcome's name ("ran", "not run", ...) or
// "Outcome(n)".
func (o Outcome) String() string {
	if o >= Ran && o <= NotRun {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Answer is one call's answer and what became of the call.
type Answer struct {
	// Call is the call answered.
	Call Call
	// Outcome is what became of it.
	Outcome Outcome
	// Content is the tool message's content: the output or the text the
	// model reads.
	Content string
	// Err is the failure: a [*ToolError] for Recovered, Failed and
	// Invalid (for Recovered its chain holds the [*RecoverableError]), the
	// run's context error for a Cancelled call the run's end stopped; nil
	// otherwise.
	Err error
	// OutputBytes is the length of the tool's output before any cut, for
	// Ran.
	OutputBytes int
	// CutBytes is how many bytes of output the limit cut.
	CutBytes int
	// Duration is how long the tool ran.
	Duration time.Duration
}

// Plan adds the model's message (or its error) to st and plans the turn
// Next counted: msg joins the conversation (an empty role becomes
// "assistant") and its usage the State's. A model error stops the run,
// wrapped with the turn, except an *llmstream.ToolCallsError, whose calls
// are the message's, invalid. A message without calls ends the run
// (Done), unless its StopReason is llmstream.StopPause (a paused
// server-side turn: the next one goes on from it). Before any call runs,
// the caps MaxToolCallsPerTurn and MaxTotalToolCalls (counted since
// st.ToolCallsBefore) stop the run with a [*LimitError], every call
// answered "not run"; an invalid call answers the turn at once, as
// [Loop.AnswerInvalidCalls] says. Plan returns the Turn whatever the error.
func (c *Core) Plan(st *State, msg llmstream.Message, modelErr error) (*Turn, error) {
	t := &Turn{Number: st.Turns}
	var streamed []error // the stream's own verdict on each call's arguments
	var tce *llmstream.ToolCallsError
	if errors.As(modelErr, &tce) {
		msg.ToolCalls, streamed, modelErr = tce.Calls, tce.Errs, nil
	}
	if modelErr != nil {
		return t, fmt.Errorf("agentloop: turn %d: model: %w", t.Number, modelErr)
	}
	msg.Role = cmp.Or(msg.Role, "assistant")
	st.Usage.Add(msg.Usage)
	st.Messages = append(st.Messages, msg)
	t = c.newTurn(t.Number, msg.ToolCalls)
	n := len(t.Calls)
	if n == 0 {
		t.Answered, t.Done = true, msg.StopReason != llmstream.StopPause
		if t.Done && c.l.Output != nil {
			again, err := c.judgeOutput(st, msg)
			t.Done = !again
			return t, err
		}
		return t, nil
	}
	var capErr error
	if limit := c.l.MaxToolCallsPerTurn; limit >= 0 && n > limit {
		capErr = &LimitError{Err: ErrTurnToolLimit, Turn: t.Number, Value: n, Limit: limit}
	} else if limit, made := c.l.MaxTotalToolCalls, st.ToolCalls-st.ToolCallsBefore; limit >= 0 && made+n > limit {
		capErr = &LimitError{Err: ErrTotalToolLimit, Turn: t.Number, Value: made + n, Limit: limit}
	}
	if capErr != nil {
		for i := range t.Answers {
			t.Answers[i] = Answer{Outcome: NotRun, Content: "not run: " + capErr.Error()}
		}
		t.Answered = true
		answerAll(st, t)
		return t, capErr
	}
	st.ToolCalls += n
	return t, c.refuseInvalid(st, t, streamed)
}

// Wait records in st the calls of t that need a decision and have none,
// or whose decision is [Pause], with the decisions made on the others, and
// returns an error wrapping [ErrPaused]: the turn waits, unanswered, for
// [Loop.Resume]. It returns nil, st's pending calls cleared, when no call
// waits and the turn may run.
func (c *Core) Wait(st *State, t *Turn) error {
	pending := t.waiting()
	st.Pending, st.Decisions = pending, nil
	if len(pending) == 0 {
		return nil
	}
	for i, call := range t.Calls {
		if d := t.Decisions[i]; d.Verdict == Allow || d.Verdict == Deny {
			if st.Decisions == nil {
				st.Decisions = map[string]Decision{}
			}
			st.Decisions[call.ID] = d
		}
	}
	return fmt.Errorf("%w: %d calls of turn %d wait for a decision", ErrPaused, len(pending), t.Number)
}

// Finish answers every call of t in call order, appending the tool
// messages to st, and applies the failure rules in that order, so the
// conversation does not depend on which call finished first. A denied
// call is answered "denied: " and the reason; a call not started,
// "skipped" when another call failed, else "not run" (the run was
// cancelled); a Cancelled call says why. The first Failed call's error
// stops the run; with none, a Cancelled call's; a Recovered failure with
// the same tool, arguments and answer as the recoverable failure just
// before it (no call ran between) stops it with [ErrRepeatedFailure].
// Finish returns nil when the run goes on; a driver whose run was
// cancelled before every call started returns the cancellation itself.
func (c *Core) Finish(st *State, t *Turn) error {
	failed := slices.IndexFunc(t.Answers, func(a Answer) bool { return a.Outcome == Failed })
	failedID := ""
	if failed >= 0 {
		failedID = t.Calls[failed].ID
	}
	var stop error
	for i := range t.Answers {
		a := &t.Answers[i]
		switch {
		case a.Outcome == 0 && t.Decisions[i].Verdict == Deny:
			a.Outcome, a.Content = Denied, "denied: "+cmp.Or(t.Decisions[i].Reason, "the call was not approved")
		case a.Outcome == 0 && failed >= 0:
			a.Outcome, a.Content = Skipped, "skipped: not run because call "+failedID+" failed"
		case a.Outcome == 0:
			a.Outcome, a.Content = NotRun, "not run: the run was cancelled"
		case a.Outcome == Cancelled:
			a.Content = cancelledText(failedID)
		}
		switch c := t.Calls[i]; a.Outcome {
		case Ran:
			st.LastFailure = ""
		case Recovered:
			key := c.Name + "\x00" + c.Arguments + "\x00" + a.Content
			if key == st.LastFailure && stop == nil {
				stop = repeated(a.Err)
			}
			st.LastFailure = key
		case Failed:
			stop = cmp.Or(stop, a.Err)
		case Cancelled:
			if failed < 0 {
				stop = cmp.Or(stop, a.Err)
			}
		}
	}
	answerAll(st, t)
	return stop
}

// cancelledText answers a call stopped while it ran by the failure of
// call failedID, or by the run's end when failedID is "".
func cancelledText(failedID string) string {
	if failedID != "" {
		return "cancelled: call " + failedID + " failed while this call ran"
	}
	return "cancelled: the run was cancelled while this call ran"
}

// answerAll sets each answer's Call, appends t's answers to st as tool
// messages and clears the pending calls.
func answerAll(st *State, t *Turn) {
	for i := range t.Answers {
		a := &t.Answers[i]
		a.Call = t.Calls[i]
		isError := a.Outcome != Ran && a.Outcome != Skipped && a.Outcome != NotRun
		st.Messages = append(st.Messages, llmstream.Message{Role: "tool", ToolCallID: a.Call.ID, Content: a.Content, IsError: isError})
	}
	st.Pending, st.Decisions = nil, nil
}

// refuseInvalid answers t when a call may not run (streamed is the
// stream's verdict on each call's arguments) and returns the error that
// stops the run, nil when it goes on; t stays open when all may run.
func (c *Core) refuseInvalid(st *State, t *Turn, streamed []error) error {
	var first *ToolError
	var key strings.Builder // identifies this set of failures for the repeat rule
	for i, call := range t.Calls {
		var cause error
		if i < len(streamed) {
			cause = streamed[i]
		}
		problem, sentinel := c.problem(call, cause, t.ids[call.ID])
		if problem == "" {
			continue
		}
		err := &ToolError{Name: call.Name, CallID: call.ID, Index: i, Err: sentinel}
		if cause != nil {
			err.Err = fmt.Errorf("%w: %w", sentinel, cause)
		}
		t.Answers[i] = Answer{Outcome: Invalid, Content: "error: " + problem, Err: err}
		if first == nil {
			first = err
		}
		fmt.Fprintf(&key, "%s\x00%s\x00%s\x00", call.Name, call.Arguments, problem)
	}
	if first == nil {
		return nil
	}
	for i := range t.Answers {
		if t.Answers[i].Outcome == 0 {
			t.Answers[i] = Answer{Outcome: Skipped, Content: "skipped: not run because call " + first.CallID + " is invalid"}
		}
	}
	t.Answered = true
	answerAll(st, t)
	switch {
	case !c.l.AnswerInvalidCalls:
		return first
	case key.String() == st.LastFailure:
		return repeated(first)
	}
	st.LastFailure = key.String()
	return nil
}
