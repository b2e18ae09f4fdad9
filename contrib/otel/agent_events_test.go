package otel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/otel"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// scripted is a Model that answers the turns in order, then "done".
func scripted(turns ...[]llmstream.ToolCall) agentloop.Model {
	n := 0
	return agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
		if n == len(turns) {
			return llmstream.Message{Role: "assistant", Content: "done", FinishReason: "stop"}, nil
		}
		n++
		return llmstream.Message{Role: "assistant", ToolCalls: turns[n-1], FinishReason: "tool_calls"}, nil
	})
}

func toolCall(id, name, args string) llmstream.ToolCall {
	return llmstream.ToolCall{ID: id, Type: "function", Function: llmstream.FunctionCall{Name: name, Arguments: args}}
}

// whoami answers with the id of the call it runs for.
var whoami = agentloop.Tool{Name: "whoami", NeedsApproval: true, Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
	c, _ := agentloop.CallFromContext(ctx)
	return c.ID, nil
}}

// event is an event's name and attributes, for comparing.
type event struct {
	Name  string
	Attrs map[string]any
}

func agentSpan(t *testing.T, tel *telemetry) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range tel.spans.Ended() {
		if s.Name() == "invoke_agent" {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d invoke_agent spans among %v, want 1", len(found), names(tel.spans.Ended()))
	}
	return found[0]
}

func events(s sdktrace.ReadOnlySpan) []event {
	var out []event
	for _, e := range s.Events() {
		out = append(out, event{e.Name, attrs(e.Attributes)})
	}
	return out
}

// A run paused for approval is no failure: its span has no error.type and
// no Error status, and a pause event lists the waiting calls; a call
// allowed before the pause has its event. Resumed, the decisions given
// are events of the new span: a denial names the call and tool, never the
// reason unless contents are recorded.
func TestRunPauseApproveDeny(t *testing.T) {
	for _, content := range []bool{false, true} {
		t.Run(fmt.Sprintf("content %v", content), func(t *testing.T) {
			tel := newTelemetry(t)
			opts := append(tel.opts, otel.WithContent(content))
			loop := &agentloop.Loop{
				Model: scripted([]llmstream.ToolCall{toolCall("c1", "whoami", `{}`), toolCall("c2", "whoami", `{}`), toolCall("c3", "whoami", `{}`)}),
				Tools: []agentloop.Tool{whoami},
				Approve: func(_ context.Context, c agentloop.Call) (agentloop.Decision, error) {
					if c.ID == "c1" {
						return agentloop.Decision{Verdict: agentloop.Allow}, nil
					}
					return agentloop.Decision{Verdict: agentloop.Pause}, nil
				},
			}
			res, err := otel.Run(context.Background(), loop, []llmstream.Message{{Role: "user", Content: "go"}}, opts...)
			if !errors.Is(err, agentloop.ErrPaused) {
				t.Fatalf("err %v, want ErrPaused", err)
			}
			span := agentSpan(t, tel)
			if _, ok := attrs(span.Attributes())["error.type"]; ok || span.Status().Code != codes.Unset {
				t.Errorf("paused run: error.type %v, status %v; want none, Unset", attrs(span.Attributes())["error.type"], span.Status())
			}
			want := []event{
				{"airlock.tool.approved", map[string]any{"gen_ai.tool.call.id": "c1", "gen_ai.tool.name": "whoami"}},
				{"airlock.agent.paused", map[string]any{"airlock.approval.pending_call_ids": []string{"c2", "c3"}}},
			}
			if diff := cmp.Diff(want, events(span)); diff != "" {
				t.Errorf("paused run's events (-want +got):\n%s", diff)
			}

			tel.spans.Reset()
			res, err = otel.Resume(context.Background(), loop, *res.State, map[string]agentloop.Decision{
				"c2": {Verdict: agentloop.Deny, Reason: "not c2, secret plans"},
				"c3": {Verdict: agentloop.Allow},
			}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			span = agentSpan(t, tel)
			denied := map[string]any{"gen_ai.tool.call.id": "c2", "gen_ai.tool.name": "whoami"}
			if content {
				denied["airlock.approval.reason"] = "not c2, secret plans"
			}
			want = []event{
				{"airlock.tool.denied", denied},
				{"airlock.tool.approved", map[string]any{"gen_ai.tool.call.id": "c3", "gen_ai.tool.name": "whoami"}},
			}
			if diff := cmp.Diff(want, events(span)); diff != "" {
				t.Errorf("resumed run's events (-want +got):\n%s", diff)
			}
			if span.Status().Code != codes.Unset || res.Messages[len(res.Messages)-1].Content != "done" {
				t.Errorf("resumed run: status %v, last message %+v", span.Status(), res.Messages[len(res.Messages)-1])
			}
			var ran []string
			for _, s := range tel.spans.Ended() {
				if s.Name() == "execute_tool whoami" {
					ran = append(ran, attrs(s.Attributes())["gen_ai.tool.call.id"].(string))
				}
			}
			if !cmp.Equal(ran, []string{"c1", "c3"}) {
				t.Errorf("tool spans for %v, want c1 c3 (c2 denied)", ran)
			}
		})
	}
}

// A failing Approve fails the run with the error.type of Approve's error:
// here one of no kind, "_OTHER".
func TestRunApprovalFailed(t *testing.T) {
	tel := newTelemetry(t)
	loop := &agentloop.Loop{
		Model: scripted([]llmstream.ToolCall{toolCall("c1", "whoami", `{}`)}),
		Tools: []agentloop.Tool{whoami},
		Approve: func(context.Context, agentloop.Call) (agentloop.Decision, error) {
			return agentloop.Decision{}, errors.New("the approver is down")
		},
	}
	if _, err := otel.Run(context.Background(), loop, []llmstream.Message{{Role: "user", Content: "go"}}, tel.opts...); !errors.Is(err, agentloop.ErrApproval) {
		t.Fatalf("err %v, want ErrApproval", err)
	}
	span := agentSpan(t, tel)
	if got := attrs(span.Attributes())["error.type"]; got != "_OTHER" || span.Status().Code != codes.Error || len(span.Events()) != 0 {
		t.Errorf("error.type %v, status %v, events %v; want _OTHER, Error, none", got, span.Status(), events(span))
	}
}

// A turn whose calls run at once is an event with its size and the most
// calls that ran together; calls alike in name and arguments keep their
// own ids on their spans. One at a time, no event.
func TestRunParallelEvent(t *testing.T) {
	for _, width := range []int{1, 3} {
		t.Run(fmt.Sprintf("ParallelTools %d", width), func(t *testing.T) {
			tel := newTelemetry(t)
			started := make(chan struct{}, 3)
			release := make(chan struct{})
			gate := agentloop.Tool{Name: "gate", Run: func(ctx context.Context, _ json.RawMessage) (string, error) {
				c, _ := agentloop.CallFromContext(ctx)
				if width > 1 && c.Turn == 1 {
					started <- struct{}{}
					select { // all three must run at once for any to end
					case <-release:
					case <-ctx.Done():
						return "", ctx.Err()
					}
				}
				return c.ID, nil
			}}
			if width > 1 {
				go func() {
					for range 3 {
						<-started
					}
					close(release)
				}()
			}
			same := `{"q":"same"}`
			loop := &agentloop.Loop{
				Model: scripted(
					[]llmstream.ToolCall{toolCall("p1", "gate", same), toolCall("p2", "gate", same), toolCall("p3", "gate", same)},
					[]llmstream.ToolCall{toolCall("s1", "gate", same)},
				),
				Tools:         []agentloop.Tool{gate},
				ParallelTools: width,
			}
			if _, err := otel.Run(context.Background(), loop, []llmstream.Message{{Role: "user", Content: "go"}}, append(tel.opts, otel.WithContent(true))...); err != nil {
				t.Fatal(err)
			}
			var want []event
			if width > 1 {
				want = []event{{"airlock.tools.parallel", map[string]any{"airlock.turn": int64(1), "airlock.tools.batch_size": int64(3), "airlock.tools.max_running": int64(3)}}}
			}
			if diff := cmp.Diff(want, events(agentSpan(t, tel))); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			n := 0
			for _, s := range tel.spans.Ended() {
				if s.Name() != "execute_tool gate" {
					continue
				}
				n++
				if a := attrs(s.Attributes()); a["gen_ai.tool.call.id"] != a["gen_ai.tool.call.result"] {
					t.Errorf("span of call %v ran call %v", a["gen_ai.tool.call.id"], a["gen_ai.tool.call.result"])
				}
			}
			if n != 4 {
				t.Errorf("%d tool spans, want 4", n)
			}
		})
	}
}

// Tools wrapped alone and run by a plain Loop (no otel.Run) still get
// each call's id on their spans.
func TestWrapToolsInLoop(t *testing.T) {
	tel := newTelemetry(t)
	loop := agentloop.Loop{
		Model: scripted([]llmstream.ToolCall{toolCall("k1", "whoami", `{}`), toolCall("k2", "whoami", `{}`)}),
		Tools: otel.WrapTools([]agentloop.Tool{whoami}, tel.opts...),
	}
	if _, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "go"}}); err != nil {
		t.Fatal(err)
	}
	var ids []any
	for _, s := range tel.spans.Ended() {
		ids = append(ids, attrs(s.Attributes())["gen_ai.tool.call.id"])
	}
	if !cmp.Equal(ids, []any{"k1", "k2"}) {
		t.Errorf("call ids on the spans %v, want k1 k2", ids)
	}
}
