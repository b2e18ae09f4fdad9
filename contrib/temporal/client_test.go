package temporal

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// TestRunOnServer drives a run through the client API on a dev server:
// Progress while a turn streams, Pending and Decide (with refusals), State
// while the run waits, and Result across a continue-as-new.
func TestRunOnServer(t *testing.T) {
	c, _ := devServer(t)
	text := "let me delete that file and tell you what it held when it is gone"
	model, _ := newModel(t, llmstreamtest.WithEventDelay(150*time.Millisecond), llmstreamtest.WithTurns(
		llmstreamtest.Turn{Text: text, ToolCalls: []llmstreamtest.Call{
			{ID: "c1", Name: "delete", Arguments: `{"text":"a"}`},
			{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`},
		}},
		llmstreamtest.Turn{Text: "gone"},
	))
	var j journal
	del := echoTool("delete", &j)
	del.NeedsApproval = true
	w := worker.New(c, "api", worker.Options{})
	Register(w, Agent{Model: model, Tools: []agentloop.Tool{del, echoTool("echo", &j)}})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	run, err := Start(ctx, c, client.StartWorkflowOptions{ID: "api-1", TaskQueue: "api"}, user("delete it"), Options{MaxHistoryEvents: 10, HeartbeatTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The SDK sends heartbeats at most every 0.8 × HeartbeatTimeout: with
	// 1 s, a stream of ~2 s shows its text at least once.
	var p Progress
	for ok := false; !ok || p.Text == ""; {
		if p, ok, err = run.Progress(ctx); err != nil {
			t.Fatal(err)
		}
		if pending, _ := run.Pending(ctx); len(pending) > 0 {
			t.Fatal("the turn ended with no progress seen")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p.Turn != 1 || p.Attempt != 1 || len(p.Text) > len(text) || text[:len(p.Text)] != p.Text {
		t.Errorf("progress %+v", p)
	}

	var pending []agentloop.Call
	for len(pending) == 0 {
		if pending, err = run.Pending(ctx); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatal("no call ever waited")
		}
	}
	if len(pending) != 1 || pending[0].ID != "c1" || pending[0].Name != "delete" {
		t.Fatalf("pending %+v", pending)
	}
	if err := run.Decide(ctx, "c2", agentloop.Decision{Verdict: agentloop.Allow}); !errors.Is(err, ErrNotPending) {
		t.Errorf("deciding a call that needs no decision: %v, want ErrNotPending", err)
	}
	if err := run.Decide(ctx, "c1", agentloop.Decision{Verdict: agentloop.Pause}); !errors.Is(err, ErrInvalidVerdict) {
		t.Errorf("pausing a waiting call: %v, want ErrInvalidVerdict", err)
	}
	st, err := run.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Messages) != 2 || len(j.list()) != 0 {
		t.Errorf("while waiting: %d messages, %d tool runs; want 2, 0", len(st.Messages), len(j.list()))
	}
	if err := run.Decide(ctx, "c1", agentloop.Decision{Verdict: agentloop.Allow}); err != nil {
		t.Fatal(err)
	}
	if err := run.Decide(ctx, "c1", agentloop.Decision{Verdict: agentloop.Deny}); !errors.Is(err, ErrNotPending) {
		t.Errorf("deciding a call twice: %v, want ErrNotPending", err)
	}

	st, err = run.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Turns != 2 || st.ToolCalls != 2 || len(st.Messages) != 5 || st.Messages[4].Content != "gone" {
		t.Errorf("result: turns %d, calls %d:\n%s", st.Turns, st.ToolCalls, transcript(st.Messages))
	}
	if last := c.GetWorkflow(ctx, run.ID, ""); last.GetRunID() == run.RunID {
		t.Errorf("the run did not continue as new: one execution, %s", last.GetRunID())
	}
	// A decision on a finished run: nothing waits.
	if err := run.Decide(ctx, "c1", agentloop.Decision{Verdict: agentloop.Allow}); !errors.Is(err, ErrNotPending) {
		t.Errorf("deciding on a finished run: %v, want ErrNotPending", err)
	}
	if got := j.list(); len(got) != 2 {
		t.Errorf("tool runs %q, want both calls once", got)
	}
}
