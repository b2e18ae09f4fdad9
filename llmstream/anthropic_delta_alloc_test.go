package llmstream

import (
	"strings"
	"testing"
)

// TestRawBlockDeltaAllocations checks that a raw block's delta extending a
// member its start had (compaction_delta's "content", say) allocates
// nothing of its own: the deltas of a long block cost the same
// allocations as those of a short one, but for the text buffer's
// doublings.
func TestRawBlockDeltaAllocations(t *testing.T) {
	stream := func(deltas int) string {
		events := []string{
			`{"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1}}}`,
			`{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":""}}`,
		}
		for range deltas {
			events = append(events, `{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"abcdefgh"}}`)
		}
		events = append(events, `{"type":"content_block_stop","index":0}`, `{"type":"message_stop"}`)
		return anthropicStream(events...)
	}
	allocs := func(deltas int) float64 {
		data := stream(deltas)
		return testing.AllocsPerRun(5, func() {
			if _, err := ReadMessage(strings.NewReader(data), WithDialect(DialectAnthropic)); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(10), allocs(1000)
	// 1000 deltas of 8 bytes double the text buffer about ten more times.
	if many > few+16 {
		t.Errorf("1000 deltas: %v allocations, 10 deltas: %v; a delta allocates", many, few)
	}
}
