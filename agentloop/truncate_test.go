package agentloop

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		limit   int
		want    string
		wantCut int
	}{
		{"under the limit", "0123456789", 11, "0123456789", 0},
		{"at the limit", "0123456789", 10, "0123456789", 0},
		{"one over the limit", "0123456789", 9, "012345678\n[airlock: output truncated, 1 bytes cut]", 1},
		{"limit zero keeps nothing", "abc", 0, "\n[airlock: output truncated, 3 bytes cut]", 3},
		{"negative limit keeps all", "abc", -1, "abc", 0},
		{"empty output", "", 0, "", 0},
		{"cut before a two-byte rune", "h\u00e9llo", 2, "h\n[airlock: output truncated, 5 bytes cut]", 5},
		{"cut after a two-byte rune", "h\u00e9llo", 3, "h\u00e9\n[airlock: output truncated, 3 bytes cut]", 3},
		{"cut inside a four-byte rune", "a\U0001F600b", 4, "a\n[airlock: output truncated, 5 bytes cut]", 5},
		{"stray continuation bytes cut anywhere", "a\x80\x80\x80\x80\x80b", 3, "a\x80\x80\n[airlock: output truncated, 4 bytes cut]", 4},
		{"invalid lead byte is its own unit", "a\xffb", 2, "a\xff\n[airlock: output truncated, 1 bytes cut]", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := truncate(tc.out, tc.limit)
			if got != tc.want || cut != tc.wantCut {
				t.Errorf("truncate(%q, %d) = %q, %d; want %q, %d", tc.out, tc.limit, got, cut, tc.want, tc.wantCut)
			}
		})
	}
}

// FuzzTruncate checks the cut's invariants on any output and limit: the
// kept part is a prefix within the limit, valid UTF-8 stays valid, the cut
// count is exact, and no more is cut than a split rune needs.
func FuzzTruncate(f *testing.F) {
	f.Add("h\u00e9llo w\u00f6rld", 3)
	f.Add("a\U0001F600b", 4)
	f.Add("a\x80\x80\x80\x80b", 2)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, out string, limit int) {
		if limit < 0 {
			limit = -limit
		}
		limit %= len(out) + 8
		got, cut := truncate(out, limit)
		if cut == 0 {
			if got != out || len(out) > limit {
				t.Fatalf("no cut but got %q for %q limit %d", got, out, limit)
			}
			return
		}
		kept := len(out) - cut
		if kept > limit || kept < limit-(utf8.UTFMax-1) || !strings.HasPrefix(got, out[:kept]) {
			t.Fatalf("kept %d of %q at limit %d: %q", kept, out, limit, got)
		}
		if utf8.ValidString(out) && !utf8.ValidString(out[:kept]) {
			t.Fatalf("cut %q at %d splits a rune", out, kept)
		}
		if !strings.HasSuffix(got, "bytes cut]") {
			t.Fatalf("no marker in %q", got)
		}
	})
}
