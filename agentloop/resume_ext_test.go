package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// throughJSON marshals st and unmarshals it into a new State.
func throughJSON(t *testing.T, st agentloop.State) agentloop.State {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back agentloop.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// TestStateJSON: every field comes back equal, usage, stop reasons and
// raw continuity (spaces and all) included.
func TestStateJSON(t *testing.T) {
	st := agentloop.State{
		Messages: []llmstream.Message{
			{Role: "user", Content: "go"},
			{Role: "assistant", Content: "ok", Reasoning: "hmm", FinishReason: "tool_use", StopReason: llmstream.StopToolCalls,
				Usage:     &llmstream.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, CachedTokens: 4, CacheWriteTokens: 5, ReasoningTokens: 6},
				ToolCalls: []llmstream.ToolCall{{ID: "c1", Type: "function", Function: llmstream.FunctionCall{Name: "write", Arguments: `{ "id": "c1" }`}, Extra: json.RawMessage(`{"extra_content": {"sig": "x"}}`)}},
				Continuity: &llmstream.Continuity{Dialect: llmstream.DialectAnthropic, Blocks: []llmstream.Block{
					{Type: "thinking", Raw: json.RawMessage(`{"type": "thinking",  "signature": "c2ln"}`)},
					{Type: llmstream.BlockText, Bytes: 2}, {Type: llmstream.BlockToolCall, Call: 0, ID: "i", Signature: "s"},
				}}},
			{Role: "tool", ToolCallID: "c0", Content: "x", IsError: true, Name: "n", Refusal: "r"},
			{Role: "assistant", ToolCalls: []llmstream.ToolCall{}},
		},
		Turns: 3, ToolCalls: 4, DroppedToolOutputs: 1, Dropped: []int{2},
		Usage:       llmstream.Usage{PromptTokens: 7, CachedTokens: 8, CacheWriteTokens: 9, ReasoningTokens: 10},
		LastFailure: "write\x00{}\x00error: x",
		Pending:     []agentloop.Call{{Turn: 3, Index: 1, ID: "c2", Name: "write", Arguments: `{"id":"c2"}`}},
		Decisions:   map[string]agentloop.Decision{"c1": {Verdict: agentloop.Deny, Reason: "no"}},
	}
	if diff := cmp.Diff(st, throughJSON(t, st)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(agentloop.State{}, throughJSON(t, agentloop.State{})); diff != "" {
		t.Errorf("zero State round trip (-want +got):\n%s", diff)
	}
}

// TestResumeAfterStops: a State saved after ErrMaxTurns or a failed
// model call goes on, through JSON, in a fresh Loop, with nil decisions;
// the caps count again from there, the counts go on.
func TestResumeAfterStops(t *testing.T) {
	errDown := errors.New("down")
	t.Run("ErrMaxTurns", func(t *testing.T) {
		r := &ran{}
		turns := []llmstream.Message{asst("", call("a", "echo", `{"id":"a"}`)), asst("", call("b", "echo", `{"id":"b"}`)), asst("done")}
		l := agentloop.Loop{Model: &script{turns: turns}, Tools: testTools(r), MaxTurns: 1}
		res, err := l.Run(context.Background(), user)
		if !errors.Is(err, agentloop.ErrMaxTurns) || res.State.Messages == nil {
			t.Fatalf("err %v, state %v", err, res.State)
		}
		l2 := agentloop.Loop{Model: &script{turns: turns[1:]}, Tools: testTools(r), MaxTurns: 2}
		res2, err := l2.Resume(context.Background(), throughJSON(t, res.State), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := concat(user, []llmstream.Message{turns[0], toolMsg("a", `{"id":"a"}`), turns[1], toolMsg("b", `{"id":"b"}`), turns[2]})
		if diff := cmp.Diff(want, res2.Messages); diff != "" {
			t.Errorf("conversation (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"a", "b"}, r.ids); diff != "" {
			t.Errorf("ran (-want +got):\n%s", diff)
		}
		if res2.Turns != 3 || res2.ToolCalls != 2 {
			t.Errorf("turns %d, calls %d, want 3, 2", res2.Turns, res2.ToolCalls)
		}
	})
	t.Run("failed model call", func(t *testing.T) {
		calls := 0
		m := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
			calls++
			if calls == 1 {
				return llmstream.Message{}, errDown
			}
			return asst("back " + r.Messages[len(r.Messages)-1].Content), nil
		})
		l := agentloop.Loop{Model: m}
		res, err := l.Run(context.Background(), user)
		if !errors.Is(err, errDown) || res.State.Messages == nil {
			t.Fatalf("err %v, state %v", err, res.State)
		}
		res2, err := l.Resume(context.Background(), throughJSON(t, res.State), nil)
		if err != nil || res2.Messages[len(res2.Messages)-1].Content != "back go" || res2.Turns != 2 {
			t.Errorf("err %v, turns %d, messages %+v", err, res2.Turns, res2.Messages)
		}
	})
}

// TestResumePausedThroughJSON: pause, save, load in a fresh Loop, deny
// one and allow the other: the allowed one runs once, the denied one is
// answered, the saved decision made before the pause holds.
func TestResumePausedThroughJSON(t *testing.T) {
	r := &ran{}
	cs := writes(3)
	asked := []string{}
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", cs...)}}, Tools: approvalTools(r), ParallelTools: 2,
		Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
			asked = append(asked, c.ID)
			if c.Index == 0 {
				return agentloop.Decision{Verdict: agentloop.Deny, Reason: "first no"}, nil
			}
			return agentloop.Decision{Verdict: agentloop.Pause}, nil
		}}
	res, err := l.Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrPaused) || len(res.Pending) != 2 {
		t.Fatalf("err %v, pending %v", err, res.Pending)
	}
	st := throughJSON(t, res.State)
	l2 := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("done")}}, Tools: approvalTools(r), ParallelTools: 2,
		Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
			t.Error("asked again")
			return agentloop.Decision{}, nil
		}}
	res2, err := l2.Resume(context.Background(), st, map[string]agentloop.Decision{"w1": {Verdict: agentloop.Deny}, "w2": {Verdict: agentloop.Allow}})
	if err != nil {
		t.Fatal(err)
	}
	want := concat(user, []llmstream.Message{asst("", cs...), failMsg("w0", "denied: first no"), failMsg("w1", "denied: the call was not approved"), toolMsg("w2", "wrote w2"), asst("done")})
	if diff := cmp.Diff(want, res2.Messages); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"w2"}, r.ids); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
	// A pause on resume pauses again, with the same State shape.
	res3, err := l2.Resume(context.Background(), st, map[string]agentloop.Decision{"w1": {Verdict: agentloop.Pause}, "w2": {Verdict: agentloop.Allow}})
	if !errors.Is(err, agentloop.ErrPaused) || len(res3.Pending) != 1 || res3.Pending[0].ID != "w1" || len(r.ids) != 1 {
		t.Errorf("err %v, pending %v, ran %v", err, res3.Pending, r.ids)
	}
	if d := res3.State.Decisions; len(d) != 2 || d["w2"].Verdict != agentloop.Allow {
		t.Errorf("saved decisions %v", d)
	}
}

// TestResumeWrongState: a State or decisions that do not fit are
// ErrInvalidState, and nothing runs, nothing is sent, st is unchanged.
func TestResumeWrongState(t *testing.T) {
	r := &ran{}
	cs := writes(2)
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", cs...)}}, Tools: approvalTools(r),
		Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
			return agentloop.Decision{Verdict: agentloop.Pause}, nil
		}}
	res, err := l.Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrPaused) {
		t.Fatal(err)
	}
	good := res.State
	allow := agentloop.Decision{Verdict: agentloop.Allow}
	both := map[string]agentloop.Decision{"w0": allow, "w1": allow}
	edit := func(f func(*agentloop.State)) agentloop.State {
		st := throughJSON(t, good)
		f(&st)
		return st
	}
	tests := []struct {
		name      string
		st        agentloop.State
		decisions map[string]agentloop.Decision
		tools     []agentloop.Tool
		approve   bool
	}{
		{"a tool the Loop lacks", good, both, testTools(r), true},
		{"no Approve", good, both, approvalTools(r), false},
		{"a pending call removed", edit(func(s *agentloop.State) { s.Pending = s.Pending[:1] }), map[string]agentloop.Decision{"w0": allow}, approvalTools(r), true},
		{"pending arguments changed", edit(func(s *agentloop.State) { s.Pending[0].Arguments = `{"id":"evil"}` }), both, approvalTools(r), true},
		{"a call added to the turn", edit(func(s *agentloop.State) {
			last := &s.Messages[len(s.Messages)-1]
			last.ToolCalls = append(last.ToolCalls, call("w9", "write", `{}`))
		}), both, approvalTools(r), true},
		{"a saved decision for an unknown call", edit(func(s *agentloop.State) { s.Decisions = map[string]agentloop.Decision{"zz": allow} }), both, approvalTools(r), true},
		{"no pending, the turn unanswered", edit(func(s *agentloop.State) { s.Pending = nil }), nil, approvalTools(r), true},
		{"no messages", agentloop.State{}, nil, approvalTools(r), true},
		{"dropped index out of range", edit(func(s *agentloop.State) { s.Dropped = []int{99} }), both, approvalTools(r), true},
		{"a decision for an unknown id", good, map[string]agentloop.Decision{"w0": allow, "w1": allow, "w7": allow}, approvalTools(r), true},
		{"a decision missing", good, map[string]agentloop.Decision{"w0": allow}, approvalTools(r), true},
		{"no decisions", good, nil, approvalTools(r), true},
		{"a decision without a verdict", good, map[string]agentloop.Decision{"w0": allow, "w1": {}}, approvalTools(r), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := throughJSON(t, tt.st)
			m := &script{}
			l2 := agentloop.Loop{Model: m, Tools: tt.tools}
			if tt.approve {
				l2.Approve = l.Approve
			}
			res, err := l2.Resume(context.Background(), tt.st, tt.decisions)
			if !errors.Is(err, agentloop.ErrInvalidState) {
				t.Fatalf("err = %v, want ErrInvalidState", err)
			}
			if len(r.ids) != 0 || len(m.seen) != 0 || res.State.Messages != nil || len(res.Messages) != len(tt.st.Messages) {
				t.Errorf("ran %v, sent %d requests, state %v, %d messages", r.ids, len(m.seen), res.State, len(res.Messages))
			}
			if diff := cmp.Diff(before, tt.st); diff != "" {
				t.Errorf("State changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestResumeWrongStateSameError: of several bad decisions, the error
// names the same one every time (the first id in order), not whichever a
// map walk met first.
func TestResumeWrongStateSameError(t *testing.T) {
	r := &ran{}
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", writes(2)...)}}, Tools: approvalTools(r),
		Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
			return agentloop.Decision{Verdict: agentloop.Pause}, nil
		}}
	res, err := l.Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrPaused) {
		t.Fatal(err)
	}
	allow := agentloop.Decision{Verdict: agentloop.Allow}
	bad := map[string]agentloop.Decision{"w0": allow, "w1": allow}
	for _, id := range []string{"x5", "x1", "x9", "x3", "x7"} {
		bad[id] = allow
	}
	st := res.State
	st.Decisions = map[string]agentloop.Decision{"z2": allow, "z1": allow, "z3": allow}
	for range 20 {
		if _, err := l.Resume(context.Background(), res.State, bad); err == nil || !strings.Contains(err.Error(), `"x1"`) {
			t.Fatalf("decisions: err = %v, want one naming x1", err)
		}
		if _, err := l.Resume(context.Background(), st, bad); err == nil || !strings.Contains(err.Error(), `"z1"`) {
			t.Fatalf("saved decisions: err = %v, want one naming z1", err)
		}
	}
}
