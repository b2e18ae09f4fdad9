package temporal

import (
	"errors"

	"github.com/airlock-go/airlock/agentloop"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// runCalls runs the turn's calls that are not denied as tool activities,
// at most ParallelTools at once, in call order, and hands their answers to
// Finish; a call that fails the run cancels those running.
func (w *execution) runCalls(t *agentloop.Turn) error {
	bctx, cancel := workflow.WithCancel(w.ctx)
	defer cancel()
	actx := workflow.WithActivityOptions(bctx, workflow.ActivityOptions{
		// agentloop gives a tool that ignores its context ToolGrace to
		// return; the attempt's bound leaves room for that and the answer.
		StartToCloseTimeout: w.loop.ToolTimeout + 2*agentloop.ToolGrace,
		HeartbeatTimeout:    w.o.HeartbeatTimeout,
		RetryPolicy:         w.o.ToolRetry,
	})
	running, failed := 0, false
	for i, c := range t.Calls {
		if !t.Runs(i) {
			continue
		}
		if err := workflow.Await(w.ctx, func() bool { return running < w.loop.ParallelTools || failed }); err != nil || failed {
			break
		}
		running++
		// Started: Cancelled until its answer comes, which it may never do
		// once the run is cancelled.
		t.Answers[i].Outcome = agentloop.Cancelled
		in := toolInput{Call: c, MaxOutputBytes: w.loop.MaxToolOutputBytes, Timeout: w.loop.ToolTimeout}
		workflow.Go(w.ctx, func(ctx workflow.Context) {
			defer func() { running-- }()
			var ans answer
			err := workflow.ExecuteActivity(actx, w.name+toolSuffix, in).Get(ctx, &ans)
			a := &t.Answers[i]
			var app *sdktemporal.ApplicationError
			switch {
			case err == nil && !ans.IsError:
				a.Outcome, a.Content = agentloop.Ran, ans.Content
			case err == nil:
				a.Outcome, a.Content = agentloop.Recovered, ans.Content
				a.Err = &agentloop.ToolError{Name: c.Name, CallID: c.ID, Index: c.Index, Err: errors.New(ans.Content)}
			case w.ctx.Err() != nil || bctx.Err() != nil:
				// Stopped: the run's end or another call's failure.
			case errors.As(err, &app) && app.Type() == errTypeTool:
				// The tool failed the run; the details hold its answer.
				if !app.HasDetails() || app.Details(&ans) != nil {
					ans.Content = "error: " + app.Error()
				}
				a.Outcome, a.Content, a.Err = agentloop.Failed, ans.Content, err
			default: // the attempts ran out
				a.Outcome, a.Content, a.Err = agentloop.Failed, "error: the call did not finish: "+err.Error(), err
			}
			if a.Outcome == agentloop.Failed && !failed {
				failed = true
				cancel()
			}
		})
	}
	// A cancelled run does not wait for its calls: they are answered
	// "cancelled" or "not run".
	_ = workflow.Await(w.ctx, func() bool { return running == 0 })
	return w.core.Finish(&w.st, t)
}
