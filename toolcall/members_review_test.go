package toolcall_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
)

// parsePath reads a Members path back into its steps: a key (string) or
// an index (int). It fails on anything the doc does not describe, so a
// path that reads two ways, or not at all, fails the test.
func parsePath(p string) ([]any, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("no $")
	}
	var steps []any
	for rest := p[1:]; rest != ""; {
		switch {
		case rest[0] == '.':
			n := 1
			for n < len(rest) && rest[n] != '.' && rest[n] != '[' {
				n++
			}
			steps = append(steps, rest[1:n])
			rest = rest[n:]
		case strings.HasPrefix(rest, `["`):
			// The quoted key ends at the first unescaped quote.
			n := 2
			for n < len(rest) && rest[n] != '"' {
				if rest[n] == '\\' {
					n++
				}
				n++
			}
			if n >= len(rest) || n+1 >= len(rest) || rest[n+1] != ']' {
				return nil, fmt.Errorf("unterminated key in %q", p)
			}
			var k string
			if err := json.Unmarshal([]byte(rest[1:n+1]), &k); err != nil {
				return nil, err
			}
			steps = append(steps, k)
			rest = rest[n+2:]
		case rest[0] == '[':
			n := strings.IndexByte(rest, ']')
			i, err := strconv.Atoi(rest[1:max(n, 1)])
			if n < 0 || err != nil {
				return nil, fmt.Errorf("bad index in %q", p)
			}
			steps = append(steps, i)
			rest = rest[n+1:]
		default:
			return nil, fmt.Errorf("bad step %q in %q", rest, p)
		}
	}
	return steps, nil
}

// spell writes key as a JSON string, escaping each rune at random: as
// itself where JSON lets it, as \uXXXX (surrogate pairs beyond the BMP),
// or by its short escape.
func spell(r *rand.Rand, key string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range key {
		switch {
		case r.IntN(3) == 0 && c < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, c)
		case r.IntN(3) == 0 && c >= 0x10000:
			c -= 0x10000
			fmt.Fprintf(&b, `\u%04X\u%04X`, 0xD800+(c>>10), 0xDC00+(c&0x3FF))
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestReviewMembersPathsReadBack: keys of dots, brackets, quotes,
// backslashes, control bytes, digits first, unicode, spelled with and
// without escapes, nested in objects and arrays: every path reads back
// one way, to the keys and indexes that lead to the value, whatever the
// spelling.
func TestReviewMembersPathsReadBack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "Z", "_", "0", "9", ".", "[", "]", `"`, `\`, "$", " ", "\t", "\u00e9", "\U0001F600", "\u2028", "[0]", `"]`, `["`, "'"}
	for round := 0; round < 2000; round++ {
		var keys []string
		for range 1 + r.IntN(3) {
			var k strings.Builder
			for range r.IntN(4) {
				k.WriteString(pieces[r.IntN(len(pieces))])
			}
			keys = append(keys, k.String())
		}
		// {"k0":[{"k1":[... "k_last":7 ...]}]}: each key's value is an
		// array of one object, but the last, which is 7.
		var text strings.Builder
		var want []any
		for i, k := range keys {
			text.WriteString("{" + spell(r, k) + ":")
			want = append(want, k)
			if i < len(keys)-1 {
				text.WriteString("[")
				want = append(want, 0)
			}
		}
		text.WriteString("7")
		for i := len(keys) - 1; i >= 0; i-- {
			text.WriteString("}")
			if i > 0 {
				text.WriteString("]")
			}
		}
		pairs, err := memberPairs(text.String(), nil, true)
		if err != nil {
			t.Fatalf("%s: %v", text.String(), err)
		}
		got, err := parsePath(pairs[0][0])
		if err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) || pairs[0][1] != "7" {
			t.Fatalf("%s: first event %s=%s reads back as %#v (%v), want %#v", text.String(), pairs[0][0], pairs[0][1], got, err, want)
		}
	}
}

// TestReviewMembersSameKeyTwoSpellings documents a consequence of paths
// keeping a key "as the text spelled it": one key spelled two ways has
// two paths.
func TestReviewMembersSameKeyTwoSpellings(t *testing.T) {
	a, _ := memberPairs(`{"a b":1}`, nil, true)
	b, _ := memberPairs(`{"a\u0020b":1}`, nil, true)
	if a[0][0] == b[0][0] {
		t.Fatalf("same path %s; the doc says the spelling is kept", a[0][0])
	}
}

// TestReviewMembersTruncatedNeverEarly: for every prefix of dense texts,
// the events so far are a prefix of the whole text's, each a complete
// JSON value; End on a cut text adds none and fails. A bare number is the
// documented exception: End completes it.
func TestReviewMembersTruncatedNeverEarly(t *testing.T) {
	texts := []string{
		`{"n":123,"f":-1.5e+10,"t":true,"u":null,"s":"a\"b\\","e":[],"o":{},"x":[1,[2,[3]]],"k\u00e9y":"\ud83d\ude00"}`,
		`[0,-0,1e1,1E-1,false,"",[[[]]],{"a":{"b":0}}]`,
		`  {"a" : [ 1 , 2 ] , "b" : "c" }  `,
		`"just a string"`, `true`, `null`, `[]`,
	}
	for _, text := range texts {
		whole, err := memberEvents(text, nil, true)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		for cut := 0; cut < len(strings.TrimRight(text, " ")); cut++ {
			got, err := memberEvents(text[:cut], nil, false)
			if err != nil || len(got) > len(whole) || !slices.Equal(got, whole[:len(got)]) {
				t.Fatalf("%s cut at %d: %q (%v), not a prefix of %q", text, cut, got, err, whole)
			}
			ended, err := memberEvents(text[:cut], nil, true)
			if !errors.Is(err, toolcall.ErrInvalidArguments) || !slices.Equal(ended, got) {
				t.Fatalf("%s cut at %d, ended: %q, %v; want %q and ErrInvalidArguments", text, cut, ended, err, got)
			}
			for _, e := range got {
				if v := e[strings.IndexByte(e, '=')+1:]; !json.Valid([]byte(v)) {
					t.Fatalf("%s cut at %d: event %s is not a complete value", text, cut, e)
				}
			}
		}
	}
}

// TestReviewMembersSizeLimit: a text of exactly the limit is taken, one
// byte over is refused with nothing applied, however it is split.
func TestReviewMembersSizeLimit(t *testing.T) {
	text := `{"a":[1,2,3],"b":"xyz"}`
	for _, max := range []int{len(text) - 1, len(text), len(text) + 1} {
		for split := 0; split <= len(text); split++ {
			got, err := memberEvents(text, []int{split}, true, toolcall.WithMaxArgumentBytes(max))
			var le *toolcall.LimitError
			if max >= len(text) {
				if err != nil || len(got) != 6 {
					t.Fatalf("max %d split %d: %q, %v; want all 6 events", max, split, got, err)
				}
				continue
			}
			if !errors.As(err, &le) || !errors.Is(err, toolcall.ErrArgumentsTooLarge) || le.Index != -1 || le.Max != max {
				t.Fatalf("max %d split %d: err %v, want a LimitError", max, split, err)
			}
			var whole []string
			if split <= max {
				whole, _ = memberEvents(text[:split], nil, false)
			}
			if !slices.Equal(got, whole) {
				t.Fatalf("max %d split %d: events %q, want only those of the first piece %q", max, split, got, whole)
			}
		}
	}
}

// TestReviewMembersDepth: MaxNestingDepth levels are taken, one more is
// refused as ErrInvalidArguments, for arrays and objects alike.
func TestReviewMembersDepth(t *testing.T) {
	for _, depth := range []int{toolcall.MaxNestingDepth - 1, toolcall.MaxNestingDepth, toolcall.MaxNestingDepth + 1} {
		for _, open := range []string{"[", `{"k":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			text := strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)
			n := 0
			m := toolcall.NewMembers(func(toolcall.Member) error { n++; return nil }, toolcall.WithMaxArgumentBytes(-1))
			_, err := m.Write([]byte(text))
			if err == nil {
				err = m.End()
			}
			if ok := depth <= toolcall.MaxNestingDepth; ok != (err == nil) || !ok && !errors.Is(err, toolcall.ErrInvalidArguments) {
				t.Fatalf("depth %d of %q: err %v", depth, open, err)
			}
			if err == nil && n != depth+1 {
				t.Fatalf("depth %d of %q: %d events, want %d", depth, open, n, depth+1)
			}
		}
	}
}
