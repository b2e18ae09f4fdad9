package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

func TestRunWithTools(t *testing.T) {
	model, srv := newModel(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{
			{ID: "c1", Name: "echo", Arguments: `{"text":"one"}`},
			{ID: "c2", Name: "shout", Arguments: `{"text":"two"}`},
		}, Usage: &llmstream.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		llmstreamtest.Turn{Text: "All done.", Usage: &llmstream.Usage{PromptTokens: 20, CompletionTokens: 3, TotalTokens: 23}},
	))
	var j journal
	env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{echoTool("echo", &j), echoTool("shout", &j)}})
	st, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	if err != nil {
		t.Fatal(err)
	}
	want := `user: go
assistant:  {c1 echo {"text":"one"}} {c2 shout {"text":"two"}}
tool[c1]: echo says one
tool[c2]: shout says two
assistant: All done.
`
	if diff := cmp.Diff(want, transcript(st.Messages)); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if st.Turns != 2 || st.ToolCalls != 2 || st.Usage.TotalTokens != 35 {
		t.Errorf("turns %d, tool calls %d, total tokens %d; want 2, 2, 35", st.Turns, st.ToolCalls, st.Usage.TotalTokens)
	}
	if diff := cmp.Diff([]string{"echo:one", "shout:two"}, j.list()); diff != "" {
		t.Errorf("tool runs (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 || len(reqs[0].Tools) != 2 {
		t.Fatalf("requests: %d, second with %d messages, first with %d tools; want 2, 4, 2", len(reqs), len(reqs[1].Messages), len(reqs[0].Tools))
	}
}

// The caps stop a turn before any of its calls runs, at one past the limit
// and not at it.
func TestCaps(t *testing.T) {
	twoCalls := llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{
		{ID: "c1", Name: "echo", Arguments: `{"text":"a"}`},
		{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`},
	}}
	tests := []struct {
		name    string
		opts    Options
		wantErr error
		runs    int
	}{
		{"per turn at the limit", Options{MaxToolCallsPerTurn: 2}, nil, 2},
		{"per turn one over", Options{MaxToolCallsPerTurn: 1}, agentloop.ErrTurnToolLimit, 0},
		{"per turn off", Options{MaxToolCallsPerTurn: -1}, nil, 2},
		{"total at the limit", Options{MaxTotalToolCalls: 2}, nil, 2},
		{"total one over", Options{MaxTotalToolCalls: 1}, agentloop.ErrTotalToolLimit, 0},
		{"turns at the limit", Options{MaxTurns: 2}, nil, 2},
		{"turns one under", Options{MaxTurns: 1}, agentloop.ErrMaxTurns, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, _ := newModel(t, llmstreamtest.WithTurns(twoCalls, llmstreamtest.Turn{Text: "ok"}))
			var j journal
			env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{echoTool("echo", &j)}})
			st, err := execute(t, env, input{Options: tt.opts, State: agentloop.State{Messages: user("go")}})
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				got := runError(t, err)
				if !errors.Is(got, tt.wantErr) {
					t.Fatalf("error %v, want %v", err, tt.wantErr)
				}
				st = got.state
			}
			if n := len(j.list()); n != tt.runs {
				t.Errorf("%d tool runs, want %d", n, tt.runs)
			}
			if n := len(st.Messages); n < 4 || st.Messages[2].ToolCallID != "c1" || st.Messages[3].ToolCallID != "c2" {
				t.Errorf("the calls are not both answered:\n%s", transcript(st.Messages))
			}
		})
	}
}

// failure is a failed run as Run.Result would report it, with its state.
type failure struct {
	*RunError
	state agentloop.State
}

// runError converts a test environment's workflow error as Run.Result
// does.
func runError(t *testing.T, err error) failure {
	t.Helper()
	var app *sdktemporal.ApplicationError
	if !errors.As(err, &app) {
		t.Fatalf("error %v (%T) is not an ApplicationError", err, err)
	}
	var st agentloop.State
	if app.HasDetails() {
		if derr := app.Details(&st); derr != nil {
			t.Fatal(derr)
		}
	}
	return failure{&RunError{Type: app.Type(), Err: err}, st}
}

func TestApproveAndDeny(t *testing.T) {
	model, _ := newModel(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{
			{ID: "c1", Name: "delete", Arguments: `{"text":"a"}`},
			{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`},
			{ID: "c3", Name: "delete", Arguments: `{"text":"c"}`},
		}},
		llmstreamtest.Turn{Text: "ok"},
	))
	var j journal
	del := echoTool("delete", &j)
	del.NeedsApproval = true
	env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{del, echoTool("echo", &j)}})
	var pending []agentloop.Call
	var rejected, accepted atomic.Int32
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryPending)
		if err != nil {
			t.Error(err)
			return
		}
		if err := v.Get(&pending); err != nil {
			t.Error(err)
		}
		if n := len(j.list()); n != 0 {
			t.Errorf("%d tools ran before the decisions", n)
		}
		// A decision is refused by the validator, or, when two on one call
		// were validated before either was handled, by the handler.
		decide := func(id string, d agentloop.Decision, wantRefusal bool) {
			refused := func(err error) {
				if !wantRefusal {
					t.Errorf("decision %s %+v refused: %v", id, d, err)
				}
				rejected.Add(1)
			}
			env.UpdateWorkflow(UpdateDecide, fmt.Sprintf("%s/%v/%s", id, d.Verdict, d.Reason), &updateCallbacks{
				reject: refused,
				complete: func(_ any, err error) {
					if err != nil {
						refused(err)
						return
					}
					if wantRefusal {
						t.Errorf("decision %s %+v taken, want it refused", id, d)
					}
					accepted.Add(1)
				},
			}, decision{CallID: id, Decision: d})
		}
		allow := agentloop.Decision{Verdict: agentloop.Allow}
		decide("c2", allow, true) // needs no decision
		decide("c1", agentloop.Decision{Verdict: agentloop.Pause}, true)
		decide("c1", allow, false)
		decide("c1", agentloop.Decision{Verdict: agentloop.Deny, Reason: "again"}, true) // already decided
		decide("c3", agentloop.Decision{Verdict: agentloop.Deny, Reason: "not that one"}, false)
	}, time.Minute)
	st, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	if err != nil {
		t.Fatal(err)
	}
	wantPending := []agentloop.Call{
		{Turn: 1, Index: 0, ID: "c1", Name: "delete", Arguments: `{"text":"a"}`},
		{Turn: 1, Index: 2, ID: "c3", Name: "delete", Arguments: `{"text":"c"}`},
	}
	if diff := cmp.Diff(wantPending, pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if rejected.Load() != 3 || accepted.Load() != 2 {
		t.Errorf("%d decisions rejected and %d accepted, want 3 and 2", rejected.Load(), accepted.Load())
	}
	want := `user: go
assistant:  {c1 delete {"text":"a"}} {c2 echo {"text":"b"}} {c3 delete {"text":"c"}}
tool[c1]: delete says a
tool[c2]: echo says b
tool[c3]!: denied: not that one
assistant: ok
`
	if diff := cmp.Diff(want, transcript(st.Messages)); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"delete:a", "echo:b"}, j.list()); diff != "" {
		t.Errorf("tool runs (-want +got):\n%s", diff)
	}
}

// updateCallbacks adapts functions to the testsuite's UpdateCallbacks.
type updateCallbacks struct {
	reject   func(error)
	complete func(any, error)
}

func (u *updateCallbacks) Accept()                   {}
func (u *updateCallbacks) Reject(err error)          { u.reject(err) }
func (u *updateCallbacks) Complete(v any, err error) { u.complete(v, err) }

// A run continues as new past the history bound, between turns, and ends
// with the conversation of a run that did not.
func TestContinueAsNew(t *testing.T) {
	turns := []llmstreamtest.Turn{
		{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "echo", Arguments: `{"text":"a"}`}}},
		{ToolCalls: []llmstreamtest.Call{{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`}}},
		{Text: "ok"},
	}
	whole := func() agentloop.State {
		model, _ := newModel(t, llmstreamtest.WithTurns(turns...))
		var j journal
		env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{echoTool("echo", &j)}})
		st, err := execute(t, env, input{Options: Options{MaxHistoryEvents: -1}, State: agentloop.State{Messages: user("go")}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}()

	model, _ := newModel(t, llmstreamtest.WithTurns(turns...))
	var j journal
	agent := Agent{Model: model, Tools: []agentloop.Tool{echoTool("echo", &j)}}
	in := input{Options: Options{MaxHistoryEvents: 100}, State: agentloop.State{Messages: user("go")}}
	var st agentloop.State
	for execution := 1; ; execution++ {
		env := newEnv(t, agent)
		env.SetCurrentHistoryLength(100) // at the bound: one turn, then continue
		var err error
		st, err = execute(t, env, in)
		var can *workflow.ContinueAsNewError
		if !errors.As(err, &can) {
			if err != nil {
				t.Fatal(err)
			}
			if execution != 3 {
				t.Errorf("%d executions, want one a turn: 3", execution)
			}
			break
		}
		if execution > 3 {
			t.Fatal("the run keeps continuing as new")
		}
		if can.WorkflowType.Name != DefaultName {
			t.Errorf("continued as %q", can.WorkflowType.Name)
		}
		in = input{}
		if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
			t.Fatal(err)
		}
		if in.Continued != execution || in.State.Turns != execution || in.State.TurnsBefore != 0 {
			t.Errorf("execution %d carried Continued %d, Turns %d, TurnsBefore %d", execution, in.Continued, in.State.Turns, in.State.TurnsBefore)
		}
	}
	if diff := cmp.Diff(transcript(whole.Messages), transcript(st.Messages)); diff != "" {
		t.Errorf("conversation with continue-as-new (-whole +continued):\n%s", diff)
	}
	if st.Turns != whole.Turns || st.ToolCalls != whole.ToolCalls {
		t.Errorf("turns %d, calls %d; want %d, %d", st.Turns, st.ToolCalls, whole.Turns, whole.ToolCalls)
	}
}

// A turn that fails in a retryable way is retried by Temporal, once: the
// client's own retries are off. The follower is told to drop the partial
// text of the failed attempt.
func TestRetriedModelTurn(t *testing.T) {
	tests := []struct {
		name  string
		fault llmstreamtest.Fault
	}{
		{"server error", llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 500, Attempts: 1}},
		{"rate limited", llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 429, Attempts: 1, RetryAfter: "1"}},
		{"cut stream", llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 2}},
		{"truncated stream", llmstreamtest.Fault{Kind: llmstreamtest.FaultTruncate, After: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "the answer comes in several words"
			var served atomic.Int32
			model, srv := newModel(t, llmstreamtest.WithResponder(func(llmstreamtest.Request) llmstreamtest.Turn {
				if served.Add(1) == 1 {
					return llmstreamtest.Turn{Text: text, Fault: tt.fault}
				}
				return llmstreamtest.Turn{Text: text}
			}))
			var deltas []Delta
			var relay Relay
			stop := relay.Follow("wf", func(d Delta) { deltas = append(deltas, d) })
			defer stop()
			env := newEnv(t, Agent{Model: model, OnDelta: relay.Publish})
			env.SetStartWorkflowOptions(startOptions("wf"))
			st, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			if st.Turns != 1 || st.Messages[1].Content != text {
				t.Errorf("turns %d, answer %q", st.Turns, st.Messages[1].Content)
			}
			// What a follower shows: the text of the attempt after the last reset.
			var shown strings.Builder
			resets := 0
			for _, d := range deltas {
				if d.Reset {
					shown.Reset()
					resets++
					if d.Attempt != 2 {
						t.Errorf("reset on attempt %d", d.Attempt)
					}
					continue
				}
				shown.WriteString(d.Delta.Text)
			}
			if resets != 1 || shown.String() != text {
				t.Errorf("%d resets, follower shows %q; want 1, %q", resets, shown.String(), text)
			}
		})
	}
}

// An error that the same request would meet again is not retried.
func TestNonRetryableModelError(t *testing.T) {
	tests := []struct {
		name     string
		fault    llmstreamtest.Fault
		wantType string
	}{
		{"bad request", llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 400}, "airlock.model.invalid_request"},
		{"bad key", llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 401}, "airlock.model.authentication"},
		{"bad event", llmstreamtest.Fault{Kind: llmstreamtest.FaultMalformed, After: 1}, "airlock.model.bad_response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, srv := newModel(t, llmstreamtest.WithResponder(func(llmstreamtest.Request) llmstreamtest.Turn {
				return llmstreamtest.Turn{Text: "never", Fault: tt.fault}
			}))
			env := newEnv(t, Agent{Model: model})
			_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
			f := runError(t, err)
			if f.Type != tt.wantType {
				t.Errorf("type %q, want %q (%v)", f.Type, tt.wantType, err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Error("the error carries the key")
			}
			if f.state.Turns != 1 || len(f.state.Messages) != 1 {
				t.Errorf("state at the failure: turns %d, %d messages", f.state.Turns, len(f.state.Messages))
			}
		})
	}
}

// Calls of one turn run ParallelTools at a time, and are answered in call
// order whatever order they finish in.
func TestParallelTools(t *testing.T) {
	calls := []llmstreamtest.Call{
		{ID: "c1", Name: "wait", Arguments: `{"text":"1"}`},
		{ID: "c2", Name: "wait", Arguments: `{"text":"2"}`},
		{ID: "c3", Name: "wait", Arguments: `{"text":"3"}`},
	}
	for _, parallel := range []int{1, 2, 3} {
		t.Run("parallel="+string(rune('0'+parallel)), func(t *testing.T) {
			model, _ := newModel(t, llmstreamtest.WithTurns(llmstreamtest.Turn{ToolCalls: calls}, llmstreamtest.Turn{Text: "ok"}))
			var running, most atomic.Int32
			all := make(chan struct{})
			var started atomic.Int32
			wait := agentloop.Tool{Name: "wait", Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				if started.Add(1) == int32(parallel) {
					close(all)
				}
				if parallel > 1 {
					// The first calls wait for each other: they finish only
					// if they run at once. The last finishes first.
					select {
					case <-all:
					case <-time.After(10 * time.Second):
						return "", errors.New("the calls did not run at once")
					}
				}
				var in struct{ Text string }
				_ = json.Unmarshal(args, &in)
				return "done " + in.Text, nil
			}}
			env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{wait}})
			st, err := execute(t, env, input{Options: Options{ParallelTools: parallel}, State: agentloop.State{Messages: user("go")}})
			if err != nil {
				t.Fatal(err)
			}
			if int(most.Load()) != parallel {
				t.Errorf("at most %d calls ran at once, want %d", most.Load(), parallel)
			}
			for i, id := range []string{"c1", "c2", "c3"} {
				if m := st.Messages[2+i]; m.ToolCallID != id || m.Content != "done "+id[1:] {
					t.Errorf("answer %d: %s %q", i, m.ToolCallID, m.Content)
				}
			}
		})
	}
}

// A tool's own error fails the run without a retry, and the later calls of
// its turn are skipped; a recoverable one is the model's to read, and the
// turn's other calls run.
func TestToolFailure(t *testing.T) {
	calls := []llmstreamtest.Call{
		{ID: "c1", Name: "fail", Arguments: `{}`},
		{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`},
	}
	for _, recoverable := range []bool{false, true} {
		t.Run(map[bool]string{false: "fatal", true: "recoverable"}[recoverable], func(t *testing.T) {
			model, _ := newModel(t, llmstreamtest.WithTurns(llmstreamtest.Turn{ToolCalls: calls}, llmstreamtest.Turn{Text: "ok"}))
			var runs atomic.Int32
			var j journal
			fail := agentloop.Tool{Name: "fail", Run: func(context.Context, json.RawMessage) (string, error) {
				runs.Add(1)
				err := errors.New("disk full")
				if recoverable {
					return "", agentloop.Recoverable(err)
				}
				return "", err
			}}
			env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{fail, echoTool("echo", &j)}})
			st, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
			if recoverable {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				f := runError(t, err)
				if f.Type != errTypeTool {
					t.Errorf("type %q, want %q", f.Type, errTypeTool)
				}
				st = f.state
			}
			wantNext := map[bool]int{false: 0, true: 1}[recoverable]
			if runs.Load() != 1 || len(j.list()) != wantNext {
				t.Errorf("the failing tool ran %d times, the next call %d times; want 1, %d", runs.Load(), len(j.list()), wantNext)
			}
			// agentloop's own answers: a recoverable error is the tool's
			// text, any other is agentloop's *ToolError.
			want := "tool[c1]!: error: disk full\ntool[c2]: echo says b\n"
			if !recoverable {
				want = "tool[c1]!: error: agentloop: tool \"fail\" (call c1): disk full\ntool[c2]: skipped: not run because call c1 failed\n"
			}
			if got := transcript(st.Messages[2:4]); got != want {
				t.Errorf("answers:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// A call to an unknown tool, with arguments that are not an object, or
// (the stream ended properly) not JSON at all runs nothing of its turn; the
// model reads agentloop's answers and goes on.
func TestInvalidCalls(t *testing.T) {
	tests := []struct {
		name  string
		calls []llmstreamtest.Call
		want  string
	}{
		{"unknown tool, array", []llmstreamtest.Call{
			{ID: "c1", Name: "nope", Arguments: `{}`},
			{ID: "c2", Name: "echo", Arguments: `[1]`},
			{ID: "c3", Name: "echo", Arguments: `{"text":"c"}`},
		}, `tool[c1]!: error: there is no tool named "nope"; the tools are: echo
tool[c2]!: error: the arguments are a JSON array, not an object; send the call again with its arguments as one JSON object
tool[c3]: skipped: not run because call c1 is invalid
`},
		{"not JSON", []llmstreamtest.Call{
			{ID: "c1", Name: "echo", Arguments: `{"text":`},
			{ID: "c2", Name: "echo", Arguments: `{"text":"b"}`},
		}, `tool[c1]!: error: the arguments are not valid JSON: unexpected end of JSON input at byte 8; send the call again with its arguments as one JSON object
tool[c2]: skipped: not run because call c1 is invalid
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, _ := newModel(t, llmstreamtest.WithTurns(llmstreamtest.Turn{ToolCalls: tt.calls}, llmstreamtest.Turn{Text: "ok"}))
			var j journal
			env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{echoTool("echo", &j)}})
			st, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
			if err != nil {
				t.Fatal(err)
			}
			if got := transcript(st.Messages[2 : 2+len(tt.calls)]); got != tt.want {
				t.Errorf("answers:\n%s\nwant:\n%s", got, tt.want)
			}
			if len(j.list()) != 0 || st.Turns != 2 {
				t.Errorf("%d tool runs, %d turns; want 0, 2", len(j.list()), st.Turns)
			}
		})
	}
}

func TestInvalidOptions(t *testing.T) {
	model, srv := newModel(t)
	env := newEnv(t, Agent{Model: model})
	_, err := execute(t, env, input{Options: Options{ToolTimeout: -time.Second}, State: agentloop.State{Messages: user("go")}})
	if f := runError(t, err); !errors.Is(f, ErrInvalidOptions) {
		t.Errorf("error %v, want ErrInvalidOptions", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests, want 0", n)
	}
}

// The same recoverable failure, or the same invalid calls, twice in a row
// stop the run, as in agentloop; a success in between resets the rule.
func TestRepeatedFailure(t *testing.T) {
	fail := llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "f", Name: "fail", Arguments: `{}`}}}
	ok := llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "e", Name: "echo", Arguments: `{"text":"x"}`}}}
	invalid := llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "n", Name: "nope", Arguments: `{}`}}}
	tests := []struct {
		name    string
		turns   []llmstreamtest.Turn
		stopped bool
	}{
		{"failure twice", []llmstreamtest.Turn{fail, fail}, true},
		{"failure, success, failure", []llmstreamtest.Turn{fail, ok, fail}, false},
		{"invalid twice", []llmstreamtest.Turn{invalid, invalid}, true},
		{"invalid, success, invalid", []llmstreamtest.Turn{invalid, ok, invalid}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, _ := newModel(t, llmstreamtest.WithTurns(append(tt.turns, llmstreamtest.Turn{Text: "ok"})...))
			var j journal
			failTool := agentloop.Tool{Name: "fail", Run: func(context.Context, json.RawMessage) (string, error) {
				return "", agentloop.Recoverable(errors.New("no such file"))
			}}
			env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{failTool, echoTool("echo", &j)}})
			_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
			if !tt.stopped {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if f := runError(t, err); !errors.Is(f, agentloop.ErrRepeatedFailure) {
				t.Fatalf("error %v, want ErrRepeatedFailure", err)
			}
		})
	}
}

// The model turn heartbeats the text so far.
func TestProgressHeartbeat(t *testing.T) {
	text := strings.Repeat("one two three four five six seven eight nine ten ", 4)
	model, _ := newModel(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: text}), llmstreamtest.WithEventDelay(50*time.Millisecond))
	env := newEnv(t, Agent{Model: model})
	var beats []Progress
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var p Progress
		if details.HasValues() && details.Get(&p) == nil {
			beats = append(beats, p)
		}
	})
	// Heartbeats every 100 ms, sent on at most every 240 ms, over a stream
	// of about 2 s.
	if _, err := execute(t, env, input{Options: Options{HeartbeatTimeout: 300 * time.Millisecond}, State: agentloop.State{Messages: user("go")}}); err != nil {
		t.Fatal(err)
	}
	withText := 0
	for i, p := range beats {
		if p.Turn != 1 || p.Attempt != 1 || !strings.HasPrefix(text, p.Text) || i > 0 && len(p.Text) < len(beats[i-1].Text) {
			t.Errorf("heartbeat %d: %+v", i, p)
		}
		if p.Text != "" {
			withText++
		}
	}
	if withText == 0 {
		t.Errorf("no heartbeat of %d carried text", len(beats))
	}
}

// A run cancelled while a tool runs ends cancelled, not failed, with the
// call answered.
func TestCancelDuringTool(t *testing.T) {
	model, _ := newModel(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "block", Arguments: `{}`}}},
		llmstreamtest.Turn{Text: "never"},
	))
	started, returned := make(chan struct{}), make(chan error, 1)
	block := agentloop.Tool{Name: "block", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
		close(started)
		defer func() { returned <- ctx.Err() }()
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			return "", errors.New("the tool was never cancelled")
		}
	}}
	env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{block}})
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == DefaultName+toolSuffix {
			go func() {
				<-started
				env.CancelWorkflow()
			}()
		}
	})
	_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	checkCancelled(t, err)
	// The testsuite does not wait for a cancelled activity; the tool's
	// context must end all the same.
	if err := <-returned; err == nil {
		t.Error("the tool's context did not end with the run")
	}
}

// A run cancelled while the model streams ends cancelled, not failed.
func TestCancelDuringModel(t *testing.T) {
	model, _ := newModel(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "never ends", Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: 1}}))
	env := newEnv(t, Agent{Model: model})
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) {
		go env.CancelWorkflow()
	})
	_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	checkCancelled(t, err)
}

// checkCancelled fails unless err is a cancellation alone, not a failure
// with a cancellation among its causes.
func checkCancelled(t *testing.T, err error) {
	t.Helper()
	var app *sdktemporal.ApplicationError
	if !sdktemporal.IsCanceledError(err) || errors.As(err, &app) {
		t.Errorf("error %v (%T), want a cancellation", err, err)
	}
}

func TestNoModel(t *testing.T) {
	env := newEnv(t, Agent{})
	_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	if f := runError(t, err); f.Type != ErrTypeModel || !strings.Contains(err.Error(), ErrNoModel.Error()) {
		t.Errorf("error %v, want %v", err, ErrNoModel)
	}
}

// A tool agentloop refuses (here a NewTool whose input type has no JSON
// Schema) fails the run before anything is sent to the model.
func TestUnusableTool(t *testing.T) {
	model, srv := newModel(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "bad", Arguments: `{}`}}},
		llmstreamtest.Turn{Text: "ok"},
	))
	ran := false
	bad := agentloop.NewTool("bad", "has a channel", func(context.Context, struct{ C chan int }) (string, error) {
		ran = true
		return "", nil
	})
	env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{bad}})
	_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	if f := runError(t, err); f.Type != "airlock.unknown.invalid_loop" || !errors.Is(f, agentloop.ErrInvalidLoop) {
		t.Errorf("error %v, want the tools refused", err)
	}
	if ran || len(srv.Requests()) != 0 {
		t.Errorf("the refused tool ran: %v; %d requests sent, want none", ran, len(srv.Requests()))
	}
}

// The run's State keeps every field of each assistant message and of the
// usage sum, billed counts and stop reasons included, as agentloop's does.
func TestStateKeepsEveryField(t *testing.T) {
	u := llmstream.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, CachedTokens: 4, CacheWriteTokens: 5, ReasoningTokens: 6, BilledPromptTokens: 7, BilledCompletionTokens: 8}
	msg := llmstream.Message{Role: "assistant", Content: "hi", Reasoning: "hmm", FinishReason: "end_turn", StopReason: llmstream.StopEndTurn, Usage: &u,
		Continuity: &llmstream.Continuity{Dialect: llmstream.DialectAnthropic, Container: json.RawMessage(`{"id":"x"}`)}}
	model := agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) { return msg, nil })
	env := newEnv(t, Agent{Model: model})
	st, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(user("go"), msg), st.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(u, st.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

// A failed run's error says its cause once.
func TestRunErrorSaysCauseOnce(t *testing.T) {
	t.Run("tool", func(t *testing.T) {
		model, _ := newModel(t, llmstreamtest.WithTurns(llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "fail", Arguments: `{}`}}}))
		fail := agentloop.Tool{Name: "fail", Run: func(context.Context, json.RawMessage) (string, error) { return "", errors.New("disk full") }}
		env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{fail}})
		_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
		if n := strings.Count(runError(t, err).Error(), "disk full"); n != 1 {
			t.Errorf("the cause is said %d times: %v", n, err)
		}
	})
	t.Run("model", func(t *testing.T) {
		model := agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			return llmstream.Message{}, errors.New("the model is gone")
		})
		env := newEnv(t, Agent{Model: model})
		_, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}})
		if n := strings.Count(runError(t, err).Error(), "the model is gone"); n != 1 {
			t.Errorf("the cause is said %d times: %v", n, err)
		}
	})
}

// The Agent's hooks see the durable run's model turns and tool calls, on
// the worker, one at a time.
func TestHooks(t *testing.T) {
	model, _ := newModel(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "echo", Arguments: `{"text":"a"}`}, {ID: "c2", Name: "nope", Arguments: `{}`}}},
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c3", Name: "echo", Arguments: `{"text":"b"}`}}},
		llmstreamtest.Turn{Text: "ok"},
	))
	var events []string
	var mu sync.Mutex
	add := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	hooks := agentloop.Hooks{
		BeforeModel: func(e agentloop.ModelStart) { add(fmt.Sprintf("model %d", e.Turn)) },
		AfterModel:  func(e agentloop.ModelDone) { add(fmt.Sprintf("model %d done", e.Turn)) },
		BeforeTool:  func(e agentloop.ToolStart) { add("tool " + e.Call.ID) },
		AfterTool:   func(e agentloop.ToolDone) { add("tool " + e.Call.ID + " " + e.Outcome.String()) },
	}
	var j journal
	env := newEnv(t, Agent{Model: model, Tools: []agentloop.Tool{echoTool("echo", &j)}, Hooks: hooks})
	if _, err := execute(t, env, input{State: agentloop.State{Messages: user("go")}}); err != nil {
		t.Fatal(err)
	}
	// The invalid turn runs nothing; the tool hooks are the worker's.
	want := []string{"model 1", "model 1 done", "model 2", "model 2 done", "tool c3", "tool c3 ran", "model 3", "model 3 done"}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
}
