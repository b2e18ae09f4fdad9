//go:build !amd64 || purego

package sse

// vectorPrefix checks nothing here: there is no vector code for this
// architecture, or the purego build tag asked for none.
func vectorPrefix([]byte) int { return 0 }
