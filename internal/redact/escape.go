package redact

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// escape.go: secrets echoed with some of their characters escaped. A server
// may write any character of a JSON string as \uXXXX ("\u0073k-..."), and
// any byte of a URL as %XX ("sk%2Dlive%2D..."), not only those an encoder
// must escape: the fixed forms New derives cannot cover every mix. So the
// text is also read decoded — every JSON escape and every %XX taken for
// what it stands for, left to right — and the raw secrets are looked for in
// that reading, whose bytes map back to the text they came from.

// decoded is a text read with its escapes decoded: text[j] came from
// src[from[j]:to[j]].
type decoded struct {
	text     []byte
	from, to []int32
	partial  int // where an escape cut short by the end of src begins; -1 if none
}

// hasEscape reports a byte that may begin an escape.
func hasEscape(s string) bool { return strings.ContainsAny(s, `\%`) }

// decode reads src with its escapes decoded. It is linear in len(src) and
// allocates O(len(src)).
func decode(src string) decoded {
	d := decoded{partial: -1}
	d.text = make([]byte, 0, len(src))
	d.from = make([]int32, 0, len(src))
	d.to = make([]int32, 0, len(src))
	for i := 0; i < len(src); {
		var buf [utf8.UTFMax]byte
		out, n := buf[:1], 1
		buf[0] = src[i]
		switch src[i] {
		case '%':
			if b, ok := hexByte(src, i+1); ok {
				buf[0], n = b, 3
			} else if shortHex(src[i+1:], 2) {
				d.partial = i
			}
		case '\\':
			if r, m := jsonEscape(src[i:]); m > 0 {
				out, n = utf8.AppendRune(buf[:0], r), m
			} else if partialJSONEscape(src[i:]) {
				d.partial = i
			}
		}
		for _, c := range out {
			d.text = append(d.text, c)
			d.from = append(d.from, int32(i))
			d.to = append(d.to, int32(i+n))
		}
		i += n
	}
	return d
}

// unhex is the value of a hexadecimal digit, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hexByte decodes the two hex digits at s[i:].
func hexByte(s string, i int) (byte, bool) {
	if i+2 > len(s) {
		return 0, false
	}
	hi, lo := unhex(s[i]), unhex(s[i+1])
	if hi < 0 || lo < 0 {
		return 0, false
	}
	return byte(hi<<4 | lo), true
}

// shortHex reports s is fewer than n bytes, all hex digits: the start of
// an escape's digits cut off by the end of the text.
func shortHex(s string, n int) bool {
	if len(s) >= n {
		return false
	}
	for i := range len(s) {
		if unhex(s[i]) < 0 {
			return false
		}
	}
	return true
}

// hex4 decodes the four hex digits at s[i:].
func hex4(s string, i int) (rune, bool) {
	hi, ok1 := hexByte(s, i)
	lo, ok2 := hexByte(s, i+2)
	return rune(hi)<<8 | rune(lo), ok1 && ok2
}

// jsonEscape decodes the JSON escape s begins with: the rune and the bytes
// it took, or 0 bytes when s does not begin with one. A surrogate pair is
// one rune; a lone surrogate is no escape.
func jsonEscape(s string) (rune, int) {
	if len(s) < 2 {
		return 0, 0
	}
	switch s[1] {
	case '"', '\\', '/':
		return rune(s[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(s, 2)
		if !ok {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := hex4(s, 8); ok {
				if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
					return p, 12
				}
			}
		}
	}
	return 0, 0
}

// partialJSONEscape reports s is a JSON escape cut short: "\", "\u", or
// "\u" and fewer than four hex digits.
func partialJSONEscape(s string) bool {
	switch {
	case len(s) == 1:
		return true
	case s[1] == 'u':
		return shortHex(s[2:], 4)
	}
	return false
}

// escapes returns the forms in which the rune r may be escaped: %XX of
// each of its bytes (upper and lower case) and \uXXXX (a surrogate pair
// beyond the BMP), with what a JSON encoder's short escape writes.
func escapes(r rune) []string {
	var out []string
	var buf [utf8.UTFMax]byte
	b := utf8.AppendRune(buf[:0], r)
	const upper, lower = "0123456789ABCDEF", "0123456789abcdef"
	for _, digits := range []string{upper, lower} {
		var pct []byte
		for _, c := range b {
			pct = append(pct, '%', digits[c>>4], digits[c&15])
		}
		out = append(out, string(pct))
		var u []byte
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			u = appendU(appendU(u, r1, digits), r2, digits)
		} else {
			u = appendU(u, r, digits)
		}
		out = append(out, string(u))
	}
	switch r {
	case '"', '\\', '/':
		out = append(out, `\`+string(r))
	case '\b':
		out = append(out, `\b`)
	case '\f':
		out = append(out, `\f`)
	case '\n':
		out = append(out, `\n`)
	case '\r':
		out = append(out, `\r`)
	case '\t':
		out = append(out, `\t`)
	}
	return out
}

func appendU(b []byte, r rune, digits string) []byte {
	return append(b, '\\', 'u', digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15])
}

// mayBegin reports that partial, an escape cut short, may be the start of
// an escape of the first rune of rest.
func mayBegin(partial, rest string) bool {
	if rest == "" {
		return false
	}
	r, n := utf8.DecodeRuneInString(rest)
	if r == utf8.RuneError && n == 1 {
		// rest starts inside a rune (the decoded reading matched the
		// rune's first bytes): only a URL escape goes byte by byte.
		return strings.HasPrefix(strings.ToLower(fmt.Sprintf("%%%02x", rest[0])), strings.ToLower(partial))
	}
	for _, e := range escapes(r) {
		if strings.HasPrefix(strings.ToLower(e), strings.ToLower(partial)) {
			return true
		}
	}
	return false
}

// mayEnd reports that lead, the start of a text cut out of a longer one,
// may be the end of an escape of the last rune of before: what is left of
// "%2D" or "\u0073" once the cut took its first bytes.
func mayEnd(lead, before string) bool {
	if before == "" || lead == "" {
		return false
	}
	r, n := utf8.DecodeLastRuneInString(before)
	if r == utf8.RuneError && n == 1 {
		// before ends inside a rune: only a URL escape goes byte by byte.
		e := fmt.Sprintf("%%%02x", before[len(before)-1])
		return len(e) > len(lead) && strings.EqualFold(e[len(e)-len(lead):], lead)
	}
	for _, e := range escapes(r) {
		if len(e) > len(lead) && strings.EqualFold(e[len(e)-len(lead):], lead) {
			return true
		}
	}
	return false
}

// maxEscape is the longest escape of one rune: a surrogate pair.
const maxEscape = 12

// maskDecoded returns text with every raw secret that its decoded reading
// holds replaced by Mask, and whether it replaced any.
func (s *Set) maskDecoded(text string) (string, bool) {
	if !hasEscape(text) {
		return text, false
	}
	d := decode(text)
	dec := string(d.text)
	spans := s.afterLiteral(text, dec, &d)
	for _, v := range s.raws {
		for off := 0; ; {
			i := strings.Index(dec[off:], v)
			if i < 0 {
				break
			}
			i += off
			spans = append(spans, span{int(d.from[i]), int(d.to[i+len(v)-1])})
			off = i + len(v)
		}
	}
	if len(spans) == 0 {
		return text, false
	}
	// Merge overlapping spans, in order of start.
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	last := 0
	for k := 0; k < len(spans); {
		from, to := spans[k].from, spans[k].to
		for k++; k < len(spans) && spans[k].from < to; k++ {
			to = max(to, spans[k].to)
		}
		b.WriteString(text[last:from])
		b.WriteString(Mask)
		last = to
	}
	b.WriteString(text[last:])
	return b.String(), true
}

// headCutDecoded is how many bytes at the end of text begin a raw secret
// in the decoded reading, an escape cut short by the end included (the
// "%2" of "sk%2D...").
func (s *Set) headCutDecoded(text string) int {
	if !hasEscape(text) {
		return 0
	}
	d := decode(text)
	j := len(d.text) // the decoded bytes before the cut-short escape
	if d.partial >= 0 {
		for j > 0 && int(d.from[j-1]) >= d.partial {
			j--
		}
	}
	dec := string(d.text[:j])
	cut := s.headCutLiteral(text, &d, j)
	for _, v := range s.raws {
		for k := min(len(v)-1, len(dec)); k >= 0; k-- {
			if !strings.HasSuffix(dec, v[:k]) {
				continue
			}
			at := len(text)
			if d.partial >= 0 {
				if !mayBegin(text[d.partial:], v[k:]) {
					continue
				}
				at = d.partial
			} else if k == 0 {
				break
			}
			if k > 0 {
				at = int(d.from[j-k])
			}
			cut = min(cut, at)
			break
		}
	}
	return len(text) - cut
}

// tailCutDecoded is how many bytes at the start of text end a raw secret
// in the decoded reading, what is left of an escape cut at the start
// included (the "2D" of "%2D...").
func (s *Set) tailCutDecoded(text string) int {
	if !hasEscape(text) && !leadMayEndEscape(text) {
		return 0
	}
	longest := 0
	for _, v := range s.raws {
		longest = max(longest, len(v))
	}
	cut := 0
	for lead := 0; lead < maxEscape && lead <= len(text); lead++ {
		rest := text[lead:]
		rest = rest[:min(len(rest), longest*maxEscape)]
		d := decode(rest)
		dec := string(d.text)
		for _, v := range s.raws {
			for j := 1; j <= len(v); j++ {
				suffix := v[j:]
				if lead == 0 && suffix == "" || len(suffix) > len(dec) || !strings.HasPrefix(dec, suffix) {
					continue
				}
				if lead > 0 && !mayEnd(text[:lead], v[:j]) {
					continue
				}
				at := lead
				if suffix != "" {
					at += int(d.to[len(suffix)-1])
				}
				cut = max(cut, at)
				break
			}
		}
	}
	return cut
}

// leadMayEndEscape reports that text starts with bytes that may be what
// is left of an escape: hex digits, or a 'u' and hex digits.
func leadMayEndEscape(text string) bool {
	return text != "" && (unhex(text[0]) >= 0 || text[0] == 'u' || strings.ContainsRune(`"\/bfnrt`, rune(text[0])))
}
