//go:build !purego

package sse

import (
	"bytes"
	"testing"
)

// BenchmarkIndexLineEnd finds every line end of a chat stream, one search
// per line as the Reader does, with the vector search and in plain Go, next
// to a bytes.IndexByte search for LF alone.
func BenchmarkIndexLineEnd(b *testing.B) {
	chat := chatStream(2000, "\n")
	run := func(b *testing.B, index func([]byte) int) {
		b.SetBytes(int64(len(chat)))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for rest := chat; ; n++ {
				i := index(rest)
				if i < 0 {
					break
				}
				rest = rest[i+1:]
			}
			if n == 0 {
				b.Fatal("no lines")
			}
		}
	}
	b.Run("avx2", func(b *testing.B) {
		requireAVX2(b)
		run(b, indexLineEnd)
	})
	b.Run("scalar", func(b *testing.B) { run(b, scalarLineEnd) })
	b.Run("IndexByte-LF-only", func(b *testing.B) {
		run(b, func(p []byte) int { return bytes.IndexByte(p, '\n') })
	})
}
