package chunked

import "testing"

// Every element keeps its value across the chunk edges, a zero one is
// handed out where none was before, and after Truncate the old ones come
// back as they were.
func TestSlice(t *testing.T) {
	for _, n := range []int{0, 1, size - 1, size, size + 1, 3*size + 5} {
		var s Slice[int]
		for i := range n {
			e, reused := s.Grow()
			if *e != 0 || reused {
				t.Fatalf("n %d: element %d new: %d, reused %v", n, i, *e, reused)
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
		s.Truncate(0)
		for i := range n + 2 {
			e, reused := s.Grow()
			if want := i < n; reused != want || reused && *e != i+1 || !reused && *e != 0 {
				t.Fatalf("n %d after Truncate: element %d = %d, reused %v", n, i, *e, reused)
			}
		}
	}
}

// A long sequence allocates about its elements' room: no more than one
// chunk and the first's doubling beyond it.
func TestSliceAllocatesItsRoom(t *testing.T) {
	const n = 100 * size
	allocs := testing.AllocsPerRun(3, func() {
		var s Slice[[64]byte]
		for range n {
			s.Grow()
		}
	})
	// The first chunk doubles about 11 times, the rest are one each, and
	// more's headers double.
	if max := 11 + n/size + 10; allocs > float64(max) {
		t.Errorf("%v allocations for %d elements, want at most %d", allocs, n, max)
	}
}
