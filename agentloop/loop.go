package agentloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// Defaults for the zero fields of a [Loop].
const (
	// DefaultMaxTurns is the default Loop.MaxTurns: model calls per run.
	DefaultMaxTurns = 20
	// DefaultMaxToolCallsPerTurn is the default Loop.MaxToolCallsPerTurn.
	DefaultMaxToolCallsPerTurn = 8
	// DefaultMaxTotalToolCalls is the default Loop.MaxTotalToolCalls.
	DefaultMaxTotalToolCalls = 50
	// DefaultToolTimeout is the default Loop.ToolTimeout.
	DefaultToolTimeout = 60 * time.Second
	// DefaultMaxToolOutputBytes is the default Loop.MaxToolOutputBytes:
	// 32 KiB, roughly 8k tokens.
	DefaultMaxToolOutputBytes = 32 << 10
	// ToolGrace is how long the loop still waits for a tool after the
	// tool's context ended (the tool timeout passed or the run was
	// cancelled), so a tool that notices late can return and clean up.
	// A tool still running then is abandoned: the call fails (with
	// [ErrToolTimeout] or the run's context error) and the run stops at
	// once, while the goroutine running the tool goes on until Tool.Run
	// returns, its result discarded. It is not configurable: a tool that
	// needs longer to stop should watch its context.
	ToolGrace = time.Second
	// DefaultMaxContextBytes is the default Loop.MaxContextBytes: 384 KiB,
	// roughly 100k tokens at 4 bytes a token, under a 128k-token window
	// with room for the answer.
	DefaultMaxContextBytes = 384 << 10
)

// Loop is the reference agent loop: call the model, check the caps, run
// the tools it asked for, feed the results back, until the model answers
// without tool calls.
//
// The zero value of every limit field means its default; a negative value
// switches that limit off. Loop{Model: m, Tools: ts} runs with 20 turns,
// 8 calls per turn, 50 calls per run, a 60 s tool timeout, 32 KiB of
// output per call and a 384 KiB context budget.
//
// A Loop is configuration: Run reads it and never modifies it, so one
// Loop may serve concurrent Runs as long as nobody changes its fields
// meanwhile and its Model, tools and hooks are safe for concurrent use.
type Loop struct {
	// Model produces the assistant messages. Required.
	Model Model
	// Tools are the tools offered to the model, in this order. Names
	// must be unique.
	Tools []Tool

	// MaxTurns bounds the model calls of one run. When the model still
	// asks for tools in the last allowed turn, those calls run (so every
	// call is answered) and Run returns an error wrapping [ErrMaxTurns].
	// 0 means [DefaultMaxTurns]; negative, no limit.
	MaxTurns int
	// MaxToolCallsPerTurn bounds the tool calls of one assistant message.
	// A message with more stops the run before any of its calls runs,
	// with [ErrTurnToolLimit]. 0 means [DefaultMaxToolCallsPerTurn];
	// negative, no limit.
	MaxToolCallsPerTurn int
	// MaxTotalToolCalls bounds the tool calls of one run (see
	// Result.ToolCalls). A turn that would pass it stops the run before
	// any of its calls runs, with [ErrTotalToolLimit]. 0 means
	// [DefaultMaxTotalToolCalls]; negative, no limit.
	MaxTotalToolCalls int
	// ToolTimeout bounds each tool call: its context ends after this
	// long, and a call that fails once it has ended fails with
	// [ErrToolTimeout], which stops the run. A tool that has not returned
	// [ToolGrace] after that is abandoned, so a tool ignoring its context
	// delays the run by at most ToolTimeout + ToolGrace. 0 means
	// [DefaultToolTimeout]; negative, no timeout (the loop then waits for
	// the tool for as long as the run's context lasts).
	ToolTimeout time.Duration
	// MaxToolOutputBytes bounds the bytes of one tool output kept in the
	// conversation. A longer output is cut on a UTF-8 boundary and a
	// marker line saying how many bytes were cut is appended (so the
	// content may exceed the limit by the marker's ~50 bytes). Not an
	// error. 0 means [DefaultMaxToolOutputBytes]; negative, no limit.
	MaxToolOutputBytes int
	// MaxContextBytes is the context budget, in bytes of message content
	// plus tool-call names and arguments (JSON framing not counted),
	// checked before every model call. Over it, the oldest tool outputs
	// are replaced by a short marker (the tool message stays, so every
	// call is still answered; the first message is never touched) until
	// the conversation fits. If it still does not fit, the run stops with
	// [ErrContextBudget]. 0 means [DefaultMaxContextBytes]; negative, no
	// budget.
	MaxContextBytes int

	// AnswerInvalidCalls chooses what a turn with an invalid call does: a
	// call to a tool the Loop does not have, whose arguments are not a
	// JSON object or not valid JSON at all (the stream's
	// *llmstream.ToolCallsError), or whose id another call of the turn
	// has too ([ErrDuplicateCallID]). No call of such a turn ever runs,
	// nor is shown to Approve. When false, the default, the run stops with
	// a [*ToolError] naming the first invalid call's index, id and tool.
	// When true, each invalid call is answered with what was wrong (the
	// list of tool names; what is wrong with the arguments and where), the
	// turn's valid calls are answered "skipped", and the run goes on, so
	// the model can send the calls again; the same invalid calls twice in
	// a row stop the run with [ErrRepeatedFailure], as a recoverable tool
	// failure does. The conversation keeps each call as the model sent it;
	// an *llmstream.Client sends arguments that are not an object as {},
	// which every server accepts back.
	AnswerInvalidCalls bool

	// Request is the template of every model request: the generation
	// settings (temperature, max tokens, tool choice, reasoning, ...) to
	// send with each turn. The loop fills in Messages, Tools and OnDelta
	// itself, so a template that sets them is an [ErrInvalidLoop] error.
	Request llmstream.Request

	// ParallelTools is how many calls of one turn may run at once. 0 or
	// 1: one at a time, in order. With more, up to that many run at once
	// (each under its own ToolTimeout), yet every call is answered in the
	// order the model made them and the failure rules are applied in that
	// order, so the conversation is the one calls run one at a time would
	// give, unless a call fails the run: then the turn's other running
	// calls are cancelled (answered "cancelled: ...") and those not
	// started are answered "skipped: ...". The caps, timeouts, output
	// limit and context budget are the same either way.
	ParallelTools int

	// Approve decides, for each call of a tool with NeedsApproval, whether
	// it runs. It is called on the Run's goroutine, in call order, after
	// the caps and the argument checks (never for an invalid call) and
	// before any call of the turn runs; see [Verdict] for what each
	// decision does. A turn runs only once all its calls are decided, so a
	// call allowed before another call of its turn is paused waits with
	// it, and runs once, on [Loop.Resume]. An error from Approve stops the
	// run as a failed tool does, with a [*ToolError] wrapping
	// [ErrApproval]; no call of that turn runs. nil: every call runs
	// without asking, NeedsApproval or not.
	Approve func(ctx context.Context, c Call) (Decision, error)

	// Hooks are called as the run progresses; all optional.
	Hooks Hooks

	// Output, when set, requires the final answer to be structured: see
	// [Output] (and [OutputFor] for one derived from a Go type). The run
	// ends when the model answers without calls with output that fits;
	// Result.Output holds it. It replaces the Request template's Output.
	Output *Output
}

// Run runs the loop on a copy of messages until the model answers without
// tool calls, a limit is hit, a tool fails, the model fails, a call is
// paused for approval, or ctx ends. It drives the Loop's [Core] as the
// Core's doc shows (each step's doc says its rules), with the model,
// [Loop.Approve] and up to [Loop.ParallelTools] tools at once. Every call
// in Result.Messages is answered whatever stops the run, and
// Result.Answers says what became of each ([Outcome]). A timed-out or
// cancelled call may have done part of its work.
//
// Run always returns the Result so far, with its State (for any error but
// an [ErrInvalidLoop] one) to go on later with [Loop.Resume]. The error is
// nil when the model finished; [ErrPaused] when a call waits for a
// decision; otherwise [*LimitError], [*ToolError], an [ErrInvalidLoop]
// error (no Model, no messages, or see [Loop.Core]), or the model's or the
// context's error wrapped with the turn (errors.Is(err, context.Canceled)
// holds after a cancellation).
func (l *Loop) Run(ctx context.Context, messages []llmstream.Message) (Result, error) {
	c, err := l.driverCore()
	if err == nil && len(messages) == 0 {
		err = fmt.Errorf("%w: Run needs at least one message", ErrInvalidLoop)
	}
	if err != nil {
		return Result{Messages: deepCopy(messages)}, err
	}
	st := State{Messages: deepCopy(messages)}
	return c.drive(ctx, &st, nil)
}

// driverCore is the Core of a Loop that Run and Resume drive: one with a
// Model.
func (l *Loop) driverCore() (*Core, error) {
	if l.Model == nil {
		return nil, fmt.Errorf("%w: no Model", ErrInvalidLoop)
	}
	return l.Core()
}

// driver is one Run or Resume: the Core's steps, with the model, Approve,
// the tools and the hooks called on its goroutine.
type driver struct {
	c       *Core
	st      *State
	answers []Answer // the answers this Run or Resume made
}

// drive takes turns until the run stops; t, when not nil, is a resumed
// turn, taken first.
func (c *Core) drive(ctx context.Context, st *State, t *Turn) (Result, error) {
	d := &driver{c: c, st: st}
	err := d.loop(ctx, t)
	res := st.result()
	res.Answers, res.State = d.answers, deepCopy(*st)
	if err == nil && c.l.Output != nil && len(st.Messages) > 0 {
		res.Output = json.RawMessage(st.Messages[len(st.Messages)-1].Content)
	}
	return res, err
}

func (d *driver) loop(ctx context.Context, t *Turn) error {
	h := &d.c.l.Hooks
	for {
		if t == nil {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("agentloop: before turn %d: %w", d.st.Turns+1, context.Cause(ctx))
			}
			req, err := d.c.Next(d.st)
			if err != nil {
				return err
			}
			if h.BeforeModel != nil {
				h.BeforeModel(ModelStart{Turn: d.st.Turns, Messages: req.Messages})
			}
			start := time.Now()
			if onDelta := h.OnDelta; onDelta != nil {
				req.OnDelta = func(d llmstream.Delta) error {
					onDelta(d)
					return nil
				}
			}
			msg, err := d.c.l.Model.Stream(ctx, req)
			if h.AfterModel != nil {
				h.AfterModel(ModelDone{Turn: d.st.Turns, Message: msg, Err: err, Duration: time.Since(start)})
			}
			t, err = d.c.Plan(d.st, msg, err)
			for i, a := range t.Answers { // the calls Plan refused get tool hooks
				if a.Outcome == Invalid {
					d.beforeTool(t, i, 0, 0)
					d.afterTool(t, i, a, a.Content)
				}
			}
			if t.Answered {
				d.answers = append(d.answers, t.Answers...)
			}
			if err != nil || t.Done {
				return err
			}
		}
		if !t.Answered {
			if err := d.decide(ctx, t); err != nil {
				return err
			}
			if err := d.c.Wait(d.st, t); err != nil {
				return err
			}
			d.runCalls(ctx, t)
			if err := d.finish(ctx, t); err != nil {
				return err
			}
		}
		t = nil
	}
}

// finish answers the turn. A call not run when no call failed the run is
// the run's cancellation, which stops it.
func (d *driver) finish(ctx context.Context, t *Turn) error {
	err := d.c.Finish(d.st, t)
	d.answers = append(d.answers, t.Answers...)
	if err == nil && ctx.Err() != nil && slices.ContainsFunc(t.Answers, func(a Answer) bool { return a.Outcome == NotRun }) {
		err = fmt.Errorf("agentloop: turn %d: %w", t.Number, context.Cause(ctx))
	}
	return err
}

// decide gets a decision from Approve, and calls AfterApproval, for every
// call of the turn that needs one and has none yet (a resumed turn has
// some), in call order. An error from Approve (or an unset verdict) fails
// that call and the run; a run cancelled meanwhile answers every call "not
// run".
func (d *driver) decide(ctx context.Context, t *Turn) error {
	for i, c := range t.Calls {
		if !t.Ask[i] || t.Decisions[i].Verdict != 0 {
			continue
		}
		dec, err := Decision{Verdict: Allow}, ctx.Err()
		if approve := d.c.l.Approve; approve != nil && err == nil {
			dec, err = approve(ctx, c)
			if err == nil && !dec.Verdict.valid() {
				err = fmt.Errorf("%w: Approve returned %v for call %s", ErrApproval, dec.Verdict, c.ID)
			} else if err != nil {
				err = fmt.Errorf("%w: %w", ErrApproval, err)
			}
			if h := d.c.l.Hooks.AfterApproval; h != nil {
				h(ApprovalDone{Call: c, Decision: dec, Err: err})
			}
		}
		switch {
		case ctx.Err() != nil:
			return d.finish(ctx, t)
		case err != nil:
			t.Answers[i] = Answer{Outcome: Failed, Content: "error: the approval of this call failed",
				Err: &ToolError{Name: c.Name, CallID: c.ID, Index: i, Err: err}}
			return d.finish(ctx, t)
		}
		t.Decisions[i] = dec
	}
	return nil
}

// errCallFailed is the cause the turn's context ends with when one of its
// calls failed the run, so the others stop.
var errCallFailed = errors.New("agentloop: another call of the turn failed the run")

// runCalls runs the turn's calls that are not denied, up to
// Loop.ParallelTools at once, and fills in their answers, each marked
// Cancelled when the run's end (ctx) or another call's failure (tctx)
// stopped it. Hooks are called on this goroutine only.
func (d *driver) runCalls(ctx context.Context, t *Turn) {
	var todo []int
	for i := range t.Calls {
		if t.Runs(i) {
			todo = append(todo, i)
		}
	}
	started, running, failed := 0, 0, false
	tctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	results := make(chan int, len(todo)) // the index of each call that returned
	for {
		for running < d.c.l.ParallelTools && started < len(todo) && !failed && ctx.Err() == nil {
			i := todo[started]
			started++
			running++
			d.beforeTool(t, i, len(todo), running)
			go func() {
				t.Answers[i] = d.c.Dispatch(tctx, t.Calls[i])
				results <- i
			}()
		}
		if running == 0 {
			return
		}
		i := <-results
		running--
		a := &t.Answers[i]
		hookText := a.Content
		switch {
		case a.Outcome == Ran:
		case ctx.Err() != nil:
			// The run was cancelled while the tool ran: that, not the
			// tool's reaction to it, is why the run stops.
			a.Outcome = Cancelled
			a.Err = fmt.Errorf("agentloop: turn %d: tool %q: %w", t.Number, a.Call.Name, context.Cause(ctx))
			hookText = cancelledText("")
		case context.Cause(tctx) == errCallFailed:
			a.Outcome = Cancelled
			hookText = "cancelled: another call of the turn failed the run"
		}
		d.afterTool(t, i, *a, hookText)
		if a.Outcome == Failed && !failed {
			failed = true
			stop(errCallFailed)
		}
	}
}

func (d *driver) beforeTool(t *Turn, index, batch, running int) {
	if h := d.c.l.Hooks.BeforeTool; h != nil {
		h(ToolStart{Turn: t.Number, Index: index, Call: t.raw[index], Batch: batch, Running: running})
	}
}

// afterTool tells AfterTool of call i's answer a, with content as its text.
func (d *driver) afterTool(t *Turn, i int, a Answer, content string) {
	if h := d.c.l.Hooks.AfterTool; h != nil {
		h(ToolDone{Turn: t.Number, Index: i, Call: t.raw[i], Content: content, OutputBytes: a.OutputBytes,
			CutBytes: a.CutBytes, Err: a.Err, Duration: a.Duration, Outcome: a.Outcome})
	}
}
