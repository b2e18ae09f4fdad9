package llmstream_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// bedrockToolID is Bedrock's toolUseId pattern and length.
var bedrockToolID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

const crossSignature = "c2lnbmVkLWJ5LXNvdXJjZQ"

// crossTurn is a source turn with reasoning, signed, and two calls whose
// ids Bedrock refuses (a dot and a slash; 70 bytes) — and which the next
// turn reuses, as a provider numbering calls per turn does.
func crossTurn() llmstreamtest.Turn {
	return llmstreamtest.Turn{
		Reasoning: "Look both up.", Signature: crossSignature, Text: "Checking.",
		ToolCalls: []llmstreamtest.Call{
			{ID: "fc.1/weather", Name: "weather", Arguments: `{"city":"Oslo"}`},
			{ID: strings.Repeat("k", 70), Name: "clock", Arguments: `{"tz":"CET"}`},
		},
	}
}

// TestCrossDialect builds a conversation on each dialect — two assistant
// turns, each with reasoning and two calls, their answers — and sends it
// on to every dialect: the target's server must accept it, see no
// continuity state of another dialect (the source's signature appears in
// the body only when the dialects are the same), get call ids it takes,
// each once, and every answer following its call.
func TestCrossDialect(t *testing.T) {
	for _, src := range failoverDialects {
		conv := buildConversation(t, src.dialect, src.model)
		for _, dst := range failoverDialects {
			t.Run(fmt.Sprintf("%v to %v", src.dialect, dst.dialect), func(t *testing.T) {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "Done."}))
				c := failoverClient(srv, dst.dialect, dst.model)
				if _, err := c.Stream(context.Background(), llmstream.Request{Messages: conv, Tools: crossTools}); err != nil {
					t.Fatal(err)
				}
				req := srv.Requests()[0]
				if signed := strings.Contains(string(req.Body), crossSignature); signed != (src.dialect == dst.dialect && src.dialect != llmstream.DialectChat) {
					t.Errorf("source signature in the body: %v", signed)
				}
				checkCalls(t, req.Messages, dst.dialect)
			})
		}
	}
}

var crossTools = []llmstream.Tool{
	{Function: llmstream.ToolFunction{Name: "weather"}},
	{Function: llmstream.ToolFunction{Name: "clock"}},
}

// buildConversation runs two tool turns on dialect d and returns the
// conversation with their answers and a last user message.
func buildConversation(t *testing.T, d llmstream.Dialect, model string) []llmstream.Message {
	t.Helper()
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(crossTurn(), crossTurn()))
	c := failoverClient(srv, d, model)
	conv := []llmstream.Message{{Role: "user", Content: "Weather and time in Oslo?"}}
	for range 2 {
		m, err := c.Stream(context.Background(), llmstream.Request{Messages: conv, Tools: crossTools})
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if len(m.ToolCalls) != 2 {
			t.Fatalf("%v: %d calls", d, len(m.ToolCalls))
		}
		conv = append(conv, m)
		for _, call := range m.ToolCalls {
			conv = append(conv, llmstream.Message{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: "answer of " + call.Function.Name})
		}
		conv = append(conv, llmstream.Message{Role: "user", Content: "And again?"})
	}
	return conv
}

// checkCalls checks the calls of msgs, as a dialect-d server decoded them:
// ids d takes, each once, and every answer naming a call of the assistant
// message before it, by the call's function.
func checkCalls(t *testing.T, msgs []llmstream.Message, d llmstream.Dialect) {
	t.Helper()
	seen := map[string]bool{}
	var last map[string]string // id → name, of the last assistant message
	answers := 0
	for _, m := range msgs {
		switch {
		case m.Role == "assistant" && len(m.ToolCalls) > 0:
			last = map[string]string{}
			for _, c := range m.ToolCalls {
				if d != llmstream.DialectGemini && !bedrockToolID.MatchString(c.ID) {
					t.Errorf("call id %q is not one every dialect takes", c.ID)
				}
				if d != llmstream.DialectGemini && seen[c.ID] {
					t.Errorf("call id %q twice", c.ID)
				}
				seen[c.ID], last[c.ID] = true, c.Function.Name
			}
		case m.Role == "tool":
			answers++
			if name, ok := last[m.ToolCallID]; !ok || !strings.HasSuffix(m.Content, name) {
				t.Errorf("answer %q for %q matches no call of the turn before (%v)", m.Content, m.ToolCallID, last)
			}
		}
	}
	if answers != 4 {
		t.Errorf("%d answers, want 4", answers)
	}
}
