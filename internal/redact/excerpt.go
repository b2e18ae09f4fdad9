package redact

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExcerptBytes is the usual bound of an [Excerpt]: enough for a provider's
// error message, short enough for a log line.
const ExcerptBytes = 256

// Excerpt returns the start of b as one printable line of at most limit bytes
// (plus a trailing "…" when cut), cut on a UTF-8 boundary, with every secret
// of s replaced by [Mask] first. Runs of spaces, line ends and other
// unprintable characters (terminal escapes, NUL) become one space, so the
// text cannot forge a log line or drive a terminal. That folding may spell
// a secret out of text that held none ("0\x00000000" shows as "0 000000"),
// so the line is searched for secrets once more: what is shown never reads
// as one.
func Excerpt(b []byte, limit int, s *Set) string {
	text := s.String(string(b))
	var out strings.Builder
	space := false
	for _, r := range text {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			space = out.Len() > 0
			continue
		}
		need := utf8.RuneLen(r)
		if space {
			need++
		}
		if out.Len()+need > limit {
			out.WriteString("…")
			return s.String(out.String())
		}
		if space {
			out.WriteByte(' ')
			space = false
		}
		out.WriteRune(r)
	}
	return s.String(out.String())
}
