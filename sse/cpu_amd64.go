//go:build !purego

package sse

// hasAVX2 reports whether the CPU and the operating system support AVX2.
// In cpu_amd64.s.
func hasAVX2() bool

// useAVX2 selects the vector code (UTF-8 check, line-end search); tests
// turn it off to check that both paths agree.
var useAVX2 = hasAVX2()
