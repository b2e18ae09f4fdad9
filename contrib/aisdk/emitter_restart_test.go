package aisdk

import (
	"slices"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/toolcall"
)

// A restart (llmstream.Failover started the stream over) ends the open
// text and reasoning, fails the call that was forming and opens a new
// step, so the new attempt's parts do not join the void ones; a resume
// keeps the text part open.
func TestEmitterSeams(t *testing.T) {
	var got []string
	e := newEmitter(func(c *Chunk) {
		s := c.Type
		if c.ID != "" {
			s += ":" + c.ID
		}
		if c.ToolCallID != "" {
			s += ":" + c.ToolCallID
		}
		got = append(got, s)
	})
	e.beforeModel(agentloop.ModelStart{Turn: 1})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaReasoning, Text: "think"})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "Hel"})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaResume})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "lo"})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaToolCall, Text: `{"pa`, Call: toolcall.Preview{Index: 0, ID: "c1", Name: "read"}})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaRestart})
	e.delta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "Hello"})
	e.afterModel(agentloop.ModelDone{Message: llmstream.Message{Content: "Hello"}})
	want := []string{
		"start-step",
		"reasoning-start:1", "reasoning-delta:1",
		"text-start:2", "text-delta:2", "text-delta:2",
		"tool-input-start:c1",
		"reasoning-end:1", "text-end:2", "tool-input-error:c1", "finish-step", "start-step",
		"text-start:3", "text-delta:3", "text-end:3",
	}
	if !slices.Equal(got, want) {
		t.Errorf("chunks:\n got %q\nwant %q", got, want)
	}
}
