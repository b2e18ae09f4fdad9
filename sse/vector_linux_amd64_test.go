//go:build linux && amd64 && !purego

package sse

import (
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// TestValidBlocksCoverage: on every prefix of valid text the vector check
// passes every whole 32-byte block. Comparing results with the scalar code
// cannot see a check that flags good sequences or gives up early: the
// scalar code then does the work and gets the same answer, slowly.
func TestValidBlocksCoverage(t *testing.T) {
	requireAVX2(t)
	texts := []struct {
		name string
		text string
	}{
		{"ascii", strings.Repeat("data: hello\n", 25)},
		{"two-byte", strings.Repeat("é\u07FFд", 50)},
		{"three-byte", strings.Repeat("€\u0800\uFFFD\uD7FF\uE000", 20)},
		{"four-byte", strings.Repeat("🎉\U00010000\U0010FFFF", 25)},
		{"mixed", strings.Repeat("a é€🎉xy\n", 20)},
		{"mixed-then-ascii", strings.Repeat("é€🎉", 8) + strings.Repeat("a", 230)},
		{"ascii-then-mixed", strings.Repeat("a", 100) + strings.Repeat("€🎉é", 25)},
		{"mixed-ascii-mixed", strings.Repeat("🎉", 16) + strings.Repeat("a", 64) + strings.Repeat("€", 60)},
		{"mixed-ascii-tail", strings.Repeat("€", 22) + "\n" + strings.Repeat("a", 100)},
	}
	for _, tt := range texts {
		in := []byte(tt.text)
		if !utf8.Valid(in) {
			t.Fatalf("%s: the text is not valid UTF-8", tt.name)
		}
		for n := 64; n <= len(in); n++ {
			k := n &^ 31
			if got := validBlocksAVX2(&in[0], n, &vectors); got != k {
				t.Fatalf("%s: validBlocksAVX2(%q) = %d, want %d", tt.name, in[:n], got, k)
			}
			// vectorPrefix steps back to the lead byte of the character
			// that ends the last block, which may be cut there.
			if in[k-1] >= 0x80 {
				for k--; !utf8.RuneStart(in[k]); k-- {
				}
			}
			if got := vectorPrefix(in[:n]); got != k {
				t.Fatalf("%s: vectorPrefix(%q) = %d, want %d", tt.name, in[:n], got, k)
			}
		}
	}
}

// TestVectorSequenceEndingAtBlockEdge puts every sequence of four bytes
// taken from the range edges so that it ends a 32-byte block, followed by
// ASCII or by the end of the input. No later byte then fails, so an error
// the check should find at the last byte of a block (such as F0 90 80 00,
// which only the byte three back condemns) is found there or not at all;
// TestVectorSequencesAtBlockEdges places sequences one byte later.
func TestVectorSequenceEndingAtBlockEdge(t *testing.T) {
	requireAVX2(t)
	skipExhaustiveUnderRace(t)
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
		0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF}
	bg := []byte(repeatTo("€a", 64) + repeatTo("a", 128))
	in := make([]byte, len(bg))
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					for _, end := range []int{32, 64, 96} {
						copy(in, bg)
						in[end-4], in[end-3], in[end-2], in[end-1] = a, b, c, d
						checkVector(t, in)
						checkVector(t, in[:end])
					}
				}
			}
		}
	}
}

// guarded returns n bytes that end where an unreadable page starts, and n
// bytes that start where one ends, so that a read past either end faults.
func guarded(t *testing.T, n int) (atEnd, atStart []byte) {
	t.Helper()
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	for _, g := range [][]byte{mem[:page], mem[2*page:]} {
		if err := syscall.Mprotect(g, syscall.PROT_NONE); err != nil {
			t.Fatal(err)
		}
	}
	return mem[2*page-n : 2*page : 2*page], mem[page : page+n : page+n]
}

// TestVectorReadsInBounds runs both vector functions, directly and
// through their callers, on inputs of every length up to 600 (past the
// line-end search's 256-byte stage twice) placed against unreadable pages:
// a load past either end faults.
func TestVectorReadsInBounds(t *testing.T) {
	requireAVX2(t)
	const most = 600
	atEnd, atStart := guarded(t, most)
	for _, fill := range []string{"abcdef", "a\xC3\xA9\xE2\x82\xAC"} {
		for n := 0; n <= most; n++ {
			for _, b := range [][]byte{atEnd[most-n:], atStart[:n]} {
				for i := range b {
					b[i] = fill[i%len(fill)]
				}
				if got, want := validPrefix(b), scalarPrefix(b); got != want {
					t.Fatalf("validPrefix of %d bytes of %q = %d, want %d", n, fill, got, want)
				}
				// Every block is a prefix of valid text.
				if n >= 32 {
					if got, want := validBlocksAVX2(&b[0], n, &vectors), n&^31; got != want {
						t.Fatalf("validBlocksAVX2 of %d bytes of %q = %d, want %d", n, fill, got, want)
					}
				}
				if got := indexLineEnd(b); got != -1 {
					t.Fatalf("indexLineEnd of %d bytes of %q = %d, want -1", n, fill, got)
				}
				if n == 0 {
					continue
				}
				b[n-1] = '\r'
				if got := indexLineEnd(b); got != n-1 {
					t.Fatalf("indexLineEnd of %d bytes of %q ending in CR = %d, want %d", n, fill, got, n-1)
				}
				if n >= 32 {
					if got := lineEndAVX2(&b[0], n); got != n-1 {
						t.Fatalf("lineEndAVX2 of %d bytes of %q ending in CR = %d, want %d", n, fill, got, n-1)
					}
				}
			}
		}
	}
}
