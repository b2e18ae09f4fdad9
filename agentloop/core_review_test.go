package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// Output's doc: the same answer refused twice stops the run with an error
// wrapping ErrRepeatedFailure and llmstream.ErrInvalidOutput — also when
// the refusal is a custom Check's own error, which need not wrap it.
func TestReviewOutputRepeatedCustomCheck(t *testing.T) {
	errShort := errors.New("the goal is too short")
	out := &agentloop.Output{Schema: llmstream.OutputSchema{Name: "g"}, Check: func(llmstream.Message) error { return errShort }}
	bad := asst(`{"goal":"x"}`)
	m := &outputModel{script: script{turns: []llmstream.Message{bad, bad}}}
	res, err := (&agentloop.Loop{Model: m, Output: out}).Run(t.Context(), user)
	if !errors.Is(err, agentloop.ErrRepeatedFailure) || !errors.Is(err, llmstream.ErrInvalidOutput) || !errors.Is(err, errShort) {
		t.Errorf("err %v: want ErrRepeatedFailure, ErrInvalidOutput and the Check's error", err)
	}
	if res.Turns != 2 || res.Output != nil {
		t.Errorf("%d turns, output %s", res.Turns, res.Output)
	}
	// The refusal in between is not repeated: a refusal, then the
	// same refusal, stops; a refusal then a different answer refused for
	// the same reason goes on.
	m = &outputModel{script: script{turns: []llmstream.Message{bad, asst(`{"goal":"y"}`), bad, asst(`{"goal":"ok"}`)}}}
	calls := 0
	out2 := &agentloop.Output{Schema: llmstream.OutputSchema{Name: "g"}, Check: func(msg llmstream.Message) error {
		calls++
		if msg.Content == `{"goal":"ok"}` {
			return nil
		}
		return errShort
	}}
	res, err = (&agentloop.Loop{Model: m, Output: out2}).Run(t.Context(), user)
	if err != nil || res.Turns != 4 || string(res.Output) != `{"goal":"ok"}` || calls != 4 {
		t.Errorf("%v after %d turns (%d checks), output %s", err, res.Turns, calls, res.Output)
	}
}

// DecodeOutput of a Result whose run failed is an error, not a zero T.
func TestReviewDecodeOutputOfFailedRun(t *testing.T) {
	m := &outputModel{script: script{turns: []llmstream.Message{asst("no"), asst("no")}}}
	res, err := (&agentloop.Loop{Model: m, Output: agentloop.OutputFor[outPlan]("plan")}).Run(t.Context(), user)
	if err == nil {
		t.Fatal("the run did not fail")
	}
	if v, derr := agentloop.DecodeOutput[outPlan](res); derr == nil {
		t.Errorf("DecodeOutput of a failed run = %+v, nil", v)
	}
}

// A call id used again in a later turn is not a duplicate within a turn:
// the paused later call is decided by its id and runs once; the earlier
// one does not run again.
func TestReviewDuplicateIDAcrossTurns(t *testing.T) {
	r := &ran{}
	m := &script{turns: []llmstream.Message{
		asst("", call("c1", "echo", `{"id":"read"}`)),
		asst("", call("c1", "write", `{"id":"w"}`)),
		asst("done"),
	}}
	asked := 0
	l := agentloop.Loop{Model: m, Tools: approvalTools(r), Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
		asked++
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	}}
	res, err := l.Run(t.Context(), user)
	if !errors.Is(err, agentloop.ErrPaused) || len(res.Pending) != 1 || res.Pending[0].Turn != 2 || asked != 1 {
		t.Fatalf("%v, pending %+v, asked %d", err, res.Pending, asked)
	}
	st := throughJSON(t, res.State)
	res, err = l.Resume(t.Context(), st, map[string]agentloop.Decision{"c1": {Verdict: agentloop.Allow}})
	if err != nil || fmt.Sprint(r.ids) != "[read w]" || asked != 1 {
		t.Fatalf("%v: ran %v, asked %d", err, r.ids, asked)
	}
	checkAllAnswered(t, res.Messages)
}

// Resume refuses tampered States the doc names, and more: nothing runs,
// Approve is not asked, the model is not called.
func TestReviewResumeTampered(t *testing.T) {
	r := &ran{}
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{
		asst("", call("e0", "echo", `{"id":"e"}`)),
		asst("", writes(2)...),
	}}, Tools: approvalTools(r), Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
		if c.Index == 0 {
			return agentloop.Decision{Verdict: agentloop.Allow}, nil
		}
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	}}
	res, err := l.Run(t.Context(), user)
	if !errors.Is(err, agentloop.ErrPaused) || len(res.Pending) != 1 || len(res.State.Decisions) != 1 {
		t.Fatalf("%v, pending %+v, decisions %v", err, res.Pending, res.State.Decisions)
	}
	r.ids = nil
	good := res.State
	w1 := map[string]agentloop.Decision{"w1": {Verdict: agentloop.Allow}}
	edit := func(f func(*agentloop.State)) agentloop.State {
		st := throughJSON(t, good)
		f(&st)
		return st
	}
	lastCalls := func(s *agentloop.State) []llmstream.ToolCall { return s.Messages[len(s.Messages)-1].ToolCalls }
	tests := []struct {
		name      string
		st        agentloop.State
		decisions map[string]agentloop.Decision
	}{
		{"duplicate ids in the pending turn", edit(func(s *agentloop.State) {
			lastCalls(s)[0].ID = "w1"
			s.Decisions = nil
			s.Pending = []agentloop.Call{{Turn: 2, Index: 0, ID: "w1", Name: "write", Arguments: `{"id":"w0"}`}, s.Pending[0]}
		}), w1},
		{"the pending call's id is not in the last message", edit(func(s *agentloop.State) { s.Pending[0].ID = "zz" }), map[string]agentloop.Decision{"zz": {Verdict: agentloop.Allow}}},
		{"the pending call's turn changed", edit(func(s *agentloop.State) { s.Pending[0].Turn = 1 }), w1},
		{"the pending call's index changed", edit(func(s *agentloop.State) { s.Pending[0].Index = 0 }), w1},
		{"a saved Pause decision", edit(func(s *agentloop.State) { s.Decisions["w0"] = agentloop.Decision{Verdict: agentloop.Pause} }), w1},
		{"a saved decision without a verdict", edit(func(s *agentloop.State) { s.Decisions["w0"] = agentloop.Decision{} }), w1},
		{"a saved decision for a pending call", edit(func(s *agentloop.State) { s.Decisions["w1"] = agentloop.Decision{Verdict: agentloop.Allow} }), w1},
		{"pending calls, the last message a tool's", edit(func(s *agentloop.State) { s.Messages = append(s.Messages, toolMsg("w0", "x")) }), w1},
		{"negative turns", edit(func(s *agentloop.State) { s.Turns = -1 }), w1},
		{"negative tool calls", edit(func(s *agentloop.State) { s.ToolCalls = -5 }), w1},
		{"negative dropped outputs", edit(func(s *agentloop.State) { s.DroppedToolOutputs = -1 }), w1},
		{"a dropped index not a tool message", edit(func(s *agentloop.State) { s.Dropped = []int{1} }), w1},
		{"a Verdict out of range", good, map[string]agentloop.Decision{"w1": {Verdict: 99}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &script{turns: []llmstream.Message{asst("done")}}
			asked := 0
			l2 := agentloop.Loop{Model: m, Tools: approvalTools(r), Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
				asked++
				return agentloop.Decision{Verdict: agentloop.Allow}, nil
			}}
			_, err := l2.Resume(t.Context(), tt.st, tt.decisions)
			if !errors.Is(err, agentloop.ErrInvalidState) {
				t.Errorf("err = %v, want ErrInvalidState", err)
			}
			if len(r.ids) != 0 || len(m.seen) != 0 || asked != 0 {
				t.Errorf("ran %v, %d model calls, Approve asked %d times", r.ids, len(m.seen), asked)
			}
			r.ids = nil
		})
	}
	// The untampered State resumes: w0 (allowed before) and w1 run.
	l.Model = &script{turns: []llmstream.Message{asst("done")}}
	res, err = l.Resume(t.Context(), throughJSON(t, good), w1)
	if err != nil || fmt.Sprint(r.ids) != "[w0 w1]" {
		t.Errorf("%v: ran %v", err, r.ids)
	}
}

// A Core is safe for concurrent use by many drivers, each with its own
// State (run with -race).
func TestReviewCoreConcurrentDrivers(t *testing.T) {
	r := &ran{}
	l := agentloop.Loop{Tools: testTools(r), ParallelTools: 2}
	c, err := l.Core()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Go(func() {
			st := agentloop.State{Messages: append([]llmstream.Message(nil), user...)}
			for turn := range 3 {
				if _, err := c.Next(&st); err != nil {
					errs[g] = err
					return
				}
				msg := asst("", call(fmt.Sprintf("g%dt%d", g, turn), "echo", fmt.Sprintf(`{"id":"%d"}`, g)))
				tn, err := c.Plan(&st, msg, nil)
				if err == nil {
					err = c.Wait(&st, tn)
				}
				if err != nil {
					errs[g] = err
					return
				}
				for i := range tn.Calls {
					tn.Answers[i] = c.Dispatch(t.Context(), tn.Calls[i])
				}
				if err := c.Finish(&st, tn); err != nil {
					errs[g] = err
					return
				}
			}
			if st.Turns != 3 || st.ToolCalls != 3 || len(st.Messages) != len(user)+6 {
				errs[g] = fmt.Errorf("state %d turns, %d calls, %d messages", st.Turns, st.ToolCalls, len(st.Messages))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if len(r.ids) != 24 {
		t.Errorf("%d runs, want 24", len(r.ids))
	}
}

// Cancelling at each step — in the model call, in Approve, in a tool —
// answers every call in the Result and reports context.Canceled; nothing
// after the cancellation runs.
func TestReviewCancelAtEveryStep(t *testing.T) {
	for _, at := range []string{"model", "approve", "tool"} {
		t.Run(at, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r := &ran{}
			tools := approvalTools(r)
			tools = append(tools, agentloop.Tool{Name: "slow", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				r.add("slow")
				if at == "tool" {
					cancel()
				}
				<-ctx.Done()
				return "", ctx.Err()
			}})
			turns := []llmstream.Message{asst("", call("s", "slow", `{}`), call("w", "write", `{"id":"w"}`), call("e", "echo", `{"id":"e"}`))}
			m := agentloop.ModelFunc(func(ctx context.Context, _ llmstream.Request) (llmstream.Message, error) {
				if at == "model" {
					cancel()
					return llmstream.Message{}, ctx.Err()
				}
				return turns[0], nil
			})
			l := agentloop.Loop{Model: m, Tools: tools, Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
				if at == "approve" {
					cancel()
				}
				return agentloop.Decision{Verdict: agentloop.Allow}, nil
			}}
			res, err := l.Run(ctx, user)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
			checkAllAnswered(t, res.Messages)
			want := map[string]string{"model": "[]", "approve": "[]", "tool": "[slow]"}[at]
			if fmt.Sprint(r.ids) != want {
				t.Errorf("ran %v, want %s", r.ids, want)
			}
		})
	}
}

// Core's steps change only the State they are given: a copy of it taken
// before (st2 := st, as a driver keeps one to save) is left as it was when
// Next drops tool outputs for the context budget.
func TestReviewNextLeavesCopiesAlone(t *testing.T) {
	l := agentloop.Loop{MaxContextBytes: 200}
	c, err := l.Core()
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 200)
	st := agentloop.State{Messages: []llmstream.Message{
		{Role: "user", Content: "go"},
		asst("", call("a", "echo", `{}`)), toolMsg("a", big),
		asst("", call("b", "echo", `{}`)), toolMsg("b", big),
	}, Dropped: make([]int, 1, 4)}
	st.Dropped[0] = 4
	st.Messages[4].Content = "[airlock: tool output of 200 bytes dropped to fit the context budget]"
	st.DroppedToolOutputs = 1
	saved := st // a shallow copy, as a driver keeps
	before := throughJSON(t, saved)
	if _, err := c.Next(&st); err != nil {
		t.Fatal(err)
	}
	if st.DroppedToolOutputs != 2 || fmt.Sprint(st.Dropped) != "[2 4]" || st.Messages[2].Content == big {
		t.Fatalf("Next dropped %d, %v", st.DroppedToolOutputs, st.Dropped)
	}
	if diff := cmp.Diff(before, saved); diff != "" {
		t.Errorf("the copy taken before Next changed (-before +after):\n%s", diff)
	}
}

// Resume with a cancelled context: the decided turn is answered, nothing
// runs, the error is the cancellation. Resume with Pause: the call waits
// again, nothing runs, and the State resumes later as before.
func TestReviewResumeCancelledOrPausedAgain(t *testing.T) {
	r := &ran{}
	pause := func(context.Context, agentloop.Call) (agentloop.Decision, error) {
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	}
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", writes(2)...)}}, Tools: approvalTools(r), Approve: pause}
	res, err := l.Run(t.Context(), user)
	if !errors.Is(err, agentloop.ErrPaused) {
		t.Fatal(err)
	}
	st := throughJSON(t, res.State)
	allow := agentloop.Decision{Verdict: agentloop.Allow}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m := &script{turns: []llmstream.Message{asst("done")}}
	l2 := agentloop.Loop{Model: m, Tools: approvalTools(r), Approve: pause}
	res, err = l2.Resume(ctx, st, map[string]agentloop.Decision{"w0": allow, "w1": allow})
	if !errors.Is(err, context.Canceled) || len(r.ids) != 0 || len(m.seen) != 0 {
		t.Fatalf("%v: ran %v, %d model calls", err, r.ids, len(m.seen))
	}
	checkAllAnswered(t, res.Messages)

	res, err = l2.Resume(t.Context(), st, map[string]agentloop.Decision{"w0": allow, "w1": {Verdict: agentloop.Pause}})
	if !errors.Is(err, agentloop.ErrPaused) || len(r.ids) != 0 || len(res.Pending) != 1 || res.Pending[0].ID != "w1" {
		t.Fatalf("%v: ran %v, pending %+v", err, r.ids, res.Pending)
	}
	res, err = l2.Resume(t.Context(), throughJSON(t, res.State), map[string]agentloop.Decision{"w1": allow})
	if err != nil || fmt.Sprint(r.ids) != "[w0 w1]" {
		t.Fatalf("%v: ran %v", err, r.ids)
	}
	checkAllAnswered(t, res.Messages)
}
