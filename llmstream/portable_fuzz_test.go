package llmstream

import (
	"strings"
	"testing"
)

// FuzzPortable gives the rewrite any ids, over two turns ('|' between
// calls, '#' between the turns): every id sent is one every dialect
// takes, none twice, and every answer names the call it answered.
func FuzzPortable(f *testing.F) {
	for _, s := range []string{"a|b#a|b", "call_0#call_0", "fc.1/x|" + strings.Repeat("k", 70) + "#fc.1/x", "|#", "x_1|x#x|x_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		var msgs []Message
		for turn := range strings.SplitSeq(spec, "#") {
			ids := strings.Split(turn, "|")
			m := Message{Role: "assistant"}
			for _, id := range ids {
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Function: FunctionCall{Name: "f", Arguments: "{}"}})
			}
			msgs = append(msgs, m)
			for j, id := range ids {
				// The answer's content says which call (by position) it answers.
				msgs = append(msgs, Message{Role: "tool", ToolCallID: id, Content: string(rune('A' + j%26))})
			}
		}
		out := portable(msgs, DialectBedrock)
		seen := map[string]bool{}
		var turn []ToolCall
		for i, m := range out {
			if m.Role == "assistant" {
				turn = m.ToolCalls
				for _, c := range m.ToolCalls {
					if !validID(c.ID) || seen[c.ID] {
						t.Fatalf("id %q (valid %v, seen %v)", c.ID, validID(c.ID), seen[c.ID])
					}
					seen[c.ID] = true
				}
				continue
			}
			// The j-th answer of a turn answers its j-th call, ids repeated
			// within the turn included: every call is answered once.
			orig := msgs[i].ToolCallID
			want := turn[i-indexOfTurn(msgs, i)-1].ID
			if m.ToolCallID != want {
				t.Fatalf("answer %d for %q sent as %q, want %q", i, orig, m.ToolCallID, want)
			}
		}
	})
}

// indexOfTurn is the index of the assistant message before message i.
func indexOfTurn(msgs []Message, i int) int {
	for i >= 0 && msgs[i].Role != "assistant" {
		i--
	}
	return i
}
