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
	// call to a tool the Loop does not have, or whose arguments are not a
	// JSON object or not valid JSON at all (the stream's
	// *llmstream.ToolCallsError). No call of such a turn ever runs. When
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
// tool calls, a limit is hit, a tool fails, the model fails, or ctx ends.
//
// Each turn: apply the context budget; call the model's Stream with the
// Request template, the conversation and the tools (see [Model]); append
// its message (an empty role becomes "assistant"); if it has no tool calls, return it with a nil error.
// Otherwise check the caps ([ErrTurnToolLimit], [ErrTotalToolLimit]),
// then check every call before any runs: a name the Loop has no tool for
// ([ErrUnknownTool]) or arguments that are not one JSON object
// ([ErrInvalidArguments]; empty text is taken as {}) make the call
// invalid, as does a model error that is an *llmstream.ToolCallsError (a
// stream that ended properly with arguments that are not JSON: its calls
// are appended as the assistant message). A turn with an invalid call runs
// none of its calls; see [Loop.AnswerInvalidCalls] for what happens then.
// Otherwise the calls run in order, and each result is appended as
// {"role":"tool","tool_call_id":...,"content":...}.
//
// A failed call (including a timeout or a panic) stops the run with a
// [*ToolError]. If the tool's error is [Recoverable], the model sees the
// error text as the result instead and the run goes on; a recoverable
// failure with the same tool, arguments and error text as the failure
// just before it (no call succeeded in between) stops the run with
// [ErrRepeatedFailure]. Either way the calls after the failed one in that
// turn are not run and are answered "skipped: ...", calls stopped by a
// cap or by cancellation before they started are answered "not run: ...",
// and a call running when the run was cancelled is answered
// "cancelled: ...", so that every call in Result.Messages has its answer.
// A timed-out or cancelled call may have done part of its work.
//
// Run always returns the Result so far. The error is nil when the model
// finished; otherwise [*LimitError], [*ToolError], an [ErrInvalidLoop]
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
	err = r.loop(ctx)
	return res, err
}

// run is the state of one Run.
type run struct {
	s       *settings
	res     *Result
	dropped map[int]bool
	// lastFailure identifies the previous recoverable failure (tool,
	// arguments, error text); "" after any success.
	lastFailure string
}

func (r *run) loop(ctx context.Context) error {
	for turn := 1; ; turn++ {
		if r.s.MaxTurns >= 0 && turn > r.s.MaxTurns {
			return &LimitError{Err: ErrMaxTurns, Turn: turn, Value: turn - 1, Limit: r.s.MaxTurns}
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
		r.res.addUsage(msg.Usage)
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
		if limit := r.s.MaxTotalToolCalls; limit >= 0 && r.res.ToolCalls+len(calls) > limit {
			err := &LimitError{Err: ErrTotalToolLimit, Turn: turn, Value: r.res.ToolCalls + len(calls), Limit: limit}
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
		if err := r.runCalls(ctx, turn, calls); err != nil {
			return err
		}
	}
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

// runCalls runs one turn's calls in order and appends their answers.
func (r *run) runCalls(ctx context.Context, turn int, calls []llmstream.ToolCall) error {
	for i := range calls {
		call := calls[i]
		if ctx.Err() != nil {
			r.answerRest(calls[i:], "not run: the run was cancelled")
			return fmt.Errorf("agentloop: turn %d: %w", turn, context.Cause(ctx))
		}
		content, recoverable, err := r.runOne(ctx, turn, i, call)
		r.answer(call, content, err != nil)
		if err == nil {
			r.lastFailure = ""
			continue
		}
		r.answerRest(calls[i+1:], "skipped: not run because call "+call.ID+" failed")
		if !recoverable {
			return err
		}
		key := call.Function.Name + "\x00" + call.Function.Arguments + "\x00" + content
		if key == r.lastFailure {
			return repeated(err)
		}
		r.lastFailure = key
		return nil
	}
	return nil
}

// runOne runs one call with its hooks and returns the tool message
// content, the failure if any, and whether the model may see it and go on.
func (r *run) runOne(ctx context.Context, turn, index int, call llmstream.ToolCall) (content string, recoverable bool, err error) {
	h := &r.s.Hooks
	if h.BeforeTool != nil {
		h.BeforeTool(ToolStart{Turn: turn, Index: index, Call: call})
	}
	start := time.Now()
	done := ToolDone{Turn: turn, Index: index, Call: call}
	out, err := r.dispatch(ctx, index, call)
	switch {
	case err == nil:
		done.OutputBytes = len(out)
		content, done.CutBytes = truncate(out, r.s.MaxToolOutputBytes)
	case ctx.Err() != nil:
		// The run was cancelled while the tool ran: that, not the
		// tool's reaction to it, is why the run stops.
		err = fmt.Errorf("agentloop: turn %d: tool %q: %w", turn, call.Function.Name, context.Cause(ctx))
		// The tool did start, so "not run" would be untrue: it may have
		// done part of its work.
		content = "cancelled: the run was cancelled while this call ran"
	default:
		var rec *RecoverableError
		recoverable = errors.As(err, &rec) && !errors.Is(err, ErrToolTimeout)
		if recoverable {
			content = "error: " + rec.Error()
		} else {
			content = "error: " + err.Error()
		}
		content, _ = truncate(content, r.s.MaxToolOutputBytes)
	}
	done.Content, done.Err, done.Duration = content, err, time.Since(start)
	if h.AfterTool != nil {
		h.AfterTool(done)
	}
	return content, recoverable, err
}

// dispatch checks a call and runs its tool under the tool timeout. Every
// failure it returns is a *ToolError.
func (r *run) dispatch(ctx context.Context, index int, call llmstream.ToolCall) (string, error) {
	fail := func(err error) (string, error) {
		return "", &ToolError{Name: call.Function.Name, CallID: call.ID, Index: index, Err: err}
	}
	tool := r.s.byName[call.Function.Name]
	args, err := parseArguments(call.Function.Arguments)
	if tool == nil || err != nil {
		// checkCalls let no such call through.
		return fail(fmt.Errorf("agentloop: internal error: call %s was not checked", call.ID))
	}
	tctx, cancel := ctx, context.CancelFunc(func() {})
	if r.s.ToolTimeout > 0 {
		tctx, cancel = context.WithTimeout(ctx, r.s.ToolTimeout)
	}
	defer cancel()
	out, err := runBounded(tctx, tool, args)
	if err == nil {
		// A tool that returned a result within the grace period after
		// its deadline still returned a result; keep it.
		return out, nil
	}
	if ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return fail(fmt.Errorf("%w after %v: %w", ErrToolTimeout, r.s.ToolTimeout, err))
	}
	return fail(err)
}

// errAbandoned is the failure of a tool that did not return within
// ToolGrace after its context ended.
var errAbandoned = fmt.Errorf("the tool ignored its context and was abandoned %v after it ended", ToolGrace)

// runBounded runs the tool on its own goroutine and returns its result,
// or, once ctx has ended and the tool has had ToolGrace more to notice,
// gives up on it with an error wrapping the context's. A tool that ignores
// its context must not hang the run: waiting for it is what a timeout is
// meant to prevent. The abandoned goroutine ends when the tool returns;
// its result goes into the buffered channel and is dropped.
func runBounded(ctx context.Context, t *Tool, args []byte) (string, error) {
	type result struct {
		out string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		out, err := safeRun(ctx, t, args)
		ch <- result{out, err}
	}()
	select {
	case res := <-ch:
		return res.out, res.err
	case <-ctx.Done():
	}
	grace := time.NewTimer(ToolGrace)
	defer grace.Stop()
	select {
	case res := <-ch:
		return res.out, res.err
	case <-grace.C:
		return "", fmt.Errorf("%w: %w", errAbandoned, context.Cause(ctx))
	}
}

// safeRun calls the tool, turning a panic into an error: a bug in one tool
// must not take down the program that hosts the loop.
func safeRun(ctx context.Context, t *Tool, args []byte) (out string, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = "", fmt.Errorf("%w: %v", ErrToolPanic, v)
		}
	}()
	return t.Run(ctx, args)
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
