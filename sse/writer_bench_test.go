package sse

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkWriter writes one event per iteration, as an adapter writes a
// JSON chunk; the allocations reported are per event.
func BenchmarkWriter(b *testing.B) {
	for _, tc := range []struct {
		name string
		ev   Event
	}{
		{"json chunk", Event{Data: []byte(`{"type":"text-delta","id":"t1","delta":" the model streams tokens"}`)}},
		{"id type multi-line", Event{ID: "42", Type: "delta", Data: []byte(strings.Repeat("line of text\n", 8))}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w := NewWriter(io.Discard)
			b.SetBytes(int64(len(tc.ev.Data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := w.WriteEvent(tc.ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWriterAllocs holds the Writer to no allocation per event once warm.
func TestWriterAllocs(t *testing.T) {
	w := NewWriter(io.Discard)
	ev := Event{ID: "1", Type: "t", Data: []byte("a\nb\r\nc")}
	if err := w.WriteEvent(ev); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = w.WriteEvent(ev); _ = w.WriteComment("") }); n != 0 {
		t.Fatalf("%v allocations per event", n)
	}
}
