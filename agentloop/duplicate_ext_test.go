package agentloop_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// Two calls of one turn sharing an id cannot be decided or answered apart:
// the turn is invalid, Approve is never asked, and nothing runs — whether
// the run stops or answers the invalid calls, and whatever else the turn
// holds.
func TestDuplicateCallIDs(t *testing.T) {
	tests := []struct {
		name  string
		calls []llmstream.ToolCall
		dup   []bool // which calls are refused for their id
	}{
		{"two writes", []llmstream.ToolCall{call("c1", "write", `{"id":"tmp.txt"}`), call("c1", "write", `{"id":"/"}`)}, []bool{true, true}},
		{"read then write", []llmstream.ToolCall{call("c1", "echo", `{"id":"a"}`), call("c1", "write", `{"id":"/"}`)}, []bool{true, true}},
		{"apart, amid others", []llmstream.ToolCall{call("c1", "write", `{"id":"x"}`), call("c2", "echo", `{}`), call("c1", "write", `{"id":"/"}`)}, []bool{true, false, true}},
		{"empty ids", []llmstream.ToolCall{call("", "echo", `{}`), call("", "echo", `{}`)}, []bool{true, true}},
	}
	for _, tt := range tests {
		for _, answerInvalid := range []bool{false, true} {
			name := tt.name + map[bool]string{false: ", stop", true: ", answer"}[answerInvalid]
			t.Run(name, func(t *testing.T) {
				r := &ran{}
				asked := 0
				l := agentloop.Loop{
					Model: &script{turns: []llmstream.Message{asst("", tt.calls...), asst("done")}},
					Tools: approvalTools(r), AnswerInvalidCalls: answerInvalid,
					Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
						asked++
						return agentloop.Decision{Verdict: agentloop.Allow}, nil
					},
				}
				res, err := l.Run(context.Background(), user)
				if asked != 0 || len(r.ids) != 0 {
					t.Fatalf("Approve asked %d times, ran %v; want neither", asked, r.ids)
				}
				if answerInvalid != (err == nil) {
					t.Fatalf("err %v", err)
				}
				if !answerInvalid && (!errors.Is(err, agentloop.ErrDuplicateCallID) || !errors.As(err, new(*agentloop.ToolError))) {
					t.Errorf("err %v, want a *ToolError wrapping ErrDuplicateCallID", err)
				}
				checkAllAnswered(t, res.Messages)
				answers := res.Messages[len(user)+1 : len(user)+1+len(tt.calls)]
				for i, a := range answers {
					if got := strings.Contains(a.Content, "id"); tt.dup[i] && (!got || !a.IsError) {
						t.Errorf("answer %d %+v does not say its id is shared", i, a)
					}
					if !tt.dup[i] && !strings.HasPrefix(a.Content, "skipped: ") {
						t.Errorf("answer %d %+v, want skipped", i, a)
					}
				}
				if res.State.Messages == nil {
					t.Fatal("no State")
				}
				// Whatever Run returned, Resume takes.
				l.Model = &script{turns: []llmstream.Message{asst("again")}}
				if _, err := l.Resume(context.Background(), throughJSON(t, res.State), nil); err != nil {
					t.Errorf("Resume of the State Run returned: %v", err)
				}
			})
		}
	}
}

// Whatever State Run returns, Resume takes, through JSON, with a decision
// for each pending call: every way a run stops.
func TestResumeTakesWhatRunReturns(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	pause := func(context.Context, agentloop.Call) (agentloop.Decision, error) {
		return agentloop.Decision{Verdict: agentloop.Pause}, nil
	}
	failAsk := func(context.Context, agentloop.Call) (agentloop.Decision, error) {
		return agentloop.Decision{}, errBoom
	}
	tests := []struct {
		name  string
		ctx   context.Context
		loop  agentloop.Loop
		turns []llmstream.Message
	}{
		{"finished", nil, agentloop.Loop{}, []llmstream.Message{asst("done")}},
		{"paused", nil, agentloop.Loop{Approve: pause}, []llmstream.Message{asst("", writes(2)...)}},
		{"paused after a denial", nil, agentloop.Loop{Approve: decideAt(1, agentloop.Pause, new([]string))}, []llmstream.Message{asst("", writes(3)...)}},
		{"duplicate ids, paused", nil, agentloop.Loop{Approve: pause}, []llmstream.Message{asst("", call("c1", "write", `{}`), call("c1", "write", `{}`))}},
		{"duplicate ids, answered", nil, agentloop.Loop{Approve: pause, AnswerInvalidCalls: true}, []llmstream.Message{asst("", call("c1", "write", `{}`), call("c1", "write", `{}`)), asst("", call("c1", "write", `{}`), call("c1", "write", `{}`))}},
		{"approval failed", nil, agentloop.Loop{Approve: failAsk}, []llmstream.Message{asst("", writes(2)...)}},
		{"per-turn cap", nil, agentloop.Loop{MaxToolCallsPerTurn: 1}, []llmstream.Message{asst("", calls("e", 2)...)}},
		{"total cap", nil, agentloop.Loop{MaxTotalToolCalls: 1}, []llmstream.Message{asst("", calls("e", 2)...)}},
		{"max turns", nil, agentloop.Loop{MaxTurns: 1}, []llmstream.Message{asst("", calls("e", 1)...), asst("", calls("f", 1)...)}},
		{"tool failed", nil, agentloop.Loop{}, []llmstream.Message{asst("", call("a", "fail", `{}`), call("b", "echo", `{}`))}},
		{"repeated failure", nil, agentloop.Loop{}, []llmstream.Message{asst("", call("a", "oops", `{}`)), asst("", call("b", "oops", `{}`))}},
		{"unknown tool", nil, agentloop.Loop{}, []llmstream.Message{asst("", call("a", "nope", `{}`))}},
		{"model failed", nil, agentloop.Loop{}, nil},
		{"cancelled", cancelled, agentloop.Loop{}, []llmstream.Message{asst("done")}},
		{"budget", nil, agentloop.Loop{MaxContextBytes: 3}, []llmstream.Message{asst("done")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &ran{}
			l := tt.loop
			l.Model, l.Tools = &script{turns: tt.turns}, append(approvalTools(r), testTools(r)[1:]...)
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			res, runErr := l.Run(ctx, user)
			if res.State.Messages == nil {
				t.Fatalf("Run (%v) returned no State", runErr)
			}
			decisions := map[string]agentloop.Decision{}
			for _, c := range res.State.Pending {
				decisions[c.ID] = agentloop.Decision{Verdict: agentloop.Allow}
			}
			l.Model, l.MaxContextBytes = &script{turns: []llmstream.Message{asst("again")}}, 0
			_, err := l.Resume(context.Background(), throughJSON(t, res.State), decisions)
			if errors.Is(err, agentloop.ErrInvalidState) || errors.Is(err, agentloop.ErrInvalidLoop) {
				t.Errorf("Run stopped with %v; Resume of its State: %v", runErr, err)
			}
		})
	}
}
