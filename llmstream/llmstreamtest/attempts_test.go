package llmstreamtest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// TestAttempts checks the per-attempt script: the first attempt broken,
// the next clean, and a continuation served the rest of the text.
func TestAttempts(t *testing.T) {
	turn := llmstreamtest.Turn{Text: "one two three", Reasoning: "hmm"}
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithResponder(llmstreamtest.Attempts(turn, llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 1})))
	c := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(llmstream.DialectAnthropic))...)
	user := []llmstream.Message{{Role: "user", Content: "count"}}
	if _, err := c.Stream(context.Background(), llmstream.Request{Messages: user}); !errors.Is(err, llmstream.ErrInterrupted) {
		t.Fatalf("first attempt: err = %v, want ErrInterrupted", err)
	}
	m, err := c.Stream(context.Background(), llmstream.Request{Messages: user})
	if err != nil || m.Content != "one two three" || m.Reasoning != "hmm" {
		t.Fatalf("second attempt = %q, %q, %v; want the whole turn", m.Content, m.Reasoning, err)
	}
	prefill := append(user, llmstream.Message{Role: "assistant", Content: "one two"})
	m, err = c.Stream(context.Background(), llmstream.Request{Messages: prefill})
	if err != nil || m.Content != " three" || m.Reasoning != "" {
		t.Fatalf("continuation = %q, %q, %v; want the rest of the text and no reasoning", m.Content, m.Reasoning, err)
	}
	other := append(user, llmstream.Message{Role: "assistant", Content: "zero"})
	if m, err = c.Stream(context.Background(), llmstream.Request{Messages: other}); err != nil || m.Content != "one two three" {
		t.Fatalf("prefill not a prefix = %q, %v; want the whole turn", m.Content, err)
	}
}
