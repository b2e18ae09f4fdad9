package sse

import "testing"

func TestInterner(t *testing.T) {
	var in interner
	a := in.get([]byte("content_block_delta"))
	if a != "content_block_delta" {
		t.Fatalf("get = %q", a)
	}
	if allocs := testing.AllocsPerRun(100, func() { in.get([]byte("content_block_delta")) }); allocs != 0 {
		t.Errorf("a repeated name cost %v allocations, want 0", allocs)
	}
	// Nine distinct names evict the first of eight entries.
	for _, s := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		in.get([]byte(s))
	}
	for _, s := range in.s {
		if s == "content_block_delta" {
			t.Errorf("entries %q still hold the first name after eight others", in.s)
		}
	}
	if got := in.get([]byte("content_block_delta")); got != "content_block_delta" {
		t.Errorf("get after eviction = %q", got)
	}
}
