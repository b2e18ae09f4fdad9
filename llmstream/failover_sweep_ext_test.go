package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

// failoverDialects are the five dialects with a model each; continues
// says the dialect continues a cut text for that model.
var failoverDialects = []struct {
	dialect   llmstream.Dialect
	model     string
	continues bool
}{
	{llmstream.DialectChat, "gpt-test", false},
	{llmstream.DialectAnthropic, "claude-test", true},
	{llmstream.DialectResponses, "gpt-test", false},
	{llmstream.DialectGemini, "gemini-test", false},
	{llmstream.DialectBedrock, "us.anthropic.claude-test-v1:0", true},
}

// sweepTurn is a turn with text, two tool calls and, when asked,
// reasoning. Its text ends words with runs of whitespace, so a cut
// often leaves a prefill whose trimmed whitespace the splice must mind.
func sweepTurn(reasoning bool) llmstreamtest.Turn {
	t := llmstreamtest.Turn{
		Text: "The answer  is\nforty\u00a0two, I think. ",
		ToolCalls: []llmstreamtest.Call{
			{ID: "call_a", Name: "lookup", Arguments: `{"q":"forty two"}`},
			{ID: "call_b", Name: "sum", Arguments: `{"a":40,"b":2}`},
		},
		Usage: &llmstream.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
	}
	if reasoning {
		t.Reasoning, t.Signature = "Think it over first.", "c2lnbmF0dXJl"
	}
	return t
}

// seamView applies deltas as a display would, seams included.
type seamView struct {
	text, reasoning, refusal string
	calls                    map[int]*llmstream.ToolCall // by stream index
	seams                    []llmstream.DeltaKind
}

// callList is the calls in stream order.
func (v *seamView) callList() []llmstream.ToolCall {
	var out []llmstream.ToolCall
	for _, i := range slices.Sorted(maps.Keys(v.calls)) {
		out = append(out, *v.calls[i])
	}
	return out
}

func (v *seamView) apply(d llmstream.Delta) error {
	switch d.Kind {
	case llmstream.DeltaText:
		v.text += d.Text
	case llmstream.DeltaReasoning:
		v.reasoning += d.Text
	case llmstream.DeltaRefusal:
		v.refusal += d.Text
	case llmstream.DeltaToolCall:
		if v.calls == nil {
			v.calls = map[int]*llmstream.ToolCall{}
		}
		c := v.calls[d.Call.Index]
		if c == nil {
			c = &llmstream.ToolCall{}
			v.calls[d.Call.Index] = c
		}
		c.ID, c.Function.Name = d.Call.ID, d.Call.Name
		c.Function.Arguments += d.Text
	case llmstream.DeltaRestart:
		*v = seamView{seams: append(v.seams, d.Kind)}
	case llmstream.DeltaResume:
		v.seams = append(v.seams, d.Kind)
	default:
		return fmt.Errorf("delta of kind %v", d.Kind)
	}
	return nil
}

// shape is what the seam invariant compares: text, reasoning and calls.
type shape struct {
	Text, Reasoning string
	Calls           []string
}

func shapeOf(text, reasoning string, calls []llmstream.ToolCall) shape {
	s := shape{Text: text, Reasoning: reasoning}
	for _, c := range calls {
		s.Calls = append(s.Calls, c.ID+" "+c.Function.Name+" "+c.Function.Arguments)
	}
	return s
}

// failoverClient is a client of d for srv, with the given idle timeout.
func failoverClient(srv *llmstreamtest.Server, d llmstream.Dialect, model string, opts ...llmstream.ClientOption) *llmstream.Client {
	return llmstream.NewClient(append(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithModel(model)), opts...)...)
}

// sweepResult is one faulted call through a Failover.
type sweepResult struct {
	msg       llmstream.Message
	err       error
	view      seamView
	attempts  []llmstream.Attempt
	requests  int
	continued bool
	// maxRequests bounds requests (one faulted attempt: 2).
	maxRequests int
}

// runFaulted serves turn with fault on the first attempt and calls it
// through a Failover of one model.
func runFaulted(t *testing.T, d llmstream.Dialect, model string, turn llmstreamtest.Turn, fault llmstreamtest.Fault, opts ...llmstream.ClientOption) sweepResult {
	t.Helper()
	srv := llmstreamtest.NewServer(llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, fault)))
	defer srv.Close()
	var res sweepResult
	f := &llmstream.Failover{
		Models:    []llmstream.Streamer{failoverClient(srv, d, model, opts...)},
		Backoff:   -1,
		OnAttempt: func(_ context.Context, a llmstream.Attempt) { res.attempts = append(res.attempts, a) },
	}
	res.msg, res.err = f.Stream(context.Background(), llmstream.Request{
		Messages: []llmstream.Message{{Role: "user", Content: "What is the answer?"}},
		OnDelta:  res.view.apply,
	})
	res.requests, res.maxRequests = len(srv.Requests()), 2
	for _, a := range res.attempts {
		res.continued = res.continued || a.Next == llmstream.AttemptContinue
	}
	return res
}

// checkSweep checks one faulted call against the clean turn's message.
func checkSweep(t *testing.T, name string, res sweepResult, clean llmstream.Message) {
	t.Helper()
	if res.err != nil {
		t.Fatalf("%s: err = %v", name, res.err)
	}
	want := shapeOf(clean.Content, clean.Reasoning, clean.ToolCalls)
	if diff := cmp.Diff(want, shapeOf(res.msg.Content, res.msg.Reasoning, res.msg.ToolCalls)); diff != "" {
		t.Fatalf("%s: final message differs from the clean turn's (-want +got):\n%s", name, diff)
	}
	if diff := cmp.Diff(want, shapeOf(res.view.text, res.view.reasoning, res.view.callList())); diff != "" {
		t.Fatalf("%s: the deltas with their seams %v differ from the final message (-want +got):\n%s", name, res.view.seams, diff)
	}
	if res.msg.Model != clean.Model {
		t.Fatalf("%s: model %q, want the clean turn's %q", name, res.msg.Model, clean.Model)
	}
	if res.requests > res.maxRequests {
		t.Fatalf("%s: %d requests, want at most %d", name, res.requests, res.maxRequests)
	}
	if n := len(res.view.seams); n > max(res.requests-1, 0) {
		t.Fatalf("%s: seams %v, more than one per retry", name, res.view.seams)
	}
}

// TestFailoverSweep cuts a turn holding text, two tool calls and (or not)
// reasoning at every event, in every dialect, and also breaks it with an
// in-stream overloaded error: the call must give the clean turn's message,
// continued where the dialect can, and the deltas with their seams must
// apply to exactly that message.
func TestFailoverSweep(t *testing.T) {
	const maxAfter = 40
	for _, fd := range failoverDialects {
		for _, reasoning := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/reasoning=%v", fd.dialect, reasoning), func(t *testing.T) {
				turn := sweepTurn(reasoning)
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn)))
				clean, err := failoverClient(srv, fd.dialect, fd.model).Stream(context.Background(),
					llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "What is the answer?"}}})
				if err != nil {
					t.Fatal(err)
				}
				continued := 0
				for after := 0; after <= maxAfter; after += sweepStride {
					for _, kind := range []llmstreamtest.FaultKind{llmstreamtest.FaultCut, llmstreamtest.FaultErrorEvent} {
						fault := llmstreamtest.Fault{Kind: kind, After: after, Type: "overloaded_error", Message: "Overloaded"}
						res := runFaulted(t, fd.dialect, fd.model, turn, fault)
						checkSweep(t, fmt.Sprintf("%v after %d", kind, after), res, clean)
						if res.continued {
							continued++
							if reasoning || !fd.continues {
								t.Fatalf("%v after %d continued, want a restart", kind, after)
							}
						}
					}
				}
				if fd.continues && !reasoning && continued == 0 {
					t.Fatal("no cut point was continued")
				}
				t.Logf("%d faulted calls continued", continued)
			})
		}
	}
}

// sweepStride is the step between the cut points a sweep tries: every
// one, but every third under the race detector, which makes each request
// several times slower.
var sweepStride = map[bool]int{false: 1, true: 3}[llmstream.RaceEnabled]

// TestFailoverStall stalls a stream at a few points: the idle timeout
// ends it, and the call goes on as after a cut.
func TestFailoverStall(t *testing.T) {
	for _, fd := range failoverDialects {
		t.Run(fd.dialect.String(), func(t *testing.T) {
			turn := sweepTurn(false)
			for _, after := range []int{0, 4, 9} {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn)))
				clean, err := failoverClient(srv, fd.dialect, fd.model).Stream(context.Background(),
					llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "What is the answer?"}}})
				if err != nil {
					t.Fatal(err)
				}
				res := runFaulted(t, fd.dialect, fd.model, turn, llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: after},
					llmstream.WithIdleTimeout(300*time.Millisecond))
				checkSweep(t, fmt.Sprintf("stall after %d", after), res, clean)
				if len(res.attempts) != 2 || !errors.Is(res.attempts[0].Err, llmstream.ErrIdleTimeout) {
					t.Fatalf("attempts %+v, want an idle timeout then an answer", res.attempts)
				}
			}
		})
	}
}

// TestFailoverContinuesOneRequest checks a continuation's request: one
// more request, ending with the text so far as the assistant's message,
// its trailing whitespace cut.
func TestFailoverContinuesOneRequest(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "alpha beta gamma delta"}
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 5})))
	var view seamView
	f := &llmstream.Failover{Models: []llmstream.Streamer{failoverClient(srv, llmstream.DialectAnthropic, "claude-test")}, Backoff: -1}
	m, err := f.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "say"}}, OnDelta: view.apply})
	if err != nil || m.Content != turn.Text {
		t.Logf("seams %v", view.seams)
		t.Fatalf("Stream = %q, %v; want %q", m.Content, err, turn.Text)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "assistant" || last.Content == "" || strings.TrimSpace(last.Content) != last.Content || !strings.HasPrefix(turn.Text, last.Content) {
		t.Fatalf("continuation ends with %+v, want the text so far, trimmed", last)
	}
	if !slices.Equal(view.seams, []llmstream.DeltaKind{llmstream.DeltaResume}) || view.text != turn.Text {
		t.Fatalf("deltas %q with seams %v, want the text with one resume", view.text, view.seams)
	}
}
