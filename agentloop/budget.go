package agentloop

import (
	"slices"
	"strconv"

	"github.com/airlock-go/airlock/llmstream"
)

// conversationBytes is the size msgs count for against the context budget:
// each message's content, refusal, and tool calls' names and arguments.
// JSON framing is not counted; the budget is a guard, not a token count.
func conversationBytes(msgs []llmstream.Message) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		n += len(m.Content) + len(m.Refusal)
		for _, tc := range m.ToolCalls {
			n += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	return n
}

// droppedMarker is the content that replaces a tool output dropped for
// the budget; the tool message stays, so its call is still answered.
func droppedMarker(size int) string {
	return "[airlock: tool output of " + strconv.Itoa(size) + " bytes dropped to fit the context budget]"
}

// fitBudget replaces the contents of the oldest tool messages (never
// msgs[0], never one already dropped, never one the marker would not
// shrink) with a marker until the conversation is within limit bytes.
// dropped records which indexes were replaced. It returns the size
// reached and how many outputs it dropped; the size is still over limit
// when nothing more can be dropped. A negative limit does nothing. msgs
// is not written: when it drops one, fitBudget returns a new slice (a
// copy of the State may share msgs' array).
func fitBudget(msgs []llmstream.Message, limit int, dropped map[int]bool) (out []llmstream.Message, size, n int) {
	out, size = msgs, conversationBytes(msgs)
	if limit < 0 {
		return out, size, 0
	}
	for i := 1; i < len(out) && size > limit; i++ {
		m := &out[i]
		if m.Role != "tool" || dropped[i] {
			continue
		}
		marker := droppedMarker(len(m.Content))
		if len(marker) >= len(m.Content) {
			continue
		}
		if n == 0 {
			out = slices.Clone(msgs)
			m = &out[i]
		}
		size -= len(m.Content) - len(marker)
		m.Content = marker
		dropped[i] = true
		n++
	}
	return out, size, n
}
