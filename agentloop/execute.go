package agentloop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// errCallFailed is the cause the turn's context ends with when one of its
// calls failed the run, so the others stop.
var errCallFailed = errors.New("agentloop: another call of the turn failed the run")

// outcome is what became of one call of a turn.
type outcome struct {
	state   callState
	content string
	err     error // the failure, for the hooks and the run's error
}

type callState uint8

const (
	notStarted callState = iota
	succeeded            // ran and returned a result
	recovered            // failed recoverably: the model sees the error
	fatal                // failed the run
	cancelled            // was running when the run was cancelled
	stopped              // was running when another call failed the run
	denied               // Approve said Deny
)

// finished is a call's result as its goroutine reports it.
type finished struct {
	index    int
	out      string
	err      error
	duration time.Duration
}

// runCalls runs the turn's allowed calls, up to Loop.ParallelTools at
// once, answers every call in call order, and applies the failure rules
// in call order, so the conversation does not depend on which call
// finished first. Hooks are called on this goroutine only.
func (r *run) runCalls(ctx context.Context, turn int, calls []llmstream.ToolCall) error {
	outs := make([]outcome, len(calls))
	var todo []int
	for i, c := range calls {
		if d, ok := r.decided[c.ID]; ok && d.Verdict == Deny {
			outs[i] = outcome{state: denied, content: denial(d)}
			continue
		}
		todo = append(todo, i)
	}
	width := max(r.s.ParallelTools, 1)
	firstFatal := -1
	next := 0
	if width == 1 || len(todo) == 1 {
		// One at a time: on this goroutine, with nothing to cancel.
		for ; next < len(todo) && firstFatal < 0 && ctx.Err() == nil; next++ {
			i := todo[next]
			r.beforeTool(turn, i, calls[i], len(todo), 1)
			start := time.Now()
			out, err := r.dispatch(ctx, turn, i, calls[i])
			outs[i] = r.classify(ctx, ctx, turn, calls[i], finished{index: i, out: out, err: err, duration: time.Since(start)})
			if outs[i].state == fatal {
				firstFatal = i
			}
		}
	} else {
		next, firstFatal = r.runParallel(ctx, turn, calls, todo, width, outs)
	}
	for _, i := range todo[next:] {
		switch {
		case firstFatal >= 0:
			outs[i].content = "skipped: not run because call " + calls[firstFatal].ID + " failed"
		default:
			outs[i].content = "not run: the run was cancelled"
		}
	}
	for i, o := range outs {
		if o.state == stopped {
			o.content = "cancelled: call " + calls[firstFatal].ID + " failed while this call ran"
		}
		r.answer(calls[i], o.content, o.state != succeeded && o.state != notStarted)
	}
	err := r.verdict(calls, outs)
	if err == nil && next < len(todo) && firstFatal < 0 {
		// The run was cancelled between two calls.
		err = fmt.Errorf("agentloop: turn %d: %w", turn, context.Cause(ctx))
	}
	return err
}

// runParallel runs the calls todo names, up to width at once, and fills
// in their outcomes. It returns how many of todo it started and the index
// of the call that failed the run first, -1 if none. Hooks are called on
// this goroutine only.
func (r *run) runParallel(ctx context.Context, turn int, calls []llmstream.ToolCall, todo []int, width int, outs []outcome) (next, firstFatal int) {
	tctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	results := make(chan finished, len(todo))
	firstFatal = -1
	running := 0
	for {
		for running < width && next < len(todo) && firstFatal < 0 && ctx.Err() == nil {
			i := todo[next]
			next++
			running++
			r.beforeTool(turn, i, calls[i], len(todo), running)
			go func(i int) {
				start := time.Now()
				out, err := r.dispatch(tctx, turn, i, calls[i])
				results <- finished{index: i, out: out, err: err, duration: time.Since(start)}
			}(i)
		}
		if running == 0 {
			return next, firstFatal
		}
		f := <-results
		running--
		o := r.classify(ctx, tctx, turn, calls[f.index], f)
		if o.state == fatal && firstFatal < 0 {
			firstFatal = f.index
			stop(errCallFailed)
		}
		outs[f.index] = o
	}
}

func (r *run) beforeTool(turn, index int, call llmstream.ToolCall, batch, running int) {
	if h := r.s.Hooks.BeforeTool; h != nil {
		h(ToolStart{Turn: turn, Index: index, Call: call, Batch: batch, Running: running})
	}
}

// verdict applies the failure rules to the outcomes in call order and
// returns the error that stops the run, nil when it goes on.
func (r *run) verdict(calls []llmstream.ToolCall, outs []outcome) error {
	var stop error
	for i, o := range outs {
		switch o.state {
		case succeeded:
			r.lastFailure = ""
		case recovered:
			key := calls[i].Function.Name + "\x00" + calls[i].Function.Arguments + "\x00" + o.content
			if key == r.lastFailure && stop == nil {
				stop = repeated(o.err)
			}
			r.lastFailure = key
		case fatal, cancelled:
			if stop == nil {
				stop = o.err
			}
		}
	}
	return stop
}

// classify turns a finished call into its outcome and calls AfterTool.
func (r *run) classify(ctx, tctx context.Context, turn int, call llmstream.ToolCall, f finished) outcome {
	done := ToolDone{Turn: turn, Index: f.index, Call: call, Duration: f.duration}
	var o outcome
	switch {
	case f.err == nil:
		done.OutputBytes = len(f.out)
		o.state = succeeded
		o.content, done.CutBytes = truncate(f.out, r.s.MaxToolOutputBytes)
	case ctx.Err() != nil:
		// The run was cancelled while the tool ran: that, not the
		// tool's reaction to it, is why the run stops. The tool did
		// start, so "not run" would be untrue: it may have done part of
		// its work.
		o.state = cancelled
		o.err = fmt.Errorf("agentloop: turn %d: tool %q: %w", turn, call.Function.Name, context.Cause(ctx))
		o.content = "cancelled: the run was cancelled while this call ran"
	case context.Cause(tctx) == errCallFailed:
		// Another call failed the run and this one was stopped; its
		// content is written once that call's id is known.
		o.state, o.err = stopped, f.err
	default:
		var rec *RecoverableError
		o.err = f.err
		if errors.As(f.err, &rec) && !errors.Is(f.err, ErrToolTimeout) {
			o.state, o.content = recovered, "error: "+rec.Error()
		} else {
			o.state, o.content = fatal, "error: "+f.err.Error()
		}
		o.content, _ = truncate(o.content, r.s.MaxToolOutputBytes)
	}
	done.Content, done.Err = o.content, o.err
	if o.state == stopped {
		done.Content = "cancelled: another call of the turn failed the run"
	}
	if h := r.s.Hooks.AfterTool; h != nil {
		h(done)
	}
	return o
}

// dispatch runs one checked call under the tool timeout, the call in its
// context for [CallFromContext]. Every failure it returns is a *ToolError.
func (r *run) dispatch(ctx context.Context, turn, index int, call llmstream.ToolCall) (string, error) {
	fail := func(err error) (string, error) {
		return "", &ToolError{Name: call.Function.Name, CallID: call.ID, Index: index, Err: err}
	}
	tool := r.s.byName[call.Function.Name]
	args, err := parseArguments(call.Function.Arguments)
	if tool == nil || err != nil {
		// checkCalls let no such call through.
		return fail(fmt.Errorf("agentloop: internal error: call %s was not checked", call.ID))
	}
	tctx, cancel := context.WithValue(ctx, callKey{}, newCall(turn, index, call)), context.CancelFunc(func() {})
	if r.s.ToolTimeout > 0 {
		tctx, cancel = context.WithTimeout(tctx, r.s.ToolTimeout)
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
