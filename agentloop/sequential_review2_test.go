package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// TestSequentialHooksMatchOldCode_review2 is a differential test of the
// one-at-a-time tool path, which runCalls now runs as its parallel path at
// width 1: for turns of calls that answer, fail, recover, panic, cancel
// the run, or are invalid, with ParallelTools 0 and 1, every hook's
// values in order, the conversation and the error are what the code of
// 15b4876 gave (the golden file was written by this test on that commit,
// with REVIEW2_WRITE_GOLDEN=1).
func TestSequentialHooksMatchOldCode_review2(t *testing.T) {
	scenarios := map[string][]llmstream.ToolCall{
		"ok":          {call("a", "ok", `{"v":1}`), call("b", "ok", `{"v":2}`)},
		"fail first":  {call("a", "fail", `{}`), call("b", "ok", `{}`), call("c", "ok", `{}`)},
		"fail last":   {call("a", "ok", `{}`), call("b", "fail", `{}`)},
		"recover":     {call("a", "rec", `{}`), call("b", "ok", `{}`)},
		"panic":       {call("a", "panic", `{}`), call("b", "ok", `{}`)},
		"cancel":      {call("a", "ok", `{}`), call("b", "cancel", `{}`), call("c", "ok", `{}`)},
		"cancel last": {call("a", "cancel", `{}`)},
		"invalid":     {call("a", "ok", `{}`), call("b", "nope", `{}`)},
		"bad args":    {call("a", "ok", `[1]`), call("b", "ok", `{}`)},
		"one":         {call("a", "ok", `{}`)},
		"denied":      {call("a", "ok", `{"deny":true}`), call("b", "ok", `{}`)},
	}
	var out strings.Builder
	for _, name := range []string{"ok", "fail first", "fail last", "recover", "panic", "cancel", "cancel last", "invalid", "bad args", "one", "denied"} {
		for _, width := range []int{0, 1} { // wider runs finish in any order
			for _, answerInvalid := range []bool{false, true} {
				fmt.Fprintf(&out, "== %s, width %d, answer invalid %v\n", name, width, answerInvalid)
				ctx, cancel := context.WithCancelCause(context.Background())
				tool := func(name string, run func(context.Context, json.RawMessage) (string, error)) agentloop.Tool {
					return agentloop.Tool{Name: name, Parameters: json.RawMessage(`{"type":"object"}`), Run: run,
						NeedsApproval: name == "ok"}
				}
				tools := []agentloop.Tool{
					tool("ok", func(_ context.Context, a json.RawMessage) (string, error) { return "ok " + string(a), nil }),
					tool("fail", func(context.Context, json.RawMessage) (string, error) { return "", errors.New("broke") }),
					tool("rec", func(context.Context, json.RawMessage) (string, error) {
						return "", agentloop.Recoverable(errors.New("try again"))
					}),
					tool("panic", func(context.Context, json.RawMessage) (string, error) { panic("boom") }),
					tool("cancel", func(tctx context.Context, _ json.RawMessage) (string, error) {
						cancel(errors.New("stop now"))
						<-tctx.Done()
						return "", context.Cause(tctx)
					}),
				}
				s := &script{turns: []llmstream.Message{asst("", scenarios[name]...), asst("done")}}
				l := agentloop.Loop{Model: s, Tools: tools, ParallelTools: width, AnswerInvalidCalls: answerInvalid,
					Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
						if strings.Contains(c.Arguments, "deny") {
							return agentloop.Decision{Verdict: agentloop.Deny, Reason: "no"}, nil
						}
						return agentloop.Decision{Verdict: agentloop.Allow}, nil
					},
					Hooks: agentloop.Hooks{
						BeforeTool: func(e agentloop.ToolStart) {
							fmt.Fprintf(&out, "before %d.%d %s batch %d running %d\n", e.Turn, e.Index, e.Call.ID, e.Batch, e.Running)
						},
						AfterTool: func(e agentloop.ToolDone) {
							fmt.Fprintf(&out, "after %d.%d %s %v %q bytes %d cut %d err %v\n", e.Turn, e.Index, e.Call.ID, e.Outcome, e.Content, e.OutputBytes, e.CutBytes, e.Err)
						},
						AfterApproval: func(e agentloop.ApprovalDone) {
							fmt.Fprintf(&out, "approval %s %v\n", e.Call.ID, e.Decision.Verdict)
						},
					}}
				res, err := l.Run(ctx, []llmstream.Message{{Role: "user", Content: "go"}})
				cancel(nil)
				for _, m := range res.Messages {
					fmt.Fprintf(&out, "msg %s %s %q error %v\n", m.Role, m.ToolCallID, m.Content, m.IsError)
				}
				for _, a := range res.Answers {
					fmt.Fprintf(&out, "answer %s %v %q err %v\n", a.Call.ID, a.Outcome, a.Content, a.Err)
				}
				fmt.Fprintf(&out, "turns %d calls %d err %v\n", res.Turns, res.ToolCalls, err)
			}
		}
	}
	// A paused turn resumed: AfterApproval for each pending call, with the
	// decision given, then the calls.
	for _, verdict := range []agentloop.Verdict{agentloop.Allow, agentloop.Deny} {
		fmt.Fprintf(&out, "== resume %v\n", verdict)
		hooks := agentloop.Hooks{
			AfterApproval: func(e agentloop.ApprovalDone) {
				fmt.Fprintf(&out, "approval %s %d.%d %v %q\n", e.Call.ID, e.Call.Turn, e.Call.Index, e.Decision.Verdict, e.Decision.Reason)
			},
			AfterTool: func(e agentloop.ToolDone) { fmt.Fprintf(&out, "after %s %v %q\n", e.Call.ID, e.Outcome, e.Content) },
		}
		ok := agentloop.Tool{Name: "ok", Parameters: json.RawMessage(`{"type":"object"}`), NeedsApproval: true,
			Run: func(_ context.Context, a json.RawMessage) (string, error) { return "ok " + string(a), nil }}
		s := &script{turns: []llmstream.Message{asst("", call("a", "ok", `{"p":1}`), call("b", "ok", `{}`), call("c", "ok", `{"p":2}`)), asst("done")}}
		l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{ok}, Hooks: hooks,
			Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
				if strings.Contains(c.Arguments, "p") {
					return agentloop.Decision{Verdict: agentloop.Pause}, nil
				}
				return agentloop.Decision{Verdict: agentloop.Allow}, nil
			}}
		res, err := l.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "go"}})
		fmt.Fprintf(&out, "paused %d, err %v\n", len(res.Pending), err)
		res, err = l.Resume(context.Background(), res.State, map[string]agentloop.Decision{"a": {Verdict: verdict, Reason: "r"}, "c": {Verdict: agentloop.Allow}})
		for _, m := range res.Messages {
			fmt.Fprintf(&out, "msg %s %s %q error %v\n", m.Role, m.ToolCallID, m.Content, m.IsError)
		}
		fmt.Fprintf(&out, "turns %d calls %d err %v\n", res.Turns, res.ToolCalls, err)
	}
	const golden = "testdata/sequential_review2.golden"
	if os.Getenv("REVIEW2_WRITE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(out.String(), "\n"), strings.Split(string(want), "\n")
	head := ""
	for i := range min(len(gl), len(wl)) {
		if strings.HasPrefix(wl[i], "== ") {
			head = wl[i]
		}
		if gl[i] != wl[i] {
			t.Fatalf("%s: differs from the old code:\ngot  %s\nwant %s", head, gl[i], wl[i])
		}
	}
	if len(gl) != len(wl) {
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}
}
