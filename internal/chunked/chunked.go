// Package chunked is a sequence that grows as a slice while it is short and
// in fixed chunks once it is long: a decoder that keeps one element per
// item of a stream then allocates about the room its elements take, where a
// slice grown by doubling allocates two to four times that, and copies
// every element to grow.
package chunked

// size is the elements of a chunk; the first grows to it by doubling.
const size = 1024

// Slice is a sequence of T. Its zero value is empty and ready to use. A
// pointer to one of the first size elements stays valid only until the
// next Grow, as with a slice; past them, for good.
type Slice[T any] struct {
	first []T   // elements [0, size)
	more  [][]T // elements [size, ...), size in each
	n     int
}

// Len is the number of elements.
func (s *Slice[T]) Len() int { return s.n }

// At is element i, which must be below Len.
func (s *Slice[T]) At(i int) *T {
	if i < size {
		return &s.first[i]
	}
	return &s.more[i/size-1][i%size]
}

// Grow adds a zero element and returns it.
func (s *Slice[T]) Grow() *T {
	var zero T
	i := s.n
	s.n++
	if i < size {
		if i == cap(s.first) {
			// Doubled, up to size: append's growth slows to 1.25× for
			// large slices, and would round past size.
			f := make([]T, i, min(max(2*i, 4), size))
			copy(f, s.first)
			s.first = f
		}
		s.first = append(s.first, zero)
		return &s.first[i]
	}
	c := i/size - 1
	if c == len(s.more) {
		s.more = append(s.more, make([]T, 0, size))
	}
	s.more[c] = append(s.more[c], zero)
	return &s.more[c][i%size]
}
