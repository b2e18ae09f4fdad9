//go:build !amd64 || purego

package sse

// indexLineEnd returns the index of the first CR or LF in b, or -1.
func indexLineEnd(b []byte) int { return scalarLineEnd(b) }
