package llmstream

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// reviewCall is a call with id id.
func reviewCall(id string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}
}

// checkPorted checks portable's promises on msgs for every dialect: every
// call id valid, no two calls sharing one, each answer naming the call it
// answered (the n-th answer to an id answers the n-th call of that id
// since the last assistant message that had it), the same output twice,
// the caller's messages untouched.
func checkPorted(t *testing.T, name string, msgs []Message) []Message {
	t.Helper()
	before := fmt.Sprint(msgs)
	var out []Message
	for _, d := range []Dialect{DialectChat, DialectAnthropic, DialectResponses, DialectGemini, DialectBedrock} {
		out = portable(msgs, d)
		if again := portable(msgs, d); fmt.Sprint(again) != fmt.Sprint(out) {
			t.Fatalf("%s: not deterministic", name)
		}
		if fmt.Sprint(msgs) != before {
			t.Fatalf("%s: the caller's messages changed", name)
		}
		seen := map[string]bool{}
		var pending map[string][]string // original id → sent ids not yet answered
		for i, m := range out {
			switch {
			case m.Role == "tool":
				orig := msgs[i].ToolCallID
				q := pending[orig]
				if len(q) == 0 {
					continue
				}
				if m.ToolCallID != q[0] {
					t.Fatalf("%s: answer %d to %q sent as %q, want %q", name, i, orig, m.ToolCallID, q[0])
				}
				pending[orig] = q[1:]
			case len(m.ToolCalls) > 0:
				pending = map[string][]string{}
				for j, c := range m.ToolCalls {
					if !validID(c.ID) {
						t.Fatalf("%s: call %d.%d sent as invalid id %q", name, i, j, c.ID)
					}
					if seen[c.ID] {
						t.Fatalf("%s: two calls sent as %q", name, c.ID)
					}
					seen[c.ID] = true
					orig := msgs[i].ToolCalls[j].ID
					pending[orig] = append(pending[orig], c.ID)
				}
			}
		}
	}
	return out
}

// TestReviewPortableCollisions: ids that differ only in refused bytes,
// ids at, one under and one over 64 bytes and of 200, ids equal to the
// rewritten form of another (before and after it), the empty id, ids
// reused across turns.
func TestReviewPortableCollisions(t *testing.T) {
	long := func(n int, c byte) string { return strings.Repeat(string(c), n) }
	preRewritten := rewriteID("a.b", map[string]bool{"a.b": true})
	tests := map[string][][]string{
		"refused bytes only":      {{"a.b", "a,b", "a b", "ab", "a\u00e9b", "a\x00b"}},
		"lengths":                 {{long(63, 'x'), long(64, 'x'), long(65, 'x'), long(200, 'x'), long(64, 'x') + "y", long(200, 'x') + "z"}},
		"48 valid then differ":    {{long(48, 'k') + ".1", long(48, 'k') + ".2", long(48, 'k') + "1", long(48, 'k')}},
		"rewritten form after":    {{"a.b"}, {preRewritten}},
		"rewritten form before":   {{preRewritten}, {"a.b"}},
		"rewritten form same msg": {{"a.b", preRewritten}},
		"empty ids":               {{"", ""}, {""}, {"call"}},
		"reused across turns":     {{"x", "y"}, {"x", "y"}, {"x"}, {"y.z", "x"}, {"y.z"}},
		"all refused":             {{"...", "!!!", "\u00e9\u00e9"}},
	}
	for name, turns := range tests {
		var msgs []Message
		for _, ids := range turns {
			m := Message{Role: "assistant"}
			for _, id := range ids {
				m.ToolCalls = append(m.ToolCalls, reviewCall(id))
			}
			msgs = append(msgs, m)
			for _, id := range ids {
				msgs = append(msgs, Message{Role: "tool", ToolCallID: id, Content: "r"})
			}
		}
		checkPorted(t, name, msgs)
	}
}

// TestReviewPortableRandom: many turns of ids drawn from a small alphabet
// with refused bytes, so that reuse and rewritten-form collisions are
// frequent.
func TestReviewPortableRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab._"
	for round := 0; round < 300; round++ {
		var msgs []Message
		for turn := 0; turn < 1+r.IntN(6); turn++ {
			m := Message{Role: "assistant"}
			used := map[string]bool{}
			for k := 0; k < 1+r.IntN(4); k++ {
				var b []byte
				for range r.IntN(4) {
					b = append(b, alphabet[r.IntN(len(alphabet))])
				}
				if used[string(b)] {
					continue // one message's ids are distinct (agentloop refuses others)
				}
				used[string(b)] = true
				m.ToolCalls = append(m.ToolCalls, reviewCall(string(b)))
			}
			msgs = append(msgs, m)
			for _, c := range slices.Backward(m.ToolCalls) {
				msgs = append(msgs, Message{Role: "tool", ToolCallID: c.ID})
			}
		}
		checkPorted(t, fmt.Sprint("round ", round), msgs)
	}
}

// TestReviewPortableDuplicateInOneMessage: two calls of one message with
// the same id (a provider that names calls per turn and repeats); each
// answer, in order, goes to its own call.
func TestReviewPortableDuplicateInOneMessage(t *testing.T) {
	msgs := []Message{{Role: "assistant", ToolCalls: []ToolCall{reviewCall("x"), reviewCall("x")}},
		{Role: "tool", ToolCallID: "x", Content: "1"}, {Role: "tool", ToolCallID: "x", Content: "2"}}
	checkPorted(t, "duplicate in one message", msgs)
}
