package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// approvalTools are echo (read only) and write (needs approval); both
// record their runs in r.
func approvalTools(r *ran) []agentloop.Tool {
	ts := testTools(r)[:1]
	return append(ts, agentloop.Tool{Name: "write", NeedsApproval: true, Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var v struct{ ID string }
		_ = json.Unmarshal(args, &v)
		r.add(v.ID)
		return "wrote " + v.ID, nil
	}})
}

// writes returns n calls to write, ids w0..
func writes(n int) []llmstream.ToolCall {
	out := make([]llmstream.ToolCall, n)
	for i := range out {
		id := fmt.Sprintf("w%d", i)
		out[i] = call(id, "write", fmt.Sprintf(`{"id":%q}`, id))
	}
	return out
}

// decideAt answers v for the call at index at, Allow for the others, and
// records whom it was asked about.
func decideAt(at int, v agentloop.Verdict, asked *[]string) func(context.Context, agentloop.Call) (agentloop.Decision, error) {
	return func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
		*asked = append(*asked, c.ID)
		if c.Index == at {
			return agentloop.Decision{Verdict: v, Reason: "not today"}, nil
		}
		return agentloop.Decision{Verdict: agentloop.Allow}, nil
	}
}

func TestApproveDeny(t *testing.T) {
	for _, at := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("call %d", at), func(t *testing.T) {
			r := &ran{}
			var asked []string
			cs := writes(3)
			l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", cs...), asst("done")}}, Tools: approvalTools(r), Approve: decideAt(at, agentloop.Deny, &asked)}
			res, err := l.Run(context.Background(), user)
			if err != nil {
				t.Fatal(err)
			}
			checkAllAnswered(t, res.Messages)
			var wantRan []string
			wantAnswers := make([]llmstream.Message, 3)
			for i, c := range cs {
				if i == at {
					wantAnswers[i] = failMsg(c.ID, "denied: not today")
					continue
				}
				wantRan = append(wantRan, c.ID)
				wantAnswers[i] = toolMsg(c.ID, "wrote "+c.ID)
			}
			if diff := cmp.Diff(concat(user, []llmstream.Message{asst("", cs...)}, wantAnswers, []llmstream.Message{asst("done")}), res.Messages); diff != "" {
				t.Errorf("conversation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantRan, r.ids); diff != "" {
				t.Errorf("ran (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"w0", "w1", "w2"}, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApprovePause(t *testing.T) {
	for _, at := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("call %d", at), func(t *testing.T) {
			r := &ran{}
			var asked []string
			cs := writes(3)
			var events []string
			l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", cs...), asst("done")}}, Tools: approvalTools(r), Approve: decideAt(at, agentloop.Pause, &asked),
				Hooks: agentloop.Hooks{AfterApproval: func(e agentloop.ApprovalDone) { events = append(events, e.Call.ID+" "+e.Decision.Verdict.String()) }}}
			res, err := l.Run(context.Background(), user)
			if !errors.Is(err, agentloop.ErrPaused) {
				t.Fatalf("err = %v, want ErrPaused", err)
			}
			if len(r.ids) != 0 {
				t.Errorf("ran %v before every call of the turn was decided", r.ids)
			}
			wantPending := []agentloop.Call{{Turn: 1, Index: at, ID: cs[at].ID, Name: "write", Arguments: cs[at].Function.Arguments}}
			if diff := cmp.Diff(wantPending, res.Pending); diff != "" {
				t.Errorf("Pending (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(concat(user, []llmstream.Message{asst("", cs...)}), res.Messages); diff != "" {
				t.Errorf("conversation (-want +got):\n%s", diff)
			}
			if err := answeredInOrder(res.Messages, true); err != nil {
				t.Error(err)
			}
			if res.State.Messages == nil || len(res.State.Decisions) != 2 {
				t.Fatalf("State %+v, want the two decisions made", res.State)
			}
			// A fresh Loop goes on once the call is allowed; each call
			// runs once, and Approve is not asked again.
			asked = nil
			l2 := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("done")}}, Tools: approvalTools(r), Approve: decideAt(-1, agentloop.Allow, &asked),
				Hooks: l.Hooks}
			res2, err := l2.Resume(context.Background(), res.State, map[string]agentloop.Decision{cs[at].ID: {Verdict: agentloop.Allow}})
			if err != nil {
				t.Fatal(err)
			}
			checkAllAnswered(t, res2.Messages)
			if diff := cmp.Diff([]string{"w0", "w1", "w2"}, r.ids); diff != "" {
				t.Errorf("ran (-want +got):\n%s", diff)
			}
			if len(asked) != 0 || res2.Turns != 2 || res2.ToolCalls != 3 || res2.Pending != nil {
				t.Errorf("asked %v again; turns %d, calls %d, pending %v", asked, res2.Turns, res2.ToolCalls, res2.Pending)
			}
			wantEvents := []string{"w0 allow", "w1 allow", "w2 allow"}
			wantEvents[at] = cs[at].ID + " pause"
			wantEvents = append(wantEvents, cs[at].ID+" allow")
			if diff := cmp.Diff(wantEvents, events); diff != "" {
				t.Errorf("AfterApproval (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApproveError(t *testing.T) {
	errAsk := errors.New("no one to ask")
	for _, at := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("call %d", at), func(t *testing.T) {
			r := &ran{}
			cs := writes(3)
			approve := func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
				if c.Index == at {
					return agentloop.Decision{}, errAsk
				}
				return agentloop.Decision{Verdict: agentloop.Allow}, nil
			}
			l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", cs...), asst("done")}}, Tools: approvalTools(r), Approve: approve}
			res, err := l.Run(context.Background(), user)
			var te *agentloop.ToolError
			if !errors.Is(err, errAsk) || !errors.Is(err, agentloop.ErrApproval) || !errors.As(err, &te) || te.CallID != cs[at].ID || te.Index != at {
				t.Fatalf("err = %v, want a *ToolError of %s wrapping ErrApproval and the approver's error", err, cs[at].ID)
			}
			if len(r.ids) != 0 {
				t.Errorf("ran %v", r.ids)
			}
			checkAllAnswered(t, res.Messages)
			if res.State.Messages == nil || res.State.Pending != nil {
				t.Errorf("State %+v", res.State)
			}
		})
	}
	t.Run("no verdict", func(t *testing.T) {
		l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", writes(1)...)}}, Tools: approvalTools(&ran{}),
			Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) { return agentloop.Decision{}, nil }}
		if _, err := l.Run(context.Background(), user); !errors.Is(err, agentloop.ErrApproval) {
			t.Errorf("err = %v, want ErrApproval", err)
		}
	})
}

// TestApproveAsksOnlyWhatNeedsIt: read-only tools run without asking, an
// invalid turn asks nothing, and a Loop without Approve asks nothing.
func TestApproveAsksOnlyWhatNeedsIt(t *testing.T) {
	var asked []string
	r := &ran{}
	turns := []llmstream.Message{
		asst("", call("e1", "echo", `{"id":"e1"}`), call("w1", "write", `{"id":"w1"}`)),
		asst("", call("w2", "write", `{"id":"w2"}`), call("x", "nope", `{}`)),
		asst("done"),
	}
	l := agentloop.Loop{Model: &script{turns: turns}, Tools: approvalTools(r), Approve: decideAt(-1, agentloop.Allow, &asked), AnswerInvalidCalls: true}
	if _, err := l.Run(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"w1"}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	l.Approve, l.Model, r.ids = nil, &script{turns: []llmstream.Message{turns[0], asst("done")}}, nil
	if _, err := l.Run(context.Background(), user); err != nil || len(r.ids) != 2 {
		t.Errorf("without Approve: err %v, ran %v", err, r.ids)
	}
}

func TestVerdictText(t *testing.T) {
	for _, v := range []agentloop.Verdict{agentloop.Allow, agentloop.Deny, agentloop.Pause} {
		b, err := v.MarshalText()
		var back agentloop.Verdict
		if err != nil || back.UnmarshalText(b) != nil || back != v {
			t.Errorf("%v: %q, %v, back %v", v, b, err, back)
		}
	}
	for _, v := range []agentloop.Verdict{0, agentloop.Pause + 1} {
		if _, err := v.MarshalText(); err == nil {
			t.Errorf("%v marshaled", v)
		}
	}
	var v agentloop.Verdict
	if err := v.UnmarshalText([]byte("maybe")); err == nil {
		t.Error(`"maybe" unmarshaled`)
	}
}
