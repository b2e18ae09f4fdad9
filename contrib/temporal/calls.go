package temporal

import (
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"go.temporal.io/sdk/workflow"
)

// callResult is what became of one call of a turn.
type callResult struct {
	ans     answer
	started bool
	// fatal is the failure that stops the run, nil otherwise.
	fatal error
}

// runCalls runs the calls that were not denied (denied[i] is the answer
// of a denied call), at most ParallelTools at once and started in call
// order, then answers every call in call order.
//
// As in agentloop, a failed call stops the calls not yet started (they are
// answered "skipped"); a failure that is not recoverable also cancels the
// calls still running and fails the run. With ParallelTools 1 this is
// agentloop's sequential behaviour exactly.
func (w *run) runCalls(calls []llmstream.ToolCall, denied []*answer) error {
	results := make([]callResult, len(calls))
	bctx, cancel := workflow.WithCancel(w.ctx)
	defer cancel()
	actx := workflow.WithActivityOptions(bctx, workflow.ActivityOptions{
		// agentloop gives a tool that ignores its context ToolGrace to
		// return; the attempt's bound leaves room for that and the answer.
		StartToCloseTimeout: w.o.ToolTimeout + 2*agentloop.ToolGrace,
		HeartbeatTimeout:    w.o.HeartbeatTimeout,
		RetryPolicy:         w.o.ToolRetry,
	})
	running, failedID := 0, ""
	for i, c := range calls {
		if denied[i] != nil {
			results[i] = callResult{ans: *denied[i]}
			continue
		}
		if err := workflow.Await(w.ctx, func() bool { return running < w.o.ParallelTools || failedID != "" }); err != nil {
			return w.cancelled(calls, results, err)
		}
		if failedID != "" {
			results[i].ans = answer{Content: "skipped: not run because call " + failedID + " failed"}
			continue
		}
		running++
		results[i].started = true
		in := toolInput{Call: c, MaxOutputBytes: w.o.MaxToolOutputBytes, Timeout: w.o.ToolTimeout}
		workflow.Go(w.ctx, func(ctx workflow.Context) {
			defer func() { running-- }()
			r := &results[i]
			err := workflow.ExecuteActivity(actx, w.name+toolSuffix, in).Get(ctx, &r.ans)
			switch ans, isTool := toolFailure(err); {
			case err == nil && !r.ans.IsError:
				return
			case err == nil: // recoverable: the model reads the error
			case isTool:
				r.ans, r.fatal = ans, fmt.Errorf("temporal: turn %d: %w", w.st.Turns, err)
				cancel()
			case bctx.Err() != nil && w.ctx.Err() == nil:
				// Cancelled because another call of the turn failed the run.
				r.ans = answer{Content: "cancelled: call " + failedID + " failed while this call ran", IsError: true}
				return
			default: // the run was cancelled, or the attempts ran out
				r.ans = answer{Content: "cancelled: the call did not finish: " + err.Error(), IsError: true}
				r.fatal = fmt.Errorf("temporal: turn %d: tool %q (call %s): %w", w.st.Turns, c.Function.Name, c.ID, err)
				cancel()
			}
			if failedID == "" {
				failedID = c.ID
			}
		})
	}
	if err := workflow.Await(w.ctx, func() bool { return running == 0 }); err != nil {
		return w.cancelled(calls, results, err)
	}
	var fatal error
	for i, c := range calls {
		w.st.answer(c.ID, results[i].ans.Content, results[i].ans.IsError)
		if fatal == nil {
			fatal = results[i].fatal
		}
	}
	if fatal != nil {
		return w.failed(errTypeTool, fatal)
	}
	return nil
}

// cancelled answers every call when the run itself was cancelled while its
// calls waited or ran, and returns err.
func (w *run) cancelled(calls []llmstream.ToolCall, results []callResult, err error) error {
	for i, c := range calls {
		switch {
		case results[i].ans.Content != "":
			w.st.answer(c.ID, results[i].ans.Content, results[i].ans.IsError)
		case results[i].started:
			w.st.answer(c.ID, "cancelled: the run was cancelled while this call ran", true)
		default:
			w.st.answer(c.ID, "not run: the run was cancelled", false)
		}
	}
	return err
}
