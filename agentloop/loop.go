package agentloop

import (
	"context"
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
	// has too (llmstream passes such a stream on as it came; agentloop
	// refuses it, since decisions and answers are matched by id). No call
	// of such a turn ever runs, nor is shown to Approve. When
	// false, the default, the run stops with a [*ToolError] naming the
	// first invalid call's index, id and tool. When true, each invalid call
	// is answered with what was wrong (the list of tool names; what is
	// wrong with the arguments and where), the turn's valid calls are
	// answered "skipped", and the run goes on, so the model can send the
	// calls again; the same invalid calls twice in a row stop the run with
	// [ErrRepeatedFailure], as a recoverable tool failure does. The
	// conversation keeps each call as the model sent it; an
	// *llmstream.Client sends arguments that are not an object as {}, which
	// every server accepts back.
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
}

// settings is a Loop with its defaults resolved and its tools indexed.
type settings struct {
	Loop
	schemas []llmstream.Tool
	byName  map[string]*Tool
}

// settle resolves defaults and checks the configuration.
func (l *Loop) settle() (*settings, error) {
	s := &settings{Loop: *l}
	if s.Model == nil {
		return nil, fmt.Errorf("%w: no Model", ErrInvalidLoop)
	}
	s.MaxTurns = orDefault(s.MaxTurns, DefaultMaxTurns)
	s.MaxToolCallsPerTurn = orDefault(s.MaxToolCallsPerTurn, DefaultMaxToolCallsPerTurn)
	s.MaxTotalToolCalls = orDefault(s.MaxTotalToolCalls, DefaultMaxTotalToolCalls)
	s.MaxToolOutputBytes = orDefault(s.MaxToolOutputBytes, DefaultMaxToolOutputBytes)
	s.MaxContextBytes = orDefault(s.MaxContextBytes, DefaultMaxContextBytes)
	s.ToolTimeout = orDefault(s.ToolTimeout, DefaultToolTimeout)
	if r := &s.Request; r.Messages != nil || r.Tools != nil || r.OnDelta != nil {
		return nil, fmt.Errorf("%w: the Request template sets Messages, Tools or OnDelta, which the loop fills in", ErrInvalidLoop)
	}
	// Copy the tools in, so a caller changing its slice mid-run changes
	// nothing here.
	s.Tools = slices.Clone(l.Tools)
	s.byName = make(map[string]*Tool, len(s.Tools))
	for i := range s.Tools {
		t := &s.Tools[i]
		if err := t.check(); err != nil {
			return nil, err
		}
		if s.byName[t.Name] != nil {
			return nil, fmt.Errorf("%w: two tools are named %q", ErrInvalidLoop, t.Name)
		}
		s.byName[t.Name] = t
		s.schemas = append(s.schemas, t.Schema())
	}
	return s, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Run runs the loop on a copy of messages until the model answers without
// tool calls, a limit is hit, a tool fails, the model fails, a call is
// paused for approval, or ctx ends.
//
// Each turn: apply the context budget; call the model's Stream with the
// Request template, the conversation and the tools (see [Model]); append
// its message (an empty role becomes "assistant"); if it has no tool
// calls, return it with a nil error.
// Otherwise check the caps ([ErrTurnToolLimit], [ErrTotalToolLimit]),
// then check every call before any runs: a name the Loop has no tool for
// ([ErrUnknownTool]) or arguments that are not one JSON object
// ([ErrInvalidArguments]; empty text is taken as {}) or an id another
// call of the turn has too ([ErrDuplicateCallID]) make the call
// invalid, as does a model error that is an *llmstream.ToolCallsError (a
// stream that ended properly with arguments that are not JSON: its calls
// are appended as the assistant message). A turn with an invalid call runs
// none of its calls; see [Loop.AnswerInvalidCalls] for what happens then.
// Otherwise [Loop.Approve] decides the calls that need it, and the calls
// allowed run (see [Loop.ParallelTools]); each result is appended as
// {"role":"tool","tool_call_id":...,"content":...}, in call order, a
// denied call's answer being "denied: " and the reason.
//
// A failed call (including a timeout or a panic) stops the run with a
// [*ToolError]. If the tool's error is [Recoverable], the model sees the
// error text as the result instead and the run goes on; a recoverable
// failure with the same tool, arguments and error text as the failure
// just before it in call order (no call succeeded in between) stops the
// run with [ErrRepeatedFailure]. The turn's other calls still run after a
// recoverable failure; after a failure that stops the run, the calls not
// yet started are answered "skipped: ..." and any still running are
// cancelled and answered "cancelled: ...". Calls stopped by a cap or by
// cancellation before they started are answered "not run: ...", and a
// call running when the run was cancelled is answered "cancelled: ...",
// so that every call in Result.Messages has its answer. A timed-out or
// cancelled call may have done part of its work.
//
// Run always returns the Result so far, with its State (for any error but
// an [ErrInvalidLoop] one) to go on later with [Loop.Resume]. The error is
// nil when the model finished; [ErrPaused] when a call waits for a
// decision; otherwise [*LimitError], [*ToolError], an [ErrInvalidLoop]
// error, or the model's or the context's error wrapped with the turn
// (errors.Is(err, context.Canceled) holds after a cancellation).
func (l *Loop) Run(ctx context.Context, messages []llmstream.Message) (Result, error) {
	res := Result{Messages: slices.Clone(messages)}
	s, err := l.settle()
	if err != nil {
		return res, err
	}
	if len(messages) == 0 {
		return res, fmt.Errorf("%w: Run needs at least one message", ErrInvalidLoop)
	}
	r := &run{s: s, res: &res, dropped: map[int]bool{}}
	err = r.loop(ctx, nil)
	r.save()
	return res, err
}

// run is the state of one Run or Resume.
type run struct {
	s       *settings
	res     *Result
	dropped map[int]bool // indexes of tool messages whose output was dropped
	// lastFailure identifies the previous recoverable failure (tool,
	// arguments, error text); "" after any success.
	lastFailure string
	// decided holds the decisions on the calls of the turn being settled.
	decided map[string]Decision
	// startTurns and startCalls are the Result's counts when this Run or
	// Resume began: the caps count from there.
	startTurns, startCalls int
}

// loop runs turns until the run stops. pending, when not nil, are the
// calls of a resumed turn: that turn is settled first.
func (r *run) loop(ctx context.Context, pending []llmstream.ToolCall) error {
	if pending != nil {
		if err := r.settleTurn(ctx, r.res.Turns, pending); err != nil {
			return err
		}
	}
	for {
		turn := r.res.Turns + 1
		if made := turn - 1 - r.startTurns; r.s.MaxTurns >= 0 && made >= r.s.MaxTurns {
			return &LimitError{Err: ErrMaxTurns, Turn: turn, Value: made, Limit: r.s.MaxTurns}
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("agentloop: before turn %d: %w", turn, context.Cause(ctx))
		}
		size, n := fitBudget(r.res.Messages, r.s.MaxContextBytes, r.dropped)
		r.res.DroppedToolOutputs += n
		if r.s.MaxContextBytes >= 0 && size > r.s.MaxContextBytes {
			return &LimitError{Err: ErrContextBudget, Turn: turn, Value: size, Limit: r.s.MaxContextBytes}
		}

		msg, err := r.callModel(ctx, turn)
		var invalid []error // why each call may not run, nil for a call that may
		var tce *llmstream.ToolCallsError
		if errors.As(err, &tce) {
			// The stream ended properly with calls whose arguments are
			// not JSON: the turn is answered like any invalid call.
			msg.ToolCalls, invalid, err = tce.Calls, slices.Clone(tce.Errs), nil
		}
		if err != nil {
			return fmt.Errorf("agentloop: turn %d: model: %w", turn, err)
		}
		if msg.Role == "" {
			msg.Role = "assistant"
		}
		r.res.Usage.Add(msg.Usage)
		r.res.Messages = append(r.res.Messages, msg)
		calls := msg.ToolCalls
		if len(calls) == 0 {
			if msg.StopReason == llmstream.StopPause {
				// A long server-side turn paused (Anthropic's pause_turn):
				// sending the conversation again, ending in this message,
				// lets the model go on from it.
				continue
			}
			return nil
		}
		if limit := r.s.MaxToolCallsPerTurn; limit >= 0 && len(calls) > limit {
			err := &LimitError{Err: ErrTurnToolLimit, Turn: turn, Value: len(calls), Limit: limit}
			r.answerRest(calls, "not run: "+err.Error())
			return err
		}
		if limit, made := r.s.MaxTotalToolCalls, r.res.ToolCalls-r.startCalls; limit >= 0 && made+len(calls) > limit {
			err := &LimitError{Err: ErrTotalToolLimit, Turn: turn, Value: made + len(calls), Limit: limit}
			r.answerRest(calls, "not run: "+err.Error())
			return err
		}
		r.res.ToolCalls += len(calls)
		if invalid, stop := r.checkCalls(turn, calls, invalid); invalid {
			if stop != nil {
				return stop
			}
			continue
		}
		if err := r.settleTurn(ctx, turn, calls); err != nil {
			return err
		}
	}
}

// settleTurn gets the decisions the turn's calls need and, once every call
// is decided, runs them. A paused call leaves the turn unanswered: the
// Result's State holds it, with the decisions so far.
func (r *run) settleTurn(ctx context.Context, turn int, calls []llmstream.ToolCall) error {
	pending, err := r.approve(ctx, turn, calls)
	if err != nil {
		clear(r.decided)
		return err
	}
	if len(pending) > 0 {
		r.res.Pending = pending
		return fmt.Errorf("%w: %d calls of turn %d wait for a decision", ErrPaused, len(pending), turn)
	}
	err = r.runCalls(ctx, turn, calls)
	clear(r.decided)
	return err
}

// callModel makes one model call with its hooks.
func (r *run) callModel(ctx context.Context, turn int) (llmstream.Message, error) {
	h := &r.s.Hooks
	if h.BeforeModel != nil {
		h.BeforeModel(ModelStart{Turn: turn, Messages: r.res.Messages})
	}
	start := time.Now()
	r.res.Turns++
	req := r.s.Request
	req.Messages, req.Tools = r.res.Messages, r.s.schemas
	if onDelta := h.OnDelta; onDelta != nil {
		req.OnDelta = func(d llmstream.Delta) error {
			onDelta(d)
			return nil
		}
	}
	msg, err := r.s.Model.Stream(ctx, req)
	if h.AfterModel != nil {
		h.AfterModel(ModelDone{Turn: turn, Message: msg, Err: err, Duration: time.Since(start)})
	}
	return msg, err
}

// answer appends the tool message for call; failed marks the answer of a
// call that failed (llmstream.Message.IsError).
func (r *run) answer(call llmstream.ToolCall, content string, failed bool) {
	r.res.Messages = append(r.res.Messages, llmstream.Message{Role: "tool", ToolCallID: call.ID, Content: content, IsError: failed})
}

// answerRest answers every call in calls with the same content.
func (r *run) answerRest(calls []llmstream.ToolCall, content string) {
	for _, c := range calls {
		r.answer(c, content, false)
	}
}
