//go:build !purego

package sse

// indexLineEnd returns the index of the first CR or LF in b, or -1. On
// AVX2, for 32 bytes or more, it looks for both in one pass, 128 bytes at a
// time, then 64 and 32: in an LF-only stream that halves the work of two
// bytes.IndexByte searches, and a stream whose lines are about as long as
// each other leaves the 128-byte loop at the same turn each time, which the
// CPU predicts (see lineend_amd64.s).
func indexLineEnd(b []byte) int {
	if !useAVX2 || len(b) < 32 {
		return scalarLineEnd(b)
	}
	return lineEndAVX2(&b[0], len(b))
}

// lineEndAVX2 is indexLineEnd for n >= 32, on a CPU with AVX2 (useAVX2).
// In lineend_amd64.s.
//
//go:noescape
func lineEndAVX2(p *byte, n int) int
