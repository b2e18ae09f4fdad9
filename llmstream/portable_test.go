package llmstream

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
)

// TestPortable checks the rewrite at its edges: a valid id of 64 bytes
// kept and one of 65 rewritten, a repeated id rewritten on its second
// call with its answer following, a rewritten id that would collide with
// an id already in use, Anthropic's caller dropped for chat only, and the
// caller's messages untouched.
func TestPortable(t *testing.T) {
	id64, id65 := string(make64('a')), string(make64('a'))+"a"
	call := func(id string) ToolCall { return ToolCall{ID: id, Function: FunctionCall{Name: "f", Arguments: "{}"}} }
	msgs := []Message{
		{Role: "assistant", ToolCalls: []ToolCall{call(id64), call(id65), call("x"), {ID: "c", Extra: json.RawMessage(`{"caller":{"type":"code_execution_20250825"}}`)}}},
		{Role: "tool", ToolCallID: id64}, {Role: "tool", ToolCallID: id65}, {Role: "tool", ToolCallID: "x"}, {Role: "tool", ToolCallID: "c"},
		{Role: "assistant", ToolCalls: []ToolCall{call("x")}},
		{Role: "tool", ToolCallID: "x"},
	}
	orig := slices.Clone(msgs)
	out := portable(msgs, DialectChat)
	if msgs[0].ToolCalls[1].ID != id65 || msgs[5].ToolCalls[0].ID != "x" || !slices.EqualFunc(orig, msgs, func(a, b Message) bool { return a.ToolCallID == b.ToolCallID }) {
		t.Fatal("the caller's messages changed")
	}
	ids := []string{out[0].ToolCalls[0].ID, out[0].ToolCalls[1].ID, out[0].ToolCalls[2].ID, out[5].ToolCalls[0].ID}
	if ids[0] != id64 || ids[1] == id65 || !validID(ids[1]) || ids[2] != "x" || ids[3] == "x" || !validID(ids[3]) {
		t.Fatalf("ids %q", ids)
	}
	if out[2].ToolCallID != ids[1] || out[3].ToolCallID != "x" || out[6].ToolCallID != ids[3] {
		t.Fatalf("answers %q %q %q do not follow their calls %q", out[2].ToolCallID, out[3].ToolCallID, out[6].ToolCallID, ids)
	}
	if out[0].ToolCalls[3].Extra != nil {
		t.Fatalf("chat kept the caller: %s", out[0].ToolCalls[3].Extra)
	}
	if again := portable(msgs, DialectChat); again[5].ToolCalls[0].ID != ids[3] {
		t.Fatal("the rewrite is not the same every time")
	}
	if bed := portable(msgs, DialectBedrock); bed[0].ToolCalls[3].Extra == nil {
		t.Fatal("Bedrock's copy lost Extra, which only chat sends")
	}
	// A rewritten id never takes one in use.
	used := map[string]bool{rewriteID("x", map[string]bool{}): true}
	if got := rewriteID("x", used); used[got] || !validID(got) {
		t.Fatalf("rewriteID gave %q, in use", got)
	}
}

func make64(c byte) []byte {
	b := make([]byte, maxPortableID)
	for i := range b {
		b[i] = c
	}
	return b
}

// TestPortableCleanAllocs checks the common case costs nothing: valid,
// distinct ids are sent as they are, without a copy.
func TestPortableCleanAllocs(t *testing.T) {
	var msgs []Message
	for i := range 40 { // past the stack array, into the map
		msgs = append(msgs, Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_" + strconv.Itoa(i)}}})
	}
	if out := portable(msgs[:30], DialectBedrock); &out[0] != &msgs[0] {
		t.Fatal("a clean conversation was copied")
	}
	if n := testing.AllocsPerRun(10, func() { portable(msgs[:30], DialectBedrock) }); n != 0 {
		t.Fatalf("%v allocations for 30 clean calls, want 0", n)
	}
	if out := portable(msgs, DialectBedrock); &out[0] != &msgs[0] {
		t.Fatal("a clean conversation of 40 calls was copied")
	}
	dup := append(slices.Clone(msgs), Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "call_0"}}})
	if out := portable(dup, DialectBedrock); out[len(out)-1].ToolCalls[0].ID == "call_0" {
		t.Fatal("a repeat past 32 calls was not rewritten")
	}
}
