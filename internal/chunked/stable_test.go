package chunked

import (
	"runtime"
	"strconv"
	"testing"
)

// Every element past the first chunk keeps its address for good, through
// later Grows and collections, and its value; the chunk edges read right.
func TestSliceElementsPastTheFirstChunkStay(t *testing.T) {
	type item struct {
		s string
		p *int
	}
	var s Slice[item]
	const n = 4*size + 3
	ptrs := make([]*item, n)
	for i := range n {
		e := s.Grow()
		if e.s != "" || e.p != nil {
			t.Fatalf("element %d new: %+v", i, *e)
		}
		v := i
		*e = item{strconv.Itoa(i), &v}
		ptrs[i] = e
		if i%size == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range n {
		e := s.At(i)
		if i >= size && e != ptrs[i] {
			t.Fatalf("element %d moved", i)
		}
		if e.s != strconv.Itoa(i) || *e.p != i {
			t.Fatalf("element %d is %q, %d", i, e.s, *e.p)
		}
	}
	for _, i := range []int{size - 1, size, 2*size - 1, 2 * size, n - 1} {
		if s.At(i).s != strconv.Itoa(i) {
			t.Errorf("At(%d) = %q", i, s.At(i).s)
		}
	}
}
