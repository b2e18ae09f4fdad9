package llmstream

import (
	"runtime"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// TestOnDeltaToolCallCostIndependentOfDepth: with a delta callback (as
// agentloop sets whenever Hooks.OnDelta is), each one-byte argument
// fragment costs as many heap bytes under arguments nested
// MaxNestingDepth-1 deep as under one level. The tool-call Delta once built
// the preview's closing suffix per fragment: O(depth) bytes each, 8.9 GB
// for 200k fragments at depth 9,999.
func TestOnDeltaToolCallCostIndependentOfDepth(t *testing.T) {
	const fragments = 5000
	cost := func(depth int) float64 {
		var last Delta
		b := NewBridge(WithOnDelta(func(d Delta) error { last = d; return nil }))
		head := sse.Event{Data: []byte(toolFrag(0, "call_a", "f", strings.Repeat("[", depth)+`"`))}
		if err := b.Handle(head); err != nil {
			t.Fatal(err)
		}
		frag := sse.Event{Data: []byte(toolFrag(0, "", "", "x"))}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range fragments {
			if err := b.Handle(frag); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if last.Kind != DeltaToolCall || len(last.Call.Partial) != depth+1+fragments {
			t.Fatalf("last delta %v with %d bytes of arguments", last.Kind, len(last.Call.Partial))
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / fragments
	}
	shallow, deep := cost(1), cost(toolcall.MaxNestingDepth-1)
	t.Logf("bytes per fragment: depth 1 %.1f, depth %d %.1f", shallow, toolcall.MaxNestingDepth-1, deep)
	if deep > 2*shallow+16 {
		t.Errorf("%.1f bytes per fragment at depth %d, %.1f at depth 1: a tool-call Delta costs O(depth)", deep, toolcall.MaxNestingDepth-1, shallow)
	}
}
