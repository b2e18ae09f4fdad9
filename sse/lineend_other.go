//go:build !amd64 || purego

package sse

// indexLineEnd returns the index of the first CR or LF in b, or -1.
func indexLineEnd(b []byte) int { return scalarLineEnd(b) }

// useAVX2 is false here: there is no vector code for this architecture, or
// the purego build tag asked for none. Being a constant, it lets the
// compiler drop the calls to lineEndAVX2.
const useAVX2 = false

// lineEndAVX2 is never called here (see useAVX2).
func lineEndAVX2(*byte, int) int { panic("sse: no vector line-end search in this build") }
