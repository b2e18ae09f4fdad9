//go:build !race

package eventstream

import (
	"io"
	"slices"
	"testing"
)

// loopReader replays its data for ever.
type loopReader struct {
	data []byte
	i    int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.i:])
	l.i = (l.i + n) % len(l.data)
	return n, nil
}

// Steady state costs no allocation per frame, for the Reader and for the
// Parser whole or split. (The race detector's instrumentation allocates, so
// this runs without it.)
func TestNoAllocationPerFrame(t *testing.T) {
	stream := converseStream(50)
	r := NewReader(&loopReader{data: stream})
	for range 100 { // warm up: the buffer, the headers, the names
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(1000, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Reader: %v allocations per frame", a)
	}
	p := NewParser()
	whole := func() {
		if err := p.Feed(stream, func(Message) error { return nil }); err != nil && err != io.EOF {
			t.Fatal(err)
		}
	}
	whole()
	if a := testing.AllocsPerRun(10, whole); a != 0 {
		t.Errorf("Parser, whole: %v allocations per stream", a)
	}
	split := func() {
		for c := range slices.Chunk(stream, 7) {
			if err := p.Feed(c, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	split()
	if a := testing.AllocsPerRun(10, split); a != 0 {
		t.Errorf("Parser, 7-byte chunks: %v allocations per stream", a)
	}
}
