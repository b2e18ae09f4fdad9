package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// stubborn is a tool that ignores its context: it returns only when
// release is closed, and closes done when it has.
type stubborn struct {
	release, done chan struct{}
}

func newStubborn() *stubborn {
	return &stubborn{release: make(chan struct{}), done: make(chan struct{})}
}

func (s *stubborn) tool() agentloop.Tool {
	return agentloop.Tool{Name: "stubborn", Run: func(context.Context, json.RawMessage) (string, error) {
		defer close(s.done)
		<-s.release
		return "finished anyway", nil
	}}
}

// finish lets the tool return and waits for its goroutine, so goleak sees
// no leftover goroutine.
func (s *stubborn) finish(t *testing.T) {
	t.Helper()
	close(s.release)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Error("the abandoned tool did not finish after release")
	}
}

// runWithin runs l and fails the test if Run has not returned after
// limit; a loop that waits for a tool ignoring its context would hang
// here.
func runWithin(t *testing.T, ctx context.Context, l *agentloop.Loop, limit time.Duration) (agentloop.Result, time.Duration, error) {
	t.Helper()
	type ret struct {
		res agentloop.Result
		err error
	}
	ch := make(chan ret, 1)
	start := time.Now()
	go func() {
		res, err := l.Run(ctx, user)
		ch <- ret{res, err}
	}()
	select {
	case r := <-ch:
		return r.res, time.Since(start), r.err
	case <-time.After(limit):
		t.Fatalf("Run still waiting after %v for a tool that ignores its context", limit)
		return agentloop.Result{}, 0, nil
	}
}

func TestRunAbandonsToolIgnoringContext(t *testing.T) {
	// Generous bound: ToolTimeout + ToolGrace plus slack for a busy
	// machine under -race.
	const slack = 8 * time.Second
	t.Run("timeout", func(t *testing.T) {
		st := newStubborn()
		defer st.finish(t)
		s := &script{turns: []llmstream.Message{asst("", call("c1", "stubborn", `{}`), call("c2", "stubborn", `{}`)), asst("done")}}
		l := &agentloop.Loop{Model: s, Tools: []agentloop.Tool{st.tool()}, ToolTimeout: 20 * time.Millisecond}
		res, took, err := runWithin(t, context.Background(), l, 20*time.Millisecond+agentloop.ToolGrace+slack)
		if !errors.Is(err, agentloop.ErrToolTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Run error %v, want ErrToolTimeout wrapping context.DeadlineExceeded", err)
		}
		if took < agentloop.ToolGrace {
			t.Errorf("Run returned after %v, before the grace period of %v", took, agentloop.ToolGrace)
		}
		if len(s.seen) != 1 {
			t.Errorf("model called %d times after the timeout, want 1", len(s.seen))
		}
		checkAllAnswered(t, res.Messages)
		if got := res.Messages[3].Content; !strings.Contains(got, "ignored its context and was abandoned") {
			t.Errorf("call c1 answered %q, want it to say the tool was abandoned", got)
		}
		if got := res.Messages[4].Content; !strings.HasPrefix(got, "skipped: ") {
			t.Errorf("call c2 answered %q, want skipped", got)
		}
	})
	t.Run("cancellation", func(t *testing.T) {
		st := newStubborn()
		defer st.finish(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		started := make(chan struct{})
		tool := st.tool()
		run := tool.Run
		tool.Run = func(ctx context.Context, args json.RawMessage) (string, error) {
			close(started)
			return run(ctx, args)
		}
		go func() {
			<-started
			cancel()
		}()
		s := &script{turns: []llmstream.Message{asst("", call("c1", "stubborn", `{}`)), asst("done")}}
		l := &agentloop.Loop{Model: s, Tools: []agentloop.Tool{tool}, ToolTimeout: -1}
		res, _, err := runWithin(t, ctx, l, agentloop.ToolGrace+slack)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run error %v, want context.Canceled", err)
		}
		checkAllAnswered(t, res.Messages)
	})
	t.Run("a tool returning within the grace period is waited for", func(t *testing.T) {
		late := agentloop.Tool{Name: "late", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			<-ctx.Done()
			time.Sleep(10 * time.Millisecond)
			return "", errors.New("cleaned up")
		}}
		s := &script{turns: []llmstream.Message{asst("", call("c1", "late", `{}`))}}
		l := &agentloop.Loop{Model: s, Tools: []agentloop.Tool{late}, ToolTimeout: 10 * time.Millisecond}
		res, _, err := runWithin(t, context.Background(), l, agentloop.ToolGrace+slack)
		if !errors.Is(err, agentloop.ErrToolTimeout) {
			t.Fatalf("Run error %v, want ErrToolTimeout", err)
		}
		if got := res.Messages[3].Content; !strings.HasSuffix(got, ": cleaned up") {
			t.Errorf("call answered %q, want the tool's own error", got)
		}
	})
}
