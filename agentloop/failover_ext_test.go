package agentloop_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// TestLoopOnFailover runs the loop, unchanged, on a Failover whose first
// model (chat) cuts its stream every time and whose second (Anthropic)
// continues the cut text (the second turn goes through): the run ends as on a healthy model, the tool
// runs once, and the display sees the text once, with its seam.
func TestLoopOnFailover(t *testing.T) {
	first := llmstreamtest.Turn{Text: "Let me check the time for you. ", ToolCalls: []llmstreamtest.Call{{ID: "call_t", Name: "time", Arguments: `{"zone":"UTC"}`}}}
	cutting := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return llmstreamtest.Turn{Text: "It is noon."}
		}
		t := first
		t.Fault = llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 4}
		return t
	}))
	continuing := llmstreamtest.Attempts(first)
	fallback := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return llmstreamtest.Turn{Text: "It is noon."}
		}
		return continuing(r)
	}))
	var runs atomic.Int32
	var shown strings.Builder
	var seams []llmstream.DeltaKind
	loop := agentloop.Loop{
		Model: &llmstream.Failover{Backoff: -1, Models: []llmstream.Streamer{
			llmstream.NewClient(append(cutting.ClientOptions(), llmstream.WithModel("gpt-test"))...),
			llmstream.NewClient(append(fallback.ClientOptions(), llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithModel("claude-test"))...),
		}},
		Tools: []agentloop.Tool{{Name: "time", Run: func(context.Context, json.RawMessage) (string, error) {
			runs.Add(1)
			return "12:00", nil
		}}},
		Hooks: agentloop.Hooks{OnDelta: func(d llmstream.Delta) {
			switch d.Kind {
			case llmstream.DeltaText:
				shown.WriteString(d.Text)
			case llmstream.DeltaRestart:
				shown.Reset()
				seams = append(seams, d.Kind)
			case llmstream.DeltaResume:
				seams = append(seams, d.Kind)
			}
		}},
	}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "What time is it?"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 2 || runs.Load() != 1 || res.ToolCalls != 1 {
		t.Fatalf("%d turns, %d tool runs, %d calls; want 2, 1, 1", res.Turns, runs.Load(), res.ToolCalls)
	}
	if got := res.Messages[1].Content; got != first.Text {
		t.Fatalf("first assistant text %q, want %q", got, first.Text)
	}
	if want := first.Text + "It is noon."; shown.String() != want {
		t.Fatalf("display %q, want %q", shown.String(), want)
	}
	if len(seams) == 0 || seams[len(seams)-1] != llmstream.DeltaResume {
		t.Fatalf("seams %v, want the last to be a resume", seams)
	}
	if n, m := len(cutting.Requests()), len(fallback.Requests()); n != 3 || m != 1 {
		t.Fatalf("%d requests to the cutting model and %d to the fallback, want 3 (2 attempts, then the second turn) and 1", n, m)
	}
}
