package agentloop

import (
	"strconv"
	"unicode/utf8"
)

// truncate cuts out to at most limit bytes on a UTF-8 boundary and appends
// a marker saying how many bytes were cut; it returns the content and the
// number of bytes cut. A negative limit keeps everything.
func truncate(out string, limit int) (string, int) {
	if limit < 0 || len(out) <= limit {
		return out, 0
	}
	k := runeCut(out, limit)
	cut := len(out) - k
	return out[:k] + "\n[airlock: output truncated, " + strconv.Itoa(cut) + " bytes cut]", cut
}

// runeCut returns the largest index ≤ n at which s can be cut without
// splitting a valid UTF-8 sequence. Bytes that are not valid UTF-8 are
// units of their own and may be cut anywhere.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	// The rune holding byte n starts at most utf8.UTFMax-1 bytes back.
	for k := n; k >= 0 && k > n-utf8.UTFMax; k-- {
		if !utf8.RuneStart(s[k]) {
			continue
		}
		if k == n {
			return n
		}
		r, size := utf8.DecodeRuneInString(s[k:])
		if valid := r != utf8.RuneError || size > 1; valid && k+size > n {
			return k
		}
		return n
	}
	return n
}
