package agentloop

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Dispatch runs one call of a turn, one [Core.Plan] let through: the tool
// gets its arguments (empty text as {}) and a context carrying the call
// ([CallFromContext]) that ends after the Loop's ToolTimeout or with ctx;
// a tool that has not returned [ToolGrace] after that is abandoned; a panic
// is recovered; the output is cut at MaxToolOutputBytes. The Answer's
// Outcome is [Ran], [Recovered] or [Failed] (a timeout is never
// recoverable), its Err a [*ToolError]. A driver that stopped the call —
// ctx ended — marks the answer [Cancelled] itself. Dispatch may be called
// for several calls at once.
func (c *Core) Dispatch(ctx context.Context, call Call) Answer {
	start := time.Now()
	out, err := c.runTool(ctx, call)
	a := Answer{Call: call, Duration: time.Since(start)}
	if err == nil {
		a.Outcome, a.OutputBytes = Ran, len(out)
		a.Content, a.CutBytes = truncate(out, c.l.MaxToolOutputBytes)
		return a
	}
	a.Err = &ToolError{Name: call.Name, CallID: call.ID, Index: call.Index, Err: err}
	var rec *RecoverableError
	if errors.As(err, &rec) && !errors.Is(err, ErrToolTimeout) {
		a.Outcome, a.Content = Recovered, "error: "+rec.Error()
	} else {
		a.Outcome, a.Content = Failed, "error: "+a.Err.Error()
	}
	a.Content, _ = truncate(a.Content, c.l.MaxToolOutputBytes)
	return a
}

// runTool runs the call's tool under the tool timeout and returns its
// result or its failure.
func (c *Core) runTool(ctx context.Context, call Call) (string, error) {
	tool := c.byName[call.Name]
	args, err := parseArguments(call.Arguments)
	if tool == nil || err != nil {
		// Plan lets no such call through.
		return "", fmt.Errorf("agentloop: internal error: call %s was not checked", call.ID)
	}
	tctx, cancel := context.WithValue(ctx, callKey{}, call), context.CancelFunc(func() {})
	if c.l.ToolTimeout > 0 {
		tctx, cancel = context.WithTimeout(tctx, c.l.ToolTimeout)
	}
	defer cancel()
	out, err := runBounded(tctx, tool, args)
	if err == nil {
		// A tool that returned a result within the grace period after
		// its deadline still returned a result; keep it.
		return out, nil
	}
	if ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("%w after %v: %w", ErrToolTimeout, c.l.ToolTimeout, err)
	}
	return "", err
}

// runBounded runs the tool on its own goroutine, a panic recovered, and
// abandons it ToolGrace after ctx ended (its result, if it ever comes,
// goes into the buffered channel and is dropped).
func runBounded(ctx context.Context, t *Tool, args []byte) (string, error) {
	type result struct {
		out string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				ch <- result{"", fmt.Errorf("%w: %v", ErrToolPanic, v)}
			}
		}()
		out, err := t.Run(ctx, args)
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
		return "", fmt.Errorf("the tool ignored its context and was abandoned %v after it ended: %w",
			ToolGrace, context.Cause(ctx))
	}
}
