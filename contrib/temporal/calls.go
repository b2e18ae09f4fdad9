package temporal

import (
	"fmt"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"go.temporal.io/sdk/workflow"
)

// outcome is what became of one call of a turn.
type outcome uint8

const (
	notRun    outcome = iota // denied, skipped, or not reached
	succeeded                // the tool returned a result
	recovered                // the tool failed recoverably: the model reads the error
	fatal                    // the call failed the run
	stopped                  // cancelled because another call failed the run
)

// callResult is one call's answer and outcome.
type callResult struct {
	ans     answer
	outcome outcome
	started bool
	err     error
}

// runCalls runs the calls that were not denied (denied[i] is the answer
// of a denied call), at most ParallelTools at once and started in call
// order, then answers every call in call order and applies agentloop's
// failure rules in that order: a call that fails the run cancels the
// calls still running and skips those not started; a recoverable failure
// is the model's to read, unless it repeats the failure just before it.
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
			results[i].ans = *denied[i]
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
				r.outcome = succeeded
			case err == nil:
				r.outcome = recovered
			case w.ctx.Err() != nil:
				r.ans = answer{Content: "cancelled: the run was cancelled while this call ran", IsError: true}
			case bctx.Err() != nil:
				r.outcome = stopped
			case isTool:
				r.ans, r.outcome, r.err = ans, fatal, fmt.Errorf("temporal: turn %d: %w", w.st.Turns, err)
			default: // the attempts ran out
				r.ans = answer{Content: "cancelled: the call did not finish: " + err.Error(), IsError: true}
				r.outcome, r.err = fatal, fmt.Errorf("temporal: turn %d: tool %q (call %s): %w", w.st.Turns, c.Function.Name, c.ID, err)
			}
			if r.outcome == fatal && failedID == "" {
				failedID = c.ID
				cancel()
			}
		})
	}
	if err := workflow.Await(w.ctx, func() bool { return running == 0 }); err != nil {
		return w.cancelled(calls, results, err)
	}
	for i, c := range calls {
		if results[i].outcome == stopped {
			results[i].ans = answer{Content: "cancelled: call " + failedID + " failed while this call ran", IsError: true}
		}
		w.st.answer(c.ID, results[i].ans.Content, results[i].ans.IsError)
	}
	if w.ctx.Err() != nil {
		return w.ctx.Err()
	}
	return w.verdict(calls, results)
}

// verdict applies agentloop's failure rules to the outcomes in call order
// and returns the error that stops the run, nil when it goes on.
func (w *run) verdict(calls []llmstream.ToolCall, results []callResult) error {
	var stop error
	for i, r := range results {
		switch r.outcome {
		case succeeded:
			w.st.LastFailure = ""
		case recovered:
			key := calls[i].Function.Name + "\x00" + calls[i].Function.Arguments + "\x00" + r.ans.Content
			if key == w.st.LastFailure && stop == nil {
				stop = w.fail(fmt.Errorf("%w: tool %q (call %s): %s", agentloop.ErrRepeatedFailure, calls[i].Function.Name, calls[i].ID, r.ans.Content))
			}
			w.st.LastFailure = key
		case fatal:
			if stop == nil {
				stop = w.failed(errTypeTool, r.err)
			}
		}
	}
	return stop
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
