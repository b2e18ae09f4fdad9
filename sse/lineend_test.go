package sse

import (
	"bytes"
	"testing"
)

func TestSplitter(t *testing.T) {
	for _, tt := range []struct {
		name     string
		in       string
		wantEnd  int
		wantRest int
		wantCR   bool
	}{
		{"no line end", "data: x", -1, 0, false},
		{"LF", "ab\ncd", 2, 3, false},
		{"CRLF", "ab\r\ncd", 2, 4, false},
		{"lone CR", "ab\rcd", 2, 3, false},
		{"CR last", "ab\r", 2, 3, true},
		{"LF before CR", "a\nb\r", 1, 2, false},
		{"CR before LF", "a\rb\n", 1, 2, false},
		{"empty line", "\n", 0, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l splitter
			end, rest, cr := l.next([]byte(tt.in), 0, len(tt.in))
			if end != tt.wantEnd || (end >= 0 && rest != tt.wantRest) || cr != tt.wantCR {
				t.Errorf("next(%q) = %d, %d, %v; want %d, %d, %v", tt.in, end, rest, cr, tt.wantEnd, tt.wantRest, tt.wantCR)
			}
		})
	}
}

// TestIndexLineEnd puts a CR or LF, and then a second one, at every
// position of inputs of every length up to 130, so that the vector search's
// blocks and its overlapping last block meet them everywhere; the result is
// compared with a byte-at-a-time search.
func TestIndexLineEnd(t *testing.T) {
	naive := func(b []byte) int {
		for i, c := range b {
			if c == '\n' || c == '\r' {
				return i
			}
		}
		return -1
	}
	check := func(b []byte) {
		t.Helper()
		want := naive(b)
		if got := indexLineEnd(b); got != want {
			t.Fatalf("indexLineEnd(%q) = %d, want %d", b, got, want)
		}
		if got := scalarLineEnd(b); got != want {
			t.Fatalf("scalarLineEnd(%q) = %d, want %d", b, got, want)
		}
	}
	buf := make([]byte, 130)
	for n := 0; n <= len(buf); n++ {
		for i := range buf {
			buf[i] = byte('a' + i%26)
		}
		check(buf[:n])
		for p := range n {
			for _, c := range []byte{'\n', '\r'} {
				buf[p] = c
				check(buf[:n])
				for q := p + 1; q < n; q++ {
					buf[q] = '\n' + '\r' - c
					check(buf[:n])
					buf[q] = 'x'
				}
				buf[p] = 'y'
			}
		}
	}
	// Longer inputs, for the 256-byte stage: lengths around its multiples,
	// a line end at every position, and a second one at distances that
	// put it in the same block of 32, the next, the next 64 and the next
	// 256 bytes, or last.
	long := make([]byte, 1030)
	for _, n := range []int{255, 256, 257, 287, 288, 319, 320, 511, 512, 513, 767, 768, 1030} {
		for i := range long {
			long[i] = byte('a' + i%26)
		}
		check(long[:n])
		for p := range n {
			for _, c := range []byte{'\n', '\r'} {
				long[p] = c
				check(long[:n])
				for _, d := range []int{1, 31, 32, 63, 64, 255, 256, n - 1 - p} {
					if q := p + d; d > 0 && q < n {
						long[q] = '\n' + '\r' - c
						check(long[:n])
						long[q] = 'x'
					}
				}
				long[p] = 'y'
			}
		}
	}
	// Bytes that differ from CR or LF in one bit, and non-ASCII bytes.
	for _, c := range []byte{0x0B, 0x08, 0x0C, 0x0F, 0x8A, 0x8D, 0xFF, 0x00} {
		for n := range 70 {
			b := bytes.Repeat([]byte{c}, n)
			check(b)
		}
	}
}

// TestSplitterSearchesEachByteOnce: a window that grows one byte at a time is
// searched once per byte, not once per call over the whole window.
func TestSplitterSearchesEachByteOnce(t *testing.T) {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = 'x'
	}
	b[999] = '\n'
	var f splitter
	for e := 1; e < len(b); e++ {
		if end, _, _ := f.next(b, 0, e); end >= 0 {
			t.Fatalf("next(0, %d) = %d, want none", e, end)
		}
		if f.upto != e {
			t.Fatalf("after next(0, %d) searched up to %d", e, f.upto)
		}
	}
	if end, _, _ := f.next(b, 0, len(b)); end != 999 {
		t.Fatalf("next = %d, want 999", end)
	}
	// Asking again finds the same line end; moving the buffer keeps it right.
	if end, _, _ := f.next(b, 0, len(b)); end != 999 {
		t.Fatalf("next again = %d, want 999", end)
	}
	f.shift(990)
	if end, _, _ := f.next(b[990:], 0, 10); end != 9 {
		t.Fatalf("after shift next = %d, want 9", end)
	}
}

func TestBOMPrefixLen(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"\xEF", 1},
		{"\xEF\xBB", 2},
		{"\xEF\xBB\xBF", 3},
		{"\xEF\xBB\xBFdata", 3},
		{"\xEFx", 0},
		{"data", 0},
	} {
		if got := bomPrefixLen([]byte(tt.in)); got != tt.want {
			t.Errorf("bomPrefixLen(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
