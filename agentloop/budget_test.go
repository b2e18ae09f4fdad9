package agentloop

import (
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

func TestFitBudget(t *testing.T) {
	big := strings.Repeat("x", 100)
	// sys(10) + user(5) + asst call name "t"(1) + args "{}"(2) + tool(100) + tool(100) = 218
	conv := func() []llmstream.Message {
		return []llmstream.Message{
			{Role: "system", Content: "0123456789"},
			{Role: "user", Content: "hello"},
			{Role: "assistant", ToolCalls: []llmstream.ToolCall{
				{ID: "a", Function: llmstream.FunctionCall{Name: "t", Arguments: "{}"}},
			}},
			{Role: "tool", ToolCallID: "a", Content: big},
			{Role: "tool", ToolCallID: "b", Content: big},
		}
	}
	m100 := droppedMarker(100)
	tests := []struct {
		name        string
		limit       int
		wantSize    int
		wantDropped int
		wantTools   []string
	}{
		{"under the budget", 219, 218, 0, []string{big, big}},
		{"at the budget", 218, 218, 0, []string{big, big}},
		{"one over: the oldest output goes", 217, 218 - 100 + len(m100), 1, []string{m100, big}},
		{"both outputs go", 118 + len(m100) - 1, 18 + 2*len(m100), 2, []string{m100, m100}},
		{"cannot fit: everything droppable dropped", 10, 18 + 2*len(m100), 2, []string{m100, m100}},
		{"negative budget: nothing dropped", -1, 218, 0, []string{big, big}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, size, n := fitBudget(conv(), tc.limit, map[int]bool{})
			got := []string{msgs[3].Content, msgs[4].Content}
			if size != tc.wantSize || n != tc.wantDropped {
				t.Errorf("fitBudget = %d, %d; want %d, %d", size, n, tc.wantSize, tc.wantDropped)
			}
			if diff := cmp.Diff(tc.wantTools, got); diff != "" {
				t.Errorf("tool contents (-want +got):\n%s", diff)
			}
			if size != conversationBytes(msgs) {
				t.Errorf("reported size %d, real %d", size, conversationBytes(msgs))
			}
		})
	}
}

func TestFitBudgetNeverTouchesFirstOrShortOrDropped(t *testing.T) {
	msgs := []llmstream.Message{
		{Role: "tool", ToolCallID: "first", Content: strings.Repeat("f", 200)},
		{Role: "tool", ToolCallID: "short", Content: "ok"},
		{Role: "tool", ToolCallID: "done", Content: droppedMarker(500)},
		{Role: "tool", ToolCallID: "big", Content: strings.Repeat("b", 200)},
	}
	dropped := map[int]bool{2: true}
	msgs, _, n := fitBudget(msgs, 0, dropped)
	want := []string{strings.Repeat("f", 200), "ok", droppedMarker(500), droppedMarker(200)}
	got := []string{msgs[0].Content, msgs[1].Content, msgs[2].Content, msgs[3].Content}
	if n != 1 {
		t.Errorf("dropped %d, want 1", n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}
