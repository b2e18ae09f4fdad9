package aisdk_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/google/go-cmp/cmp"
)

func TestChatFlow(t *testing.T) {
	e := newEnv(t, nil)
	streams := e.runToEnd("chat1")
	want := [][]string{
		{"start",
			"start-step", "reasoning-start", "reasoning-delta", "text-start", "text-delta", "tool-input-start", "tool-input-delta",
			"reasoning-end", "text-end", "tool-input-available", "tool-output-available", "finish-step",
			"start-step", "text-start", "text-delta", "tool-input-start", "tool-input-delta", "text-end", "tool-input-available",
			"tool-approval-request", "finish-step", "finish", "[DONE]"},
		{"start", "tool-output-available",
			"start-step", "tool-input-start", "tool-input-delta", "tool-input-available", "tool-approval-request", "finish-step", "finish", "[DONE]"},
		{"start", "tool-output-denied",
			"start-step", "text-start", "text-delta", "text-end", "finish-step", "finish", "[DONE]"},
	}
	for i := range want {
		if diff := cmp.Diff(want[i], compact(chunkTypes(t, streams[i]))); diff != "" {
			t.Errorf("stream %d (-want +got):\n%s", i, diff)
		}
	}
	if n := e.writes.Load(); n != 1 {
		t.Errorf("%d writes ran, want 1 (one approved, one denied)", n)
	}
	// The finish reasons: paused twice, then stopped.
	for i, reason := range []string{"tool-calls", "tool-calls", "stop"} {
		var c aisdk.Chunk
		_ = json.Unmarshal([]byte(streams[i][len(streams[i])-2]), &c)
		if c.FinishReason != reason {
			t.Errorf("stream %d finishes %q, want %q", i, c.FinishReason, reason)
		}
	}
	// The server's view: one user message, one assistant message of four
	// steps, the tool parts in their final states.
	ui := e.messages("chat1")
	if len(ui) != 2 || ui[1].Role != "assistant" {
		t.Fatalf("messages: %+v", ui)
	}
	var states []string
	for _, p := range ui[1].Parts {
		if strings.HasPrefix(p.Type, "tool-") {
			states = append(states, p.Type+":"+p.State)
		}
	}
	if diff := cmp.Diff([]string{"tool-read:output-available", "tool-write:output-available", "tool-write:output-denied"}, states); diff != "" {
		t.Errorf("tool parts (-want +got):\n%s", diff)
	}
	last := ui[1].Parts[len(ui[1].Parts)-1]
	if want := "Done: contents of a.txt | written | denied: not that file"; last.Text != want {
		t.Errorf("final text %q, want %q", last.Text, want)
	}
	// The conversation goes on with a new user message.
	ui = append(ui, userMessage("u2", "Thanks"))
	if code, body := e.post("chat1", ui); code != http.StatusOK {
		t.Fatalf("follow-up: %d %v", code, body)
	}
}

// TestConversionRoundTrip: a conversation the loop made converts to UI
// messages and back to itself.
func TestConversionRoundTrip(t *testing.T) {
	e := newEnv(t, nil)
	e.runToEnd("c")
	ui := e.messages("c")
	msgs, err := aisdk.FromUIMessages(ui)
	if err != nil {
		t.Fatal(err)
	}
	back, err := aisdk.FromUIMessages(aisdk.ToUIMessages(msgs))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, back); diff != "" {
		t.Fatalf("UI → messages → UI → messages (-first +second):\n%s", diff)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"}, roles); diff != "" {
		t.Fatalf("roles (-want +got):\n%s", diff)
	}
	if msgs[1].Reasoning == "" || msgs[1].ToolCalls[0].Function.Arguments != `{"path":"a.txt"}` || msgs[6].Content != "denied: not that file" {
		t.Fatalf("conversation lost something: %+v", msgs)
	}
}
