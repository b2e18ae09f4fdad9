package bench

// generate.go: the seeded pieces every dialect's corpora are built from —
// ids, answer text, tool-call argument objects, fragment splits, and JSON
// string encoding — so that every corpus is byte for byte the same on every
// run and every machine (math/rand/v2's PCG is specified, not
// implementation-defined).

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randID is prefix followed by n random letters and digits.
func randID(rng *rand.Rand, prefix string, n int) string {
	b := []byte(prefix)
	for range n {
		b = append(b, alnum[rng.IntN(len(alnum))])
	}
	return string(b)
}

const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// randBase64 is n random base64 characters with "=" padding to a multiple
// of four, shaped like the opaque signatures providers send.
func randBase64(rng *rand.Rand, n int) string {
	b := make([]byte, 0, n+3)
	for range n {
		b = append(b, base64Chars[rng.IntN(len(base64Chars))])
	}
	for len(b)%4 != 0 {
		b = append(b, '=')
	}
	return string(b)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal. Non-ASCII runes are
// written raw, as providers mostly send them, unless escapeUnicode is set:
// then they become \uXXXX escapes (surrogate pairs above the BMP), which a
// decoder must turn back into the same UTF-8.
func appendJSONString(dst []byte, s string, escapeUnicode bool) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				if c < 0x20 {
					dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				} else {
					dst = append(dst, c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !escapeUnicode:
			dst = append(dst, s[i:i+size]...)
		case r > 0xFFFF:
			r -= 0x10000
			dst = appendU4(dst, 0xD800+(r>>10))
			dst = appendU4(dst, 0xDC00+(r&0x3FF))
		default:
			dst = appendU4(dst, r)
		}
		i += size
	}
	return append(dst, '"')
}

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[(r>>12)&0xf], hexDigits[(r>>8)&0xf], hexDigits[(r>>4)&0xf], hexDigits[r&0xf])
}

// vocab is what answer text is made of: plain English, markdown, quotes
// and backslashes (escaped in JSON), and raw UTF-8 from two to four bytes a
// rune, so that decoders meet every escape and every rune length.
var vocab = strings.Fields(`the a of and to in is that for it with as on be this are by from at or an
model stream streaming token tokens request response latency buffer parser event events chunk delta
server client function argument arguments JSON value string array object index message assistant user
system content tool call calls result error retry timeout connection byte bytes newline field data
decoder encoder allocation throughput benchmark baseline memory copy slice pointer interface channel
goroutine context deadline cancel header body status reader writer scanner split line lines fragment
we you they should would could must can will not only also however therefore because although while
first second third finally next then here there above below example examples note notes see section
naïve café résumé über façade Ångström São_Paulo Zürich Kraków 東京 日本語 中文 한국어 Привет мир
→ — … · ± × ÷ ≤ ≥ ≠ ∞ α β γ λ μ π σ ψ Ω x² m³ ½ € £ ¥ © ® ™ 😀 🚀 ✅ 🔥 👍 🎉
“quoted” ‘single’ "quoted" 'single' ` + "`code`" + ` ` + "`fmt.Println`" + ` **bold** _emph_ ~strike~ <tag> &amp; 50% $100
3.14 42 1,024 2025-01-01 v1.2.3 e.g. i.e. etc. (see below) [1] {x} # ## ### - * 1. 2. 3. C:\temp \n \t
https://example.com/docs?q=1&r=2 foo/bar.go:123 x:=y a==b a!=b {"k":"v"} [1,2,3] \u00e9 ;`)

// genText is minWords..maxWords words, each after a space ("_" in a
// vocabulary entry is a space too), sometimes followed by a newline, a
// blank line or a tab, as a model's markdown is.
func genText(rng *rand.Rand, minWords, maxWords int) string {
	var sb strings.Builder
	n := minWords + rng.IntN(maxWords-minWords+1)
	for range n {
		sb.WriteByte(' ')
		sb.WriteString(strings.ReplaceAll(vocab[rng.IntN(len(vocab))], "_", " "))
	}
	switch r := rng.IntN(100); {
	case r < 4:
		sb.WriteString("\n")
	case r < 6:
		sb.WriteString("\n\n")
	case r < 7:
		sb.WriteString("\t")
	}
	return sb.String()
}

var argKeys = strings.Fields(`query filters date_range from to tags limit offset sort order fields
include_archived location coordinates lat lon radius_km attendees email name role notes description
title body metadata labels priority status options retry backoff max_attempts timeout_ms headers
user_agent locale timezone currency amount items sku quantity price discount address street city
postal_code country comment text summary steps condition expression`)

// argStrings are string values that stress a JSON decoder: quotes,
// backslashes, newlines, control characters, every UTF-8 length.
var argStrings = []string{
	"Quarterly revenue report",
	`He said "ship it" and left`,
	`C:\Users\alice\Documents\report.pdf`,
	"line one\nline two\n\tindented line three",
	"naïve café résumé — déjà vu",
	"東京都渋谷区神南1-2-3",
	"Привет, мир! Как дела?",
	"emoji: 😀🚀✅ and symbols ∑ ∞ ≤ ≥",
	"SELECT * FROM users WHERE name = 'O''Brien' AND note LIKE '%\\_%';",
	"<script>alert(\"x\")</script> & more",
	"tab\tseparated\tvalues\r\nwith CRLF",
	"regex: ^\\d{3}-\\d{4}$ and path /a/b\\c",
	"control chars: \x01\x02\x1f end",
	"https://example.com/search?q=go+sse&lang=en#frag",
	"2025-06-30T23:59:59.999Z",
	"Zürich → München → Kraków",
	"a slash / and a backslash \\ and a quote \"",
	"mixed: 日本語テキスト with English and 한국어",
}

// argGen writes one random JSON value at a time into b.
type argGen struct {
	rng *rand.Rand
	b   []byte
}

func (g *argGen) str() {
	var s string
	if g.rng.IntN(3) == 0 {
		s = genText(g.rng, 2, 10)
	} else {
		s = argStrings[g.rng.IntN(len(argStrings))]
	}
	g.b = appendJSONString(g.b, s, g.rng.IntN(4) == 0) // a quarter with \uXXXX escapes
}

func (g *argGen) value(depth int) {
	r := g.rng.IntN(10)
	switch {
	case depth < 3 && r < 2:
		g.object(depth+1, 2+g.rng.IntN(4))
	case depth < 3 && r < 3:
		g.b = append(g.b, '[')
		for i := range 1 + g.rng.IntN(4) {
			if i > 0 {
				g.b = append(g.b, ',')
			}
			g.value(depth + 1)
		}
		g.b = append(g.b, ']')
	case r < 6:
		g.str()
	case r < 8:
		if g.rng.IntN(2) == 0 {
			g.b = fmt.Appendf(g.b, "%d", g.rng.IntN(100000)-5000)
		} else {
			g.b = fmt.Appendf(g.b, "%.6g", g.rng.NormFloat64()*1e3)
		}
	case r < 9:
		if g.rng.IntN(2) == 0 {
			g.b = append(g.b, "true"...)
		} else {
			g.b = append(g.b, "false"...)
		}
	default:
		g.b = append(g.b, "null"...)
	}
}

func (g *argGen) member(depth, i int) {
	if i > 0 {
		g.b = append(g.b, ',')
	}
	g.b = appendJSONString(g.b, fmt.Sprintf("%s_%d", argKeys[g.rng.IntN(len(argKeys))], i), false)
	g.b = append(g.b, ':')
	g.value(depth)
}

func (g *argGen) object(depth, n int) {
	g.b = append(g.b, '{')
	for i := range n {
		g.member(depth, i)
	}
	g.b = append(g.b, '}')
}

// genArgs is one compact JSON object of about target bytes: nested objects
// and arrays, numbers, booleans, nulls and hard strings.
func genArgs(rng *rand.Rand, target int) string {
	g := &argGen{rng: rng}
	g.b = append(g.b, '{')
	for i := 0; len(g.b) < target-40; i++ {
		g.member(0, i)
	}
	g.b = append(g.b, '}')
	return string(g.b)
}

// splitFragments cuts s into pieces of minN..maxN bytes, each extended to
// the next rune boundary (providers never send half a rune).
func splitFragments(rng *rand.Rand, s string, minN, maxN int) []string {
	var out []string
	for i := 0; i < len(s); {
		j := i + minN + rng.IntN(maxN-minN+1)
		if j >= len(s) {
			j = len(s)
		} else {
			for j < len(s) && !utf8.RuneStart(s[j]) {
				j++
			}
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}
