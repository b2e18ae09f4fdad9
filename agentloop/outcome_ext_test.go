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

// Result.Answers says what became of every call this Run or Resume
// answered, typed, whatever the answer's text; a tool whose output looks
// like a denial is still a call that ran.
func TestResultAnswersOutcomes(t *testing.T) {
	r := &ran{}
	tools := append(approvalTools(r), testTools(r)[1:]...)
	tools = append(tools, agentloop.Tool{Name: "liar", Run: func(context.Context, json.RawMessage) (string, error) {
		return "denied: not really", nil
	}})
	turns := []llmstream.Message{
		asst("", call("a", "echo", `{}`), call("b", "oops", `{}`), call("c", "write", `{}`), call("d", "liar", `{}`)),
		asst("", call("e", "nope", `{}`), call("f", "echo", `{}`)),
		asst("", call("g", "fail", `{}`), call("h", "echo", `{}`)),
	}
	l := agentloop.Loop{Model: &script{turns: turns}, Tools: tools, AnswerInvalidCalls: true,
		Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
			return agentloop.Decision{Verdict: agentloop.Deny}, nil
		}}
	res, err := l.Run(context.Background(), user)
	if !errors.Is(err, errBoom) {
		t.Fatalf("err %v", err)
	}
	var got []string
	for _, a := range res.Answers {
		got = append(got, a.Call.ID+" "+a.Outcome.String())
	}
	want := []string{"a ran", "b recovered", "c denied", "d ran", "e invalid", "f skipped", "g failed", "h skipped"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	// The answers are the tool messages, in order.
	var contents []string
	for _, m := range res.Messages {
		if m.Role == "tool" {
			contents = append(contents, m.Content)
		}
	}
	for i, a := range res.Answers {
		if contents[i] != a.Content {
			t.Errorf("answer %d: %q, message %q", i, a.Content, contents[i])
		}
	}

	// A cap: every call not run.
	l = agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", calls("x", 2)...)}}, Tools: tools, MaxToolCallsPerTurn: 1}
	res, _ = l.Run(context.Background(), user)
	if len(res.Answers) != 2 || res.Answers[0].Outcome != agentloop.NotRun || res.Answers[1].Outcome != agentloop.NotRun {
		t.Errorf("capped answers %+v", res.Answers)
	}
	// A cancellation while a tool runs: cancelled, and the rest not run.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := agentloop.Tool{Name: "stop", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		cancel()
		<-ctx.Done()
		return "", ctx.Err()
	}}
	l = agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", call("s", "stop", `{}`), call("t", "echo", `{}`))}}, Tools: append(tools, stop)}
	res, err = l.Run(ctx, user)
	if !errors.Is(err, context.Canceled) || len(res.Answers) != 2 || res.Answers[0].Outcome != agentloop.Cancelled || res.Answers[1].Outcome != agentloop.NotRun {
		t.Errorf("err %v, answers %+v", err, res.Answers)
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[agentloop.Outcome]string{0: "Outcome(0)", agentloop.Ran: "ran", agentloop.NotRun: "not run", agentloop.NotRun + 1: "Outcome(9)"} {
		if got := o.String(); got != want {
			t.Errorf("%d: %q, want %q", o, got, want)
		}
	}
}

// Resume of a paused run on a Loop without Approve says what is missing.
func TestResumeWithoutApproveSaysSo(t *testing.T) {
	r := &ran{}
	l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", writes(1)...)}}, Tools: approvalTools(r),
		Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
			return agentloop.Decision{Verdict: agentloop.Pause}, nil
		}}
	res, err := l.Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrPaused) {
		t.Fatal(err)
	}
	l.Approve = nil
	_, err = l.Resume(context.Background(), res.State, map[string]agentloop.Decision{"w0": {Verdict: agentloop.Allow}})
	if !errors.Is(err, agentloop.ErrInvalidState) || !strings.Contains(err.Error(), "no Approve function") {
		t.Errorf("err %v, want ErrInvalidState naming the missing Approve", err)
	}
	if len(r.ids) != 0 {
		t.Errorf("ran %v", r.ids)
	}
}
