package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// benchTurns is the model turns of one benchmark run: benchTurns-1 turns
// of calls, then an answer.
const benchTurns = 5

// BenchmarkOverhead runs the same agent — a local fake model, a tool that
// does nothing — with the plain agentloop.Loop and as a workflow on a dev
// server (worker in this process), with 1 and 4 calls a turn. An op is a
// whole run; the differences give what Temporal adds per model turn and per
// tool call (see README.md for the arithmetic and the figures).
func BenchmarkOverhead(b *testing.B) {
	c, _ := devServer(b)
	for _, calls := range []int{1, 4} {
		model, _ := newModel(b, llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
			n := 0
			for _, m := range r.Messages {
				if m.Role == "assistant" {
					n++
				}
			}
			if n == benchTurns-1 {
				return llmstreamtest.Turn{Text: "done"}
			}
			t := llmstreamtest.Turn{}
			for i := range calls {
				t.ToolCalls = append(t.ToolCalls, llmstreamtest.Call{ID: fmt.Sprintf("c%d_%d", n, i), Name: "noop", Arguments: `{}`})
			}
			return t
		}))
		noop := []agentloop.Tool{{Name: "noop", Run: func(context.Context, json.RawMessage) (string, error) { return "ok", nil }}}
		ctx := context.Background()
		b.Run("plain/calls="+strconv.Itoa(calls), func(b *testing.B) {
			loop := agentloop.Loop{Model: model, Tools: noop}
			for b.Loop() {
				if _, err := loop.Run(ctx, user("go")); err != nil {
					b.Fatal(err)
				}
			}
			reportPerTurn(b)
		})
		b.Run("temporal/calls="+strconv.Itoa(calls), func(b *testing.B) {
			queue := "bench-" + strconv.Itoa(calls)
			w := worker.New(c, queue, worker.Options{})
			Register(w, Agent{Model: model, Tools: noop})
			if err := w.Start(); err != nil {
				b.Fatal(err)
			}
			defer w.Stop()
			i := 0
			for b.Loop() {
				i++
				r, err := Start(ctx, c, client.StartWorkflowOptions{ID: queue + "-" + strconv.Itoa(i) + "-" + strconv.Itoa(b.N), TaskQueue: queue}, user("go"), Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Result(ctx); err != nil {
					b.Fatal(err)
				}
			}
			reportPerTurn(b)
		})
	}
}

// BenchmarkActivityRoundTrip is Temporal's own cost, for comparison: a
// workflow that runs n activities doing nothing, one after another, on the
// dev server (worker in this process). An op is one such workflow;
// ms/activity is the figure to read.
func BenchmarkActivityRoundTrip(b *testing.B) {
	c, _ := devServer(b)
	const n = 20
	w := worker.New(c, "roundtrip", worker.Options{})
	w.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: "nothing"})
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		for range n {
			if err := workflow.ExecuteActivity(ctx, "nothing").Get(ctx, nil); err != nil {
				return err
			}
		}
		return nil
	}, workflow.RegisterOptions{Name: "roundtrip"})
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	ctx := context.Background()
	runs := 0
	for b.Loop() {
		runs++
		r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "roundtrip-" + strconv.Itoa(runs) + "-" + strconv.Itoa(b.N), TaskQueue: "roundtrip"}, "roundtrip")
		if err == nil {
			err = r.Get(ctx, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/n, "ms/activity")
}

// reportPerTurn reports the milliseconds of one model turn with its calls.
func reportPerTurn(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N)/benchTurns, "ms/turn")
}
