package llmstream

import (
	"runtime"
	"strings"
	"testing"
)

// TestChatShortTextInLargeEvent: a one-character content delta in an
// event of a megabyte of other members reserves room for its string, not
// for the rest of the event (it reserved the whole event, a third of the
// memory a large event cost).
func TestChatShortTextInLargeEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates beside the decoder")
	}
	data := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]," +
		strings.Repeat(`"k":1,`, 1<<17) + "\"z\":1}\n\ndata: [DONE]\n\n"
	read := func() {
		m, err := ReadMessage(strings.NewReader(data), WithDialect(DialectChat))
		if err != nil || m.Content != "x" {
			t.Fatalf("ReadMessage = %q, %v", m.Content, err)
		}
	}
	read()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	// The SSE reader's buffer grows to hold the event (doubling: up to
	// four times its size in all, 2.6 here); the text costs nothing near it.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(3*len(data)); got > limit {
		t.Errorf("reading a %d-byte event allocated %d bytes, want at most %d", len(data), got, limit)
	}
}
