package llmstream

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
)

// anthropicStream writes each event's data under its "type" as the SSE
// event name, as Anthropic sends them.
func anthropicStream(events ...string) string {
	var b strings.Builder
	for _, data := range events {
		var head struct{ Type string }
		json.Unmarshal([]byte(data), &head)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", head.Type, data)
	}
	return b.String()
}

// TestAnthropicUsageCumulative: message_delta's usage is the whole so far,
// so a count never goes down — Anthropic-compatible servers (sglang's
// /v1/messages) put "input_tokens": 0 there, which must not erase the
// prompt count message_start gave — and the thinking tokens of
// output_tokens_details are the reasoning tokens.
func TestAnthropicUsageCumulative(t *testing.T) {
	data := anthropicStream(
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":100,"cache_creation_input_tokens":30,"cache_read_input_tokens":50,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":null,"output_tokens":20,"output_tokens_details":{"thinking_tokens":12}}}`,
		`{"type":"message_stop"}`,
	)
	got := decodeEverySplit(t, []byte(data), WithDialect(DialectAnthropic))
	want := Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 200, CachedTokens: 50, CacheWriteTokens: 30, ReasoningTokens: 12, PromptExcludesCache: true}
	if got.Error != "" || got.Usage == nil || *got.Usage != want {
		t.Fatalf("usage %+v (err %q), want %+v", got.Usage, got.Error, want)
	}
}

// TestAnthropicThinkingWithoutText: a thinking block whose start names no
// "thinking" member (a proxy's shortened start) still goes back with the
// thinking its deltas carried, or its signature no longer matches.
func TestAnthropicThinkingWithoutText(t *testing.T) {
	data := anthropicStream(
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"U0lH"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}`,
		`{"type":"message_stop"}`,
	)
	m, err := ReadMessage(strings.NewReader(data), WithDialect(DialectAnthropic))
	if err != nil {
		t.Fatal(err)
	}
	if m.Continuity == nil || len(m.Continuity.Blocks) != 1 {
		t.Fatalf("continuity %+v", m.Continuity)
	}
	var blk map[string]any
	if err := json.Unmarshal(m.Continuity.Blocks[0].Raw, &blk); err != nil {
		t.Fatal(err)
	}
	if blk["type"] != "thinking" || blk["thinking"] != "Let me see." || blk["signature"] != "U0lH" {
		t.Errorf("thinking block %s", m.Continuity.Blocks[0].Raw)
	}
}

// A block kept whole that starts with many string members looks them up in
// a map, so that one delta extending all of them stays linear (it was a
// scan per member: 3k → 12k members cost 17.5×). The result is the same
// as with a few members: each member extended in place, in order.
func TestAnthropicManyStartMembers(t *testing.T) {
	for _, n := range []int{maxListedMembers - 1, maxListedMembers, 200} { // and "type"
		var start, delta, want strings.Builder
		for i := range n {
			fmt.Fprintf(&start, `,"k%d":"v"`, i)
			fmt.Fprintf(&delta, `,"k%d":"w"`, i)
			fmt.Fprintf(&want, `,"k%d":"vw"`, i)
		}
		b := NewBridge(WithDialect(DialectAnthropic))
		dec := b.decoder().(*anthropicDecoder)
		feed := func(data string) {
			t.Helper()
			if err := dec.event(&sse.Event{Data: []byte(data)}); err != nil {
				t.Fatal(err)
			}
		}
		feed(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`)
		feed(`{"type":"content_block_start","index":0,"content_block":{"type":"other"` + start.String() + `}}`)
		if blk := dec.lookup(0); (blk.members.byKey != nil) != (n+1 > maxListedMembers) {
			t.Fatalf("%d members: indexed %v", n, blk.members.byKey != nil)
		}
		feed(`{"type":"content_block_delta","index":0,"delta":{"type":"x"` + delta.String() + `}}`)
		feed(`{"type":"content_block_stop","index":0}`)
		if got, w := string(b.blocks[0].Raw), `{"type":"other"`+want.String()+`}`; got != w {
			t.Fatalf("%d members: block %s, want %s", n, got, w)
		}
	}
}

// A kept-whole block's members are extended by interleaved deltas (a, c,
// a again, then both), a member the start held as a number or an escaped
// string, a key with an escape, and a duplicate start key; with a few
// members and with enough that a map finds them. Each string member ends
// as its start text with its deltas' text in order; the first of two
// duplicate keys takes the text.
func TestAnthropicInterleavedMemberDeltas(t *testing.T) {
	for _, extra := range []int{0, 2 * maxListedMembers} {
		var start, want strings.Builder
		for i := range extra {
			fmt.Fprintf(&start, `,"z%d":"v"`, i)
			fmt.Fprintf(&want, `,"z%d":"v"`, i)
		}
		data := anthropicStream(`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"other","a":"x\u00e9","b":1,"a":"dup","q\"k":"s"`+start.String()+`}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"x","a":"1"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"x","c":"2","b":"n"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"x","a":"3"}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"x","a":"4","c":"5","q\"k":"\n"}}`,
			`{"type":"content_block_stop","index":0}`, `{"type":"message_stop"}`)
		w := `{"type":"other","a":"xé134","b":"n","a":"dup","q\"k":"s\u000a"` + want.String() + `,"c":"25"}`
		for how, r := range splittings([]byte(data), uint64(extra)) {
			m, err := ReadMessage(r(), WithDialect(DialectAnthropic))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(m.Continuity.Blocks[0].Raw); got != w {
				t.Fatalf("%d extra members, %s: block\n%s\nwant\n%s", extra, how, got, w)
			}
		}
	}
}
