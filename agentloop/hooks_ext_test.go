package agentloop_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// *llmstream.Client is the Model the loop is built for.
var _ agentloop.Model = (*llmstream.Client)(nil)

// streamer is a Model that sends each message's content to the request's
// OnDelta, if any, as deltas of three bytes.
type streamer struct {
	script
	streamed int
}

func (s *streamer) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	m, err := s.script.Stream(ctx, r)
	onDelta := r.OnDelta
	if onDelta == nil {
		return m, err
	}
	s.streamed++
	for _, c := range m.ToolCalls {
		if err := onDelta(llmstream.Delta{Kind: llmstream.DeltaToolCall, Text: c.Function.Arguments}); err != nil {
			return llmstream.Message{}, err
		}
	}
	for i := 0; i < len(m.Content); i += 3 {
		if err := onDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: m.Content[i:min(i+3, len(m.Content))]}); err != nil {
			return llmstream.Message{}, err
		}
	}
	return m, err
}

func TestHooks(t *testing.T) {
	var events []string
	add := func(format string, args ...any) { events = append(events, fmt.Sprintf(format, args...)) }
	s := &streamer{script: script{turns: []llmstream.Message{
		asst("", call("c1", "echo", `{"id":"c1"}`), call("c2", "oops", `{}`), call("c3", "echo", `{}`)),
		asst("all done"),
	}}}
	l := agentloop.Loop{Model: s, Tools: testTools(&ran{}), Hooks: agentloop.Hooks{
		BeforeModel: func(e agentloop.ModelStart) { add("model %d: %d messages", e.Turn, len(e.Messages)) },
		AfterModel: func(e agentloop.ModelDone) {
			add("model %d done: %d calls, %q, err %v", e.Turn, len(e.Message.ToolCalls), e.Message.Content, e.Err)
		},
		BeforeTool: func(e agentloop.ToolStart) {
			add("tool %d.%d %s %s", e.Turn, e.Index, e.Call.Function.Name, e.Call.Function.Arguments)
		},
		AfterTool: func(e agentloop.ToolDone) {
			add("tool %d.%d done: %q (%d bytes) err %v", e.Turn, e.Index, e.Content, e.OutputBytes, e.Err)
		},
		OnDelta: func(d llmstream.Delta) { add("delta %s %q", d.Kind, d.Text) },
	}}
	if _, err := l.Run(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"model 1: 2 messages",
		`delta tool_call "{\"id\":\"c1\"}"`,
		`delta tool_call "{}"`,
		`delta tool_call "{}"`,
		`model 1 done: 3 calls, "", err <nil>`,
		`tool 1.0 echo {"id":"c1"}`,
		`tool 1.0 done: "{\"id\":\"c1\"}" (11 bytes) err <nil>`,
		`tool 1.1 oops {}`,
		`tool 1.1 done: "error: no such file" (0 bytes) err agentloop: tool "oops" (call c2): no such file`,
		"tool 1.2 echo {}",
		`tool 1.2 done: "{}" (2 bytes) err <nil>`,
		"model 2: 6 messages",
		`delta text "all"`,
		`delta text " do"`,
		`delta text "ne"`,
		`model 2 done: 0 calls, "all done", err <nil>`,
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("hook events (-want +got):\n%s", diff)
	}
	if s.streamed != 2 {
		t.Errorf("OnDelta set in %d requests, want 2", s.streamed)
	}
}

func TestHooksModelFailure(t *testing.T) {
	var got agentloop.ModelDone
	errDown := errors.New("down")
	l := agentloop.Loop{
		Model: agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			return llmstream.Message{}, errDown
		}),
		Hooks: agentloop.Hooks{AfterModel: func(e agentloop.ModelDone) { got = e }},
	}
	_, err := l.Run(context.Background(), user)
	if !errors.Is(err, errDown) || got.Err != errDown || got.Turn != 1 {
		t.Errorf("Run error %v; AfterModel saw %+v", err, got)
	}
}

// TestNoOnDeltaWithoutTheHook: a request carries an OnDelta only when
// the hook is set, so a Model streams nothing nobody reads.
func TestNoOnDeltaWithoutTheHook(t *testing.T) {
	s := &streamer{script: script{turns: []llmstream.Message{asst("hi")}}}
	if _, err := (&agentloop.Loop{Model: s}).Run(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	if s.streamed != 0 || len(s.seen) != 1 {
		t.Errorf("without the hook: OnDelta set in %d of %d requests, want 0 of 1", s.streamed, len(s.seen))
	}
}
