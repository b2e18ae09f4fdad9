package llmstream

import (
	"strconv"
	"testing"
	"unsafe"
)

// TestRespItemSize guards the memory cut: an output item is 48 bytes where
// int has 64 bits (its text behind a pointer, its indexes int32).
func TestRespItemSize(t *testing.T) {
	if got := unsafe.Sizeof(respItem{}); strconv.IntSize == 64 && got > 48 {
		t.Errorf("respItem is %d bytes, want at most 48", got)
	}
}
