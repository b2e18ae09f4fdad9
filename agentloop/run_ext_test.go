package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// bigTool returns n bytes of c for every call.
func bigTool(name string, n int, c byte) agentloop.Tool {
	return agentloop.Tool{Name: name, Run: func(context.Context, json.RawMessage) (string, error) {
		return strings.Repeat(string(c), n), nil
	}}
}

func TestRunOutputLimit(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		size      int
		want      string
		wantCut   int
		wantBytes int
	}{
		{"one below the limit", 10, 9, strings.Repeat("x", 9), 0, 9},
		{"at the limit", 10, 10, strings.Repeat("x", 10), 0, 10},
		{"one above the limit", 10, 11, strings.Repeat("x", 10) + "\n[airlock: output truncated, 1 bytes cut]", 1, 11},
		{"default 32 KiB: at", 0, 32 << 10, strings.Repeat("x", 32<<10), 0, 32 << 10},
		{"default 32 KiB: above", 0, 32<<10 + 5, strings.Repeat("x", 32<<10) + "\n[airlock: output truncated, 5 bytes cut]", 5, 32<<10 + 5},
		{"negative: no limit", -1, 40 << 10, strings.Repeat("x", 40<<10), 0, 40 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var done []agentloop.ToolDone
			l := agentloop.Loop{
				Model:              &script{turns: []llmstream.Message{asst("", call("c", "big", `{}`)), asst("done")}},
				Tools:              []agentloop.Tool{bigTool("big", tc.size, 'x')},
				MaxToolOutputBytes: tc.limit,
				MaxContextBytes:    -1,
				Hooks:              agentloop.Hooks{AfterTool: func(d agentloop.ToolDone) { done = append(done, d) }},
			}
			res, err := l.Run(context.Background(), user)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Messages[3].Content; got != tc.want {
				t.Errorf("content: %d bytes ending %q, want %d bytes ending %q", len(got), got[max(0, len(got)-50):], len(tc.want), tc.want[max(0, len(tc.want)-50):])
			}
			if len(done) != 1 || done[0].CutBytes != tc.wantCut || done[0].OutputBytes != tc.wantBytes || done[0].Content != tc.want {
				t.Errorf("ToolDone cut %d bytes %d, want %d %d", done[0].CutBytes, done[0].OutputBytes, tc.wantCut, tc.wantBytes)
			}
		})
	}
}

func TestRunContextBudget(t *testing.T) {
	// Conversation bytes: system 8 + user 2 = 10; each turn adds an
	// assistant call (name "big" 3 + args "{}" 2 = 5) and a 100-byte output.
	turns := []llmstream.Message{
		asst("", call("c1", "big", `{}`)),
		asst("", call("c2", "big", `{}`)),
		asst("done"),
	}
	m := "[airlock: tool output of 100 bytes dropped to fit the context budget]"
	x := strings.Repeat("x", 100)
	tests := []struct {
		name        string
		budget      int
		wantErr     error
		wantSeen    [][]string // tool contents the model saw, per turn
		wantDropped int
	}{
		// Before turn 3 the conversation is 10 + 2*105 = 220 bytes.
		{"one above: the oldest output is dropped", 219, nil, [][]string{{}, {x}, {m, x}}, 1},
		{"at the budget: nothing dropped", 220, nil, [][]string{{}, {x}, {x, x}}, 0},
		{"one below: nothing dropped", 221, nil, [][]string{{}, {x}, {x, x}}, 0},
		{"tight: both dropped before turn 3", 10 + 2*5 + 2*len(m), nil, [][]string{{}, {x}, {m, m}}, 2},
		{"too tight: the first message alone is too big", 9, agentloop.ErrContextBudget, [][]string{}, 0},
		{"negative: no budget", -1, nil, [][]string{{}, {x}, {x, x}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{turns: turns}
			l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{bigTool("big", 100, 'x')}, MaxContextBytes: tc.budget}
			res, err := l.Run(context.Background(), []llmstream.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "go"}})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Run error %v, want %v", err, tc.wantErr)
			}
			seen := [][]string{}
			for _, msgs := range s.seen {
				seen = append(seen, toolContents(msgs))
			}
			if diff := cmp.Diff(tc.wantSeen, seen); diff != "" {
				t.Errorf("tool outputs the model saw (-want +got):\n%s", diff)
			}
			if res.DroppedToolOutputs != tc.wantDropped {
				t.Errorf("DroppedToolOutputs = %d, want %d", res.DroppedToolOutputs, tc.wantDropped)
			}
			checkAllAnswered(t, res.Messages)
		})
	}
}

func toolContents(msgs []llmstream.Message) []string {
	out := []string{}
	for _, m := range msgs {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestRunContextBudgetDefault(t *testing.T) {
	// Outputs of 32 KiB (the default output limit) against the default
	// 384 KiB budget: 11 fit with the rest of the conversation; 12 are
	// 393216 bytes alone, so the first is dropped before the last turn.
	var turns []llmstream.Message
	for i := range 12 {
		turns = append(turns, asst("", call(fmt.Sprint("c", i), "big", `{}`)))
	}
	s := &script{turns: append(turns, asst("done"))}
	l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{bigTool("big", 32<<10, 'x')}, MaxTurns: -1, MaxTotalToolCalls: -1}
	res, err := l.Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if res.DroppedToolOutputs != 1 || res.Messages[3].Content != "[airlock: tool output of 32768 bytes dropped to fit the context budget]" {
		t.Errorf("dropped %d; first output %.60q", res.DroppedToolOutputs, res.Messages[3].Content)
	}
}

func TestRunTruncationAndBudget(t *testing.T) {
	// Outputs of 1000 bytes are cut to 100 plus a marker; the budget then
	// drops the oldest cut output, whose size counts the marker.
	cut := strings.Repeat("y", 100) + "\n[airlock: output truncated, 900 bytes cut]"
	m := fmt.Sprintf("[airlock: tool output of %d bytes dropped to fit the context budget]", len(cut))
	s := &script{turns: []llmstream.Message{
		asst("", call("c1", "big", `{}`)),
		asst("", call("c2", "big", `{}`)),
		asst("done"),
	}}
	// Before turn 3: 10 + 2*(5 + len(cut)) bytes; one byte less forces one drop.
	l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{bigTool("big", 1000, 'y')}, MaxToolOutputBytes: 100, MaxContextBytes: 10 + 2*(5+len(cut)) - 1}
	res, err := l.Run(context.Background(), []llmstream.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "go"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{m, cut}, toolContents(s.seen[2])); diff != "" {
		t.Errorf("last request's tool outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{m, cut}, toolContents(res.Messages)); diff != "" {
		t.Errorf("result's tool outputs (-want +got):\n%s", diff)
	}
}

func TestRunToolTimeout(t *testing.T) {
	waits := agentloop.Tool{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}
	waitsRecoverable := agentloop.Tool{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		<-ctx.Done()
		return "", agentloop.Recoverable(ctx.Err())
	}}
	late := agentloop.Tool{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		<-ctx.Done()
		return "late but done", nil
	}}
	tests := []struct {
		name        string
		tool        agentloop.Tool
		wantErr     error
		wantContent string
	}{
		{"a tool that ends with its context times out", waits, agentloop.ErrToolTimeout, `error: agentloop: tool "wait" (call c): tool timed out after 20ms: context deadline exceeded`},
		{"a timeout is never recoverable", waitsRecoverable, agentloop.ErrToolTimeout, `error: agentloop: tool "wait" (call c): tool timed out after 20ms: context deadline exceeded`},
		{"a result returned after the deadline is kept", late, nil, "late but done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{turns: []llmstream.Message{asst("", call("c", "wait", `{}`)), asst("done")}}
			l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{tc.tool}, ToolTimeout: 20 * time.Millisecond}
			res, err := l.Run(context.Background(), user)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Run error %v, want %v", err, tc.wantErr)
			}
			if got := res.Messages[3].Content; got != tc.wantContent {
				t.Errorf("content %q, want %q", got, tc.wantContent)
			}
		})
	}
	t.Run("the tool error stays in the chain", func(t *testing.T) {
		s := &script{turns: []llmstream.Message{asst("", call("c", "wait", `{}`))}}
		l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{waits}, ToolTimeout: time.Millisecond}
		_, err := l.Run(context.Background(), user)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("the default gives the tool a deadline about 60s away", func(t *testing.T) {
		var left time.Duration
		probe := agentloop.Tool{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			d, ok := ctx.Deadline()
			if ok {
				left = time.Until(d)
			}
			return "", nil
		}}
		s := &script{turns: []llmstream.Message{asst("", call("c", "wait", `{}`)), asst("done")}}
		l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{probe}}
		if _, err := l.Run(context.Background(), user); err != nil {
			t.Fatal(err)
		}
		if left <= 50*time.Second || left > 60*time.Second {
			t.Errorf("deadline %v away, want a little under 60s", left)
		}
	})
	t.Run("negative means no deadline", func(t *testing.T) {
		has := true
		probe := agentloop.Tool{Name: "wait", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			_, has = ctx.Deadline()
			return "", nil
		}}
		s := &script{turns: []llmstream.Message{asst("", call("c", "wait", `{}`)), asst("done")}}
		l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{probe}, ToolTimeout: -1}
		if _, err := l.Run(context.Background(), user); err != nil {
			t.Fatal(err)
		}
		if has {
			t.Error("the tool's context has a deadline")
		}
	})
}

func TestRunCancel(t *testing.T) {
	t.Run("during a tool: the rest is not run", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var r ran
		tools := append(testTools(&r), agentloop.Tool{Name: "cancel", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
			cancel()
			<-ctx.Done()
			return "", ctx.Err()
		}})
		s := &script{turns: []llmstream.Message{asst("", call("c1", "cancel", `{}`), call("c2", "echo", `{"id":"c2"}`)), asst("done")}}
		l := agentloop.Loop{Model: s, Tools: tools}
		res, err := l.Run(ctx, user)
		if !errors.Is(err, context.Canceled) || errors.As(err, new(*agentloop.ToolError)) {
			t.Fatalf("Run error %v, want the cancellation and no *ToolError", err)
		}
		want := concat(user, []llmstream.Message{asst("", call("c1", "cancel", `{}`), call("c2", "echo", `{"id":"c2"}`)), failMsg("c1", "cancelled: the run was cancelled while this call ran"), toolMsg("c2", "not run: the run was cancelled")})
		if diff := cmp.Diff(want, res.Messages); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
		if len(r.ids) != 0 || len(s.seen) != 1 {
			t.Errorf("ran %v after cancel; model called %d times", r.ids, len(s.seen))
		}
	})
	t.Run("after a tool: the next call is not run", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var r ran
		tools := append(testTools(&r), agentloop.Tool{Name: "cancel", Run: func(context.Context, json.RawMessage) (string, error) {
			cancel()
			return "ok", nil
		}})
		s := &script{turns: []llmstream.Message{asst("", call("c1", "cancel", `{}`), call("c2", "echo", `{"id":"c2"}`)), asst("done")}}
		l := agentloop.Loop{Model: s, Tools: tools}
		res, err := l.Run(ctx, user)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run error %v, want context.Canceled", err)
		}
		want := concat(user, []llmstream.Message{asst("", call("c1", "cancel", `{}`), call("c2", "echo", `{"id":"c2"}`)), toolMsg("c1", "ok"), toolMsg("c2", "not run: the run was cancelled")})
		if diff := cmp.Diff(want, res.Messages); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
	})
	t.Run("before the first turn: the model is not called", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := &script{turns: []llmstream.Message{asst("done")}}
		res, err := (&agentloop.Loop{Model: s}).Run(ctx, user)
		if !errors.Is(err, context.Canceled) || res.Turns != 0 || len(s.seen) != 0 {
			t.Errorf("error %v, turns %d", err, res.Turns)
		}
	})
	t.Run("during the model call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		m := agentloop.ModelFunc(func(ctx context.Context, _ llmstream.Request) (llmstream.Message, error) {
			cancel()
			<-ctx.Done()
			return llmstream.Message{}, ctx.Err()
		})
		res, err := (&agentloop.Loop{Model: m}).Run(ctx, user)
		if !errors.Is(err, context.Canceled) || res.Turns != 1 || len(res.Messages) != len(user) {
			t.Errorf("error %v, turns %d, %d messages", err, res.Turns, len(res.Messages))
		}
	})
}

func TestRunToolPanic(t *testing.T) {
	p := agentloop.Tool{Name: "p", Run: func(context.Context, json.RawMessage) (string, error) { panic("bad index") }}
	s := &script{turns: []llmstream.Message{asst("", call("c", "p", `{}`))}}
	res, err := (&agentloop.Loop{Model: s, Tools: []agentloop.Tool{p}}).Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrToolPanic) {
		t.Fatalf("Run error %v, want ErrToolPanic", err)
	}
	if got, want := res.Messages[3].Content, `error: agentloop: tool "p" (call c): tool panicked: bad index`; got != want {
		t.Errorf("content %q, want %q", got, want)
	}
}

// TestRunAlwaysAnswersEveryCall drives the loop with random models and
// checks the invariant that holds whatever stops a run: every call in the
// conversation is answered, in order, and the counts add up.
func TestRunAlwaysAnswersEveryCall(t *testing.T) {
	names := []string{"echo", "fail", "oops", "nope", "echo", "echo"}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 1))
		id := 0
		m := agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			n := rng.IntN(5)
			if rng.IntN(6) == 0 {
				n = 0
			}
			msg := asst(fmt.Sprint("turn with ", n))
			for range n {
				id++
				args := []string{`{}`, `{"id":"x"}`, `[`, ``}[rng.IntN(4)]
				msg.ToolCalls = append(msg.ToolCalls, call(fmt.Sprint("c", id), names[rng.IntN(len(names))], args))
			}
			return msg, nil
		})
		var r ran
		l := agentloop.Loop{Model: m, Tools: testTools(&r), MaxTurns: 1 + rng.IntN(6), MaxToolCallsPerTurn: 1 + rng.IntN(4), MaxTotalToolCalls: 1 + rng.IntN(12)}
		res, _ := l.Run(context.Background(), user)
		checkAllAnswered(t, res.Messages)
		if res.ToolCalls > l.MaxTotalToolCalls || res.Turns > l.MaxTurns || len(r.ids) > res.ToolCalls {
			t.Fatalf("seed %d: %d calls (limit %d), %d turns (limit %d), %d ran", seed, res.ToolCalls, l.MaxTotalToolCalls, res.Turns, l.MaxTurns, len(r.ids))
		}
	}
}
