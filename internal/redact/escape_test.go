package redact

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// escapeRE matches one escape as a reader of the text might take it: a
// JSON escape or a URL %XX.
var escapeRE = regexp.MustCompile(`\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]|%[0-9a-fA-F]{2}`)

// unescapeAll decodes every escape of s, written apart from escape.go so
// the tests do not check the code against itself.
func unescapeAll(s string) string {
	return escapeRE.ReplaceAllStringFunc(s, func(e string) string {
		switch {
		case e[0] == '%':
			b, _ := strconv.ParseUint(e[1:], 16, 8)
			return string([]byte{byte(b)})
		case e[1] == 'u':
			r, _ := strconv.ParseUint(e[2:], 16, 16)
			return string(rune(r))
		}
		u, _ := strconv.Unquote(`"` + e + `"`)
		return u
	})
}

// shows reports that out shows secret, as is or decoded, in a stretch
// between masks.
func shows(out, secret string) bool {
	for _, part := range strings.Split(out, Mask) {
		if strings.Contains(part, secret) || strings.Contains(unescapeAll(part), secret) {
			return true
		}
	}
	return false
}

const escKey = "sk-live-0123456789abcdef" // 24 bytes

// escapedForms are ways a server may echo escKey with some of its plain
// characters escaped.
var escapedForms = map[string]string{
	"JSON escape of the first letter": `\u0073k-live-0123456789abcdef`,
	"JSON escape, lower-case hex":     `sk-live-\u0030123456789\u0061bcdef`,
	"every character JSON-escaped":    jsonEscapeAll(escKey),
	"URL-escaped dashes":              `sk%2Dlive%2D0123456789abcdef`,
	"URL-escaped, lower-case hex":     `sk%2dlive%2d0123456789abcdef`,
	"every byte URL-escaped":          urlEscapeAll(escKey),
	"JSON and URL escapes mixed":      `\u0073k%2Dlive-\u00301%32%33456789abcdef`,
}

func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

func urlEscapeAll(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// TestSetEscapedEchoes: a key echoed with plain characters escaped, in
// JSON or in a URL, is the key; the whole escaped stretch is replaced.
func TestSetEscapedEchoes(t *testing.T) {
	s := New(escKey)
	for name, echo := range escapedForms {
		t.Run(name, func(t *testing.T) {
			if unescapeAll(echo) != escKey {
				t.Fatalf("the form %q does not decode to the key", echo)
			}
			in := `{"error":{"message":"bad key ` + echo + ` given"}}`
			want := `{"error":{"message":"bad key ` + Mask + ` given"}}`
			if got := s.String(in); got != want {
				t.Errorf("String = %q, want %q", got, want)
			}
			if !s.Contains(in) {
				t.Error("Contains = false")
			}
			if got := Excerpt([]byte(in), ExcerptBytes, s); shows(got, escKey) {
				t.Errorf("Excerpt = %q", got)
			}
		})
	}
	// An escape that stands for something else is left alone.
	for _, in := range []string{`\u0073k-live-0123456789abcdeF`, `sk%2Elive-0123456789abcdef`, `100% sure \n`} {
		if got := s.String(in); got != in || s.Contains(in) {
			t.Errorf("String(%q) = %q; want it unchanged", in, got)
		}
	}
}

// TestSetHeadEscaped: cut anywhere in an escaped echo, the head shows no
// start of the key, however the cut falls (inside an escape too).
func TestSetHeadEscaped(t *testing.T) {
	s := New(escKey)
	for name, echo := range escapedForms {
		for i := 1; i < len(echo); i++ {
			head := "bad key " + echo[:i]
			got := string(s.Head([]byte(head)))
			if got != "bad key " {
				t.Errorf("%s cut after %d bytes: Head = %q, want %q", name, i, got, "bad key ")
			}
		}
	}
}

// TestSetTail: the end of a longer text that starts inside a key, as is
// or escaped, shows no part of it, wherever the cut falls; a whole key is
// masked; text that only looks like a key's end is kept.
func TestSetTail(t *testing.T) {
	s := New(escKey)
	forms := map[string]string{"as is": escKey}
	for k, v := range escapedForms {
		forms[k] = v
	}
	for name, echo := range forms {
		whole := `{"key":"` + echo + `","pad":"xyz`
		if got := string(s.Tail([]byte(whole))); got != `{"key":"`+Mask+`","pad":"xyz` {
			t.Errorf("%s whole: Tail = %q", name, got)
		}
		for i := 1; i < len(echo); i++ {
			text := echo[i:] + `","pad":"xyz`
			got := string(s.Tail([]byte(text)))
			if got != `","pad":"xyz` {
				t.Errorf("%s cut %d bytes in: Tail(%q) = %q, want %q", name, i, text, got, `","pad":"xyz`)
			}
		}
	}
	for _, in := range []string{"", "nothing here", `","pad"`, "xyz sk-live"} {
		if got := string(s.Tail([]byte(in))); got != in {
			t.Errorf("Tail(%q) = %q; want it unchanged", in, got)
		}
	}
	var none *Set
	if got := string(none.Tail([]byte("ef"))); got != "ef" {
		t.Errorf("a nil Set changed the text: %q", got)
	}
}

// TestSetEscapedLinear: the decoded reading costs the same per byte for a
// text of escapes ten times as long.
func TestSetEscapedLinear(t *testing.T) {
	s := New(escKey, "another-secret-value", "third-secret-value-xyz")
	text := strings.Repeat(`\u0073k-live-012345678%2`, 1000)
	allocs := func(text string) float64 {
		return testing.AllocsPerRun(5, func() { s.String(text) })
	}
	if a, b := allocs(text), allocs(strings.Repeat(text, 10)); b > a+2 {
		t.Errorf("allocations %v at n, %v at 10n", a, b)
	}
}

// BenchmarkSetEscaped measures String over a text full of escapes.
func BenchmarkSetEscaped(b *testing.B) {
	s := New(escKey, "another-secret-value")
	for _, n := range []int{1 << 10, 10 << 10} {
		text := strings.Repeat(`{"m":"\u0073k-live-012345678 %2D \n"}`, n/38)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				s.String(text)
			}
		})
	}
}

// FuzzSetEscaped checks that a secret echoed with any of its characters
// escaped, JSON or URL style, never shows decoded in String's output,
// nor any start of it in Head's output cut anywhere inside the echo, nor
// any end of it in Tail's output cut anywhere inside it.
func FuzzSetEscaped(f *testing.F) {
	f.Add("error: ", " is wrong", "sk-live-0123456789", []byte{1, 2, 0, 3})
	f.Add(`{"m":"`, `"}`, "AIzaSy-key-value", []byte{2, 2, 2, 2, 2})
	f.Add("", "", "tok/with+plus==", []byte{0, 1})
	f.Add("100%", " off", "abcd-live-0123456789", []byte{0, 0, 0, 0, 2}) // a literal '%' before the echo
	f.Add(`C:\`, "", "u0041-live-0123456789", []byte{0, 1})              // a literal '\' before it
	f.Add("x%4", "", "1bcd-live-0123456789", []byte{0, 0, 2})            // an escape begun before it
	f.Add(`p \`, "", "sk-live-0123456789", []byte{1, 0})                 // "\\" then an escape
	f.Fuzz(func(t *testing.T, before, after, secret string, how []byte) {
		secret = strings.TrimSpace(secret)
		// The check below runs Head and Tail at every cut, quadratic in the
		// echo: a long secret would only time the fuzz worker out.
		if len(secret) < MinSecretBytes || len(secret) > 256 || !utf8.ValidString(secret) || strings.ContainsAny(secret, `%\`) ||
			strings.Contains(secret, Mask) || strings.Contains(Mask, secret) {
			return // a raw '%' or '\' beside escaped characters is out of scope
		}
		var echo strings.Builder
		k := 0
		for _, r := range secret {
			mode := byte(0)
			if len(how) > 0 {
				mode = how[k%len(how)]
			}
			k++
			switch {
			case mode%3 == 1 && r < 0x10000:
				fmt.Fprintf(&echo, `\u%04X`, r)
			case mode%3 == 2:
				var buf [utf8.UTFMax]byte
				for _, c := range utf8.AppendRune(buf[:0], r) {
					fmt.Fprintf(&echo, "%%%02x", c)
				}
			default:
				echo.WriteRune(r)
			}
		}
		e := echo.String()
		s := New(secret)
		if got := s.String(before + e + after); shows(got, secret) {
			t.Fatalf("String(%q) = %q shows the secret", before+e+after, got)
		}
		for i := 1; i < len(e); i++ {
			// What Head keeps before any mask is a part of before; what
			// Tail keeps after the last mask is a part of after.
			head := string(s.Head([]byte(before + e[:i])))
			if k := strings.Index(head, Mask); k >= 0 {
				head = head[:k]
			}
			if !strings.HasPrefix(before, head) {
				t.Fatalf("Head(%q) = %q shows the start of the secret", before+e[:i], head)
			}
			tail := string(s.Tail([]byte(e[i:] + after)))
			if k := strings.LastIndex(tail, Mask); k >= 0 {
				tail = tail[k+len(Mask):]
			}
			if !strings.HasSuffix(after, tail) {
				t.Fatalf("Tail(%q) = %q shows the end of the secret", e[i:]+after, tail)
			}
		}
	})
}
