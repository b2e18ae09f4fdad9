package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// TestParallelWidth: at most ParallelTools calls run at once, and that
// many do. The tools block until the test releases one, which it does
// only once as many as may run are running, so the test needs no timing.
func TestParallelWidth(t *testing.T) {
	for _, tc := range []struct{ width, calls, want int }{
		{0, 4, 1}, {1, 4, 1}, {2, 4, 2}, {3, 4, 3}, {4, 4, 4}, {8, 4, 4}, {-1, 3, 1},
	} {
		t.Run(fmt.Sprintf("width %d, %d calls", tc.width, tc.calls), func(t *testing.T) {
			var mu sync.Mutex
			running, most := 0, 0
			started := make(chan struct{}, tc.calls)
			release := make(chan struct{})
			block := agentloop.Tool{Name: "block", Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
				started <- struct{}{}
				<-release
				mu.Lock()
				running--
				mu.Unlock()
				return string(args), nil
			}}
			go func() {
				begun := 0
				for done := 0; done < tc.calls; done++ {
					for begun-done < min(tc.want, tc.calls-done) {
						<-started
						begun++
					}
					release <- struct{}{}
				}
			}()
			cs := make([]llmstream.ToolCall, tc.calls)
			for i := range cs {
				cs[i] = call(fmt.Sprintf("c%d", i), "block", fmt.Sprintf(`{"n":%d}`, i))
			}
			var runningSeen []int
			l := agentloop.Loop{
				Model: &script{turns: []llmstream.Message{asst("", cs...), asst("done")}}, Tools: []agentloop.Tool{block},
				ParallelTools: tc.width,
				Hooks:         agentloop.Hooks{BeforeTool: func(e agentloop.ToolStart) { runningSeen = append(runningSeen, e.Running) }},
			}
			res, err := l.Run(context.Background(), user)
			if err != nil {
				t.Fatal(err)
			}
			checkAllAnswered(t, res.Messages)
			for i := range cs {
				if got, want := res.Messages[len(user)+1+i].Content, fmt.Sprintf(`{"n":%d}`, i); got != want {
					t.Errorf("answer %d = %q, want %q", i, got, want)
				}
			}
			if most != tc.want || slicesMax(runningSeen) != tc.want {
				t.Errorf("at most %d ran at once (hooks saw %v), want %d", most, runningSeen, tc.want)
			}
		})
	}
}

func slicesMax(s []int) int {
	m := 0
	for _, v := range s {
		m = max(m, v)
	}
	return m
}

// TestParallelOrder: the answers follow the calls' order, the AfterTool
// hooks the finish order.
func TestParallelOrder(t *testing.T) {
	const n = 4
	gates := make([]chan struct{}, n)
	for i := range gates {
		gates[i] = make(chan struct{})
	}
	started := make(chan struct{}, n)
	gate := agentloop.Tool{Name: "gate", Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var in struct{ N int }
		_ = json.Unmarshal(args, &in)
		started <- struct{}{}
		<-gates[in.N]
		return fmt.Sprint("out ", in.N), nil
	}}
	// Once all have started, the last is let go; each AfterTool lets the
	// call before it go, so they finish from the last to the first.
	go func() {
		for range n {
			<-started
		}
		gates[n-1] <- struct{}{}
	}()
	cs := make([]llmstream.ToolCall, n)
	for i := range cs {
		cs[i] = call(fmt.Sprintf("c%d", i), "gate", fmt.Sprintf(`{"n":%d}`, i))
	}
	var finished []int
	l := agentloop.Loop{
		Model: &script{turns: []llmstream.Message{asst("", cs...), asst("done")}}, Tools: []agentloop.Tool{gate},
		ParallelTools: n,
		Hooks: agentloop.Hooks{AfterTool: func(e agentloop.ToolDone) {
			finished = append(finished, e.Index)
			if e.Index > 0 {
				gates[e.Index-1] <- struct{}{}
			}
		}},
	}
	res, err := l.Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	want := concat(user, []llmstream.Message{asst("", cs...)}, []llmstream.Message{toolMsg("c0", "out 0"), toolMsg("c1", "out 1"), toolMsg("c2", "out 2"), toolMsg("c3", "out 3")}, []llmstream.Message{asst("done")})
	if diff := cmp.Diff(want, res.Messages); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{3, 2, 1, 0}, finished); diff != "" {
		t.Errorf("finish order (-want +got):\n%s", diff)
	}
}

// TestParallelFailure: a call that fails the run while others run
// cancels them; a call not started is skipped; every call is answered;
// the run's error is the failed call's. A recoverable failure cancels
// nothing.
func TestParallelFailure(t *testing.T) {
	tests := []struct {
		name    string
		run     func(context.Context) (string, error)
		timeout time.Duration
		wantErr error
		fatal   bool
	}{
		{"fails", func(context.Context) (string, error) { return "", errBoom }, 0, errBoom, true},
		{"panics", func(context.Context) (string, error) { panic("bad tool") }, 0, agentloop.ErrToolPanic, true},
		{"times out", func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() }, 20 * time.Millisecond, agentloop.ErrToolTimeout, true},
		{"fails recoverably", func(context.Context) (string, error) { return "", agentloop.Recoverable(errBoom) }, 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// wait runs twice (c0, c2) beside bad (c1); c3 waits for a
			// free slot. bad fails once both waits have started; a wait
			// goes on once AfterTool saw bad's end, so bad's end is the
			// first the loop sees, then returns when its context ends (or
			// at once when bad did not fail the run).
			waiting := make(chan struct{}, 2)
			sawBad := make(chan struct{})
			tools := []agentloop.Tool{
				{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
					waiting <- struct{}{}
					<-sawBad
					if !tt.fatal {
						return "waited", nil
					}
					<-ctx.Done()
					return "", ctx.Err()
				}},
				{Name: "bad", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
					<-waiting
					<-waiting
					return tt.run(ctx)
				}},
			}
			cs := []llmstream.ToolCall{call("c0", "wait", `{}`), call("c1", "bad", `{}`), call("c2", "wait", `{}`), call("c3", "wait", `{}`)}
			l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", cs...), asst("done")}}, Tools: tools, ParallelTools: 3, ToolTimeout: tt.timeout,
				Hooks: agentloop.Hooks{AfterTool: func(e agentloop.ToolDone) {
					if e.Call.ID == "c1" {
						close(sawBad)
					}
				}}}
			res, err := l.Run(context.Background(), user)
			checkAllAnswered(t, res.Messages)
			got := res.Messages[len(user)+1 : len(user)+5]
			if !tt.fatal {
				if err != nil || got[0].Content != "waited" || got[1].Content != "error: boom" || got[2].Content != "waited" {
					t.Errorf("err %v, answers %+v", err, got)
				}
				return
			}
			var te *agentloop.ToolError
			if !errors.Is(err, tt.wantErr) || !errors.As(err, &te) || te.CallID != "c1" {
				t.Fatalf("err = %v, want a *ToolError of call c1 wrapping %v", err, tt.wantErr)
			}
			want := []string{"cancelled: call c1 failed while this call ran", "error: ", "cancelled: call c1 failed while this call ran", "skipped: not run because call c1 failed"}
			for i, m := range got {
				if !strings.HasPrefix(m.Content, want[i]) || m.IsError != (i != 3) {
					t.Errorf("answer %d = %q (is_error %v), want %q...", i, m.Content, m.IsError, want[i])
				}
			}
		})
	}
}

// TestParallelSameAsSequential: for random scripts of calls that succeed,
// fail recoverably (some the same way twice) or are denied, taking random
// short times, ParallelTools k gives the conversation and error
// ParallelTools 1 gives; only the timing differs.
func TestParallelSameAsSequential(t *testing.T) {
	tools := []agentloop.Tool{
		{Name: "work", Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var in struct {
				ID   string
				US   int
				Fail string
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			time.Sleep(time.Duration(in.US) * time.Microsecond)
			if in.Fail != "" {
				return "", agentloop.Recoverable(errors.New(in.Fail))
			}
			return "did " + in.ID, nil
		}},
		{Name: "write", NeedsApproval: true, Run: func(_ context.Context, args json.RawMessage) (string, error) {
			return "wrote " + string(args), nil
		}},
	}
	approve := func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
		if strings.Contains(c.Arguments, "deny") {
			return agentloop.Decision{Verdict: agentloop.Deny, Reason: "no " + c.ID}, nil
		}
		return agentloop.Decision{Verdict: agentloop.Allow}, nil
	}
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var turns []llmstream.Message
		for tn := range 1 + rng.IntN(4) {
			var cs []llmstream.ToolCall
			for cn := range 1 + rng.IntN(6) {
				id := fmt.Sprintf("t%dc%d", tn, cn)
				switch rng.IntN(5) {
				case 0:
					cs = append(cs, call(id, "write", fmt.Sprintf(`{"id":%q,"mode":%q}`, id, []string{"deny", "ok"}[rng.IntN(2)])))
				case 1:
					cs = append(cs, call(id, "work", fmt.Sprintf(`{"id":"same","us":%d,"fail":"same failure"}`, rng.IntN(500))))
				case 2:
					cs = append(cs, call(id, "work", fmt.Sprintf(`{"id":%q,"us":%d,"fail":"failed %s"}`, id, rng.IntN(500), id)))
				default:
					cs = append(cs, call(id, "work", fmt.Sprintf(`{"id":%q,"us":%d}`, id, rng.IntN(500))))
				}
			}
			turns = append(turns, asst("", cs...))
		}
		turns = append(turns, asst("done"))
		runWith := func(k int) ([]llmstream.Message, string) {
			l := agentloop.Loop{Model: &script{turns: turns}, Tools: tools, Approve: approve, ParallelTools: k}
			res, err := l.Run(context.Background(), user)
			if err := answeredInOrder(res.Messages, false); err != nil {
				t.Fatalf("seed %d, ParallelTools %d: %v", seed, k, err)
			}
			return res.Messages, fmt.Sprint(err)
		}
		want, wantErr := runWith(1)
		for _, k := range []int{2, 3, 8} {
			got, gotErr := runWith(k)
			if diff := cmp.Diff(want, got); diff != "" || gotErr != wantErr {
				t.Fatalf("seed %d: ParallelTools %d (err %s) differs from 1 (err %s):\n%s", seed, k, gotErr, wantErr, diff)
			}
		}
	}
}
