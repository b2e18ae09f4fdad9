package intern

import (
	"slices"
	"testing"
)

func TestTable(t *testing.T) {
	var tab Table
	b := []byte("content_block_delta")
	a := tab.String(b)
	if a != "content_block_delta" {
		t.Fatalf("String = %q", a)
	}
	b[0] = 'X'
	if a != "content_block_delta" {
		t.Fatalf("the result aliases its argument: %q", a)
	}
	if allocs := testing.AllocsPerRun(100, func() { tab.String([]byte("content_block_delta")) }); allocs != 0 {
		t.Errorf("a repeated name cost %v allocations, want 0", allocs)
	}
	// Seven other names leave the first of eight entries; an eighth evicts it.
	for _, s := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		tab.String([]byte(s))
	}
	if !slices.Contains(tab.s[:], "content_block_delta") {
		t.Errorf("entries %q lost the first name after seven others", tab.s)
	}
	tab.String([]byte("i"))
	if slices.Contains(tab.s[:], "content_block_delta") {
		t.Errorf("entries %q still hold the first name after eight others", tab.s)
	}
	if got := tab.String([]byte("content_block_delta")); got != "content_block_delta" {
		t.Errorf("String after eviction = %q", got)
	}
}
