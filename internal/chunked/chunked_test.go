package chunked

import "testing"

// Every element keeps its value across the chunk edges, and a zero one is
// handed out each time.
func TestSlice(t *testing.T) {
	for _, n := range []int{0, 1, size - 1, size, size + 1, 3*size + 5} {
		var s Slice[int]
		for i := range n {
			e := s.Grow()
			if *e != 0 {
				t.Fatalf("n %d: element %d new: %d", n, i, *e)
			}
			*e = i + 1
		}
		if s.Len() != n {
			t.Fatalf("Len %d, want %d", s.Len(), n)
		}
		for i := range n {
			if got := *s.At(i); got != i+1 {
				t.Fatalf("n %d: At(%d) = %d, want %d", n, i, got, i+1)
			}
		}
	}
}

// A long sequence holds about its elements' room, no more than a chunk
// beyond, and an element past the first chunk never moves.
func TestSliceHoldsItsRoom(t *testing.T) {
	for _, n := range []int{1, size, size + 1, 100*size + 7} {
		var s Slice[int]
		var past *int
		for i := range n {
			e := s.Grow()
			*e = i
			if i == size {
				past = e
			}
		}
		room := cap(s.first)
		for _, c := range s.more {
			room += cap(c)
		}
		if room > n+size {
			t.Errorf("%d elements hold room for %d, want at most %d", n, room, n+size)
		}
		if past != nil && (past != s.At(size) || *past != size) {
			t.Errorf("%d elements: element %d moved", n, size)
		}
	}
}
