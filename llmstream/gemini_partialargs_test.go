package llmstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airlock-go/airlock/internal/jsonscan"
)

func TestParsePath(t *testing.T) {
	type seg = string // "name" or "[n]"
	for _, tc := range []struct {
		path string
		want []seg // nil: malformed
	}{
		{"$.a", []seg{"a"}},
		{"$.a.b", []seg{"a", "b"}},
		{"$.items[0].name", []seg{"items", "[0]", "name"}},
		{"$.m[12][3]", []seg{"m", "[12]", "[3]"}},
		{"$['odd key']", []seg{"odd key"}},
		{`$["dq"]`, []seg{"dq"}},
		{`$['it\'s']`, []seg{"it's"}},
		{`$['a\\b\n\u00e9\ud83d\ude00']`, []seg{"a\\b\né😀"}},
		{"$[ 'spaced' ][ 2 ]", []seg{"spaced", "[2]"}},
		{"$.my-key.ünï", []seg{"my-key", "ünï"}},
		{"$", []seg{}},
		{"", nil},
		{"a.b", nil},
		{"$.", nil},
		{"$..a", nil},
		{"$.*", nil},
		{"$[*]", nil},
		{"$.a[-1]", nil},
		{"$.a[01]", nil},
		{"$.a[1", nil},
		{"$.a[2147483648]", nil},
		{"$.a[1:2]", nil},
		{"$['open", nil},
		{`$['bad\q']`, nil},
		{`$["mixed\'"]`, nil},
		{`$['\ud800']`, nil},
		{"$['ctl\x01']", nil},
		{"$a", nil},
		{"$.a]", nil},
	} {
		segs, names, err := parsePath([]byte(tc.path), nil, nil)
		if tc.want == nil {
			if !errors.Is(err, ErrArgumentPath) {
				t.Errorf("parsePath(%q) = %v, %v; want ErrArgumentPath", tc.path, segs, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parsePath(%q): %v", tc.path, err)
			continue
		}
		got := []seg{}
		for _, s := range segs {
			if s.isIndex {
				got = append(got, fmt.Sprintf("[%d]", s.index))
			} else {
				got = append(got, string(names[s.name.Start:s.name.End]))
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parsePath(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// leaf is one scalar of an arguments object, as Gemini streams it.
type leaf struct {
	path string
	kind argValue
	raw  string // a number's or literal's text
	str  string // a string's decoded value
}

// leavesOf flattens the JSON object raw into its scalars in document
// order, with paths in dot form where a name allows it (bracketed when
// quoted is set or the name needs it). ok is false for text that is not
// an object or that holds an empty object or array, which partial
// arguments cannot express.
func leavesOf(raw []byte, quoted bool) (out []leaf, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var walk func(path string, open json.Delim) bool
	walk = func(path string, open json.Delim) bool {
		n := 0
		for dec.More() {
			p := path
			if open == '{' {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				p += pathName(k.(string), quoted)
			} else {
				p += fmt.Sprintf("[%d]", n)
			}
			n++
			tok, err := dec.Token()
			if err != nil {
				return false
			}
			switch v := tok.(type) {
			case json.Delim:
				if !walk(p, v) {
					return false
				}
			case string:
				out = append(out, leaf{path: p, kind: argString, str: v})
			case json.Number:
				out = append(out, leaf{path: p, kind: argNumber, raw: v.String()})
			case bool:
				out = append(out, leaf{path: p, kind: argBool, raw: fmt.Sprint(v)})
			case nil:
				out = append(out, leaf{path: p, kind: argNull, raw: "null"})
			}
		}
		if _, err := dec.Token(); err != nil || n == 0 {
			return false // unclosed, or empty: not expressible
		}
		return true
	}
	if !walk("$", '{') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return out, len(out) > 0
}

func pathName(k string, quoted bool) string {
	simple := k != ""
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80 || i > 0 && r >= '0' && r <= '9') {
			simple = false
		}
	}
	if simple && !quoted {
		return "." + k
	}
	var b strings.Builder
	b.WriteString("['")
	for _, r := range k {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString("']")
	return b.String()
}

// jsonContent is s as the content of a JSON string, escapes and all.
func jsonContent(s string) string {
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1])
}

// buildArgs feeds the leaves to a builder, each string cut by cut (the
// piece lengths in bytes of the decoded value, moved to rune starts), and
// returns the text.
func buildArgs(t testing.TB, leaves []leaf, cut func(s string) []string) (string, error) {
	t.Helper()
	var p partialArgs
	out := p.begin(nil)
	for _, l := range leaves {
		segs, names, err := parsePath([]byte(l.path), nil, nil)
		if err != nil {
			t.Fatalf("path %q of a leaf: %v", l.path, err)
		}
		if l.kind != argString {
			if out, err = p.add(out, segs, names, l.kind, []byte(l.raw), false, []byte(l.path)); err != nil {
				return "", err
			}
			continue
		}
		pieces := cut(l.str)
		for i, piece := range pieces {
			if out, err = p.add(out, segs, names, argString, []byte(jsonContent(piece)), i < len(pieces)-1, []byte(l.path)); err != nil {
				return "", err
			}
		}
	}
	return string(p.end(out)), nil
}

// sameJSON compares two JSON texts token by token: the same members in the
// same order, the same values (numbers as written).
func sameJSON(a, b string) bool {
	ta, ea := tokens(a)
	tb, eb := tokens(b)
	return ea == nil && eb == nil && reflect.DeepEqual(ta, tb)
}

func tokens(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out []any
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, tok)
	}
}

// argumentObjects cover every value kind, nesting, arrays of objects and
// of arrays, escapes and multi-byte text.
var argumentObjects = []string{
	`{"a":1}`,
	`{"path":"src/main.go","content":"package main\n\nfunc main() {}\n"}`,
	`{"s":"","n":-0.5e-3,"t":true,"f":false,"z":null,"big":12345678901234567890}`,
	`{"nested":{"deeper":{"deepest":"x","k":[1,2,3]},"after":"y"},"tail":0}`,
	`{"items":[{"name":"é","qty":2},{"name":"日本語","qty":0,"tags":["a","b"]}],"n":[[1,2],[3,[4,5]]]}`,
	`{"odd key":"v","it's":"w","dot.ted":1,"br[ack]et":2,"":3,"ctl\u0001":4}`,
	`{"emoji":"😀 family: 👨‍👩‍👧","quote":"\"quoted\" \\ back\\slash","tab":"a\tb","nul":"\u0000","sep":"\u2028"}`,
	`{"a":{"b":{"c":{"d":{"e":{"f":"deep"}}}}},"arr":[[[["x"]]]]}`,
}

// TestPartialArgsWholeEquivalence: for every object, the arguments built
// from its leaves equal the object — with every string whole, one rune at
// a time, split in two at every rune, and with bracketed names.
func TestPartialArgsWholeEquivalence(t *testing.T) {
	cutters := map[string]func(string) []string{
		"whole":   func(s string) []string { return []string{s} },
		"runes":   runePieces,
		"empties": func(s string) []string { return append(append([]string{""}, runePieces(s)...), "") },
	}
	for _, obj := range argumentObjects {
		for _, quoted := range []bool{false, true} {
			leaves, ok := leavesOf([]byte(obj), quoted)
			if !ok {
				t.Fatalf("%s: no leaves", obj)
			}
			for name, cut := range cutters {
				got, err := buildArgs(t, leaves, cut)
				if err != nil || !sameJSON(got, obj) {
					t.Errorf("%s (%s, quoted %v): got %s, %v", obj, name, quoted, got, err)
				}
			}
			// Every string split in two at every rune boundary.
			for li, l := range leaves {
				if l.kind != argString {
					continue
				}
				for at := 0; at <= len(l.str); at++ {
					if at < len(l.str) && !utf8.RuneStart(l.str[at]) {
						continue
					}
					target := li
					got, err := buildArgs(t, leaves, func(s string) []string {
						if s != leaves[target].str {
							return []string{s}
						}
						return []string{s[:at], s[at:]}
					})
					if err != nil || !sameJSON(got, obj) {
						t.Fatalf("%s: leaf %d split at %d: got %s, %v", obj, li, at, got, err)
					}
				}
			}
		}
	}
}

func runePieces(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// TestPartialArgsSurrogateSplit: a surrogate pair escaped and cut between
// its halves joins up, since the pieces are kept as JSON text.
func TestPartialArgsSurrogateSplit(t *testing.T) {
	var p partialArgs
	segs, names, _ := parsePath([]byte("$.e"), nil, nil)
	out := p.begin(nil)
	out, err1 := p.add(out, segs, names, argString, []byte(`\ud83d`), true, nil)
	out, err2 := p.add(out, segs, names, argString, []byte(`\ude00!`), false, nil)
	out = p.end(out)
	var v struct{ E string }
	if err := json.Unmarshal(out, &v); err1 != nil || err2 != nil || err != nil || v.E != "😀!" {
		t.Fatalf("%s: %q, %v %v %v", out, v.E, err1, err2, err)
	}
}

// TestPartialArgsRefused: every way a leaf can fail to fit is an error
// matching ErrArgumentPath, and the text built so far stays as it was.
func TestPartialArgsRefused(t *testing.T) {
	type op struct {
		path string
		kind argValue
		raw  string
		more bool
	}
	str := func(path, s string) op { return op{path, argString, s, false} }
	num := func(path string) op { return op{path, argNumber, "1", false} }
	for _, tc := range []struct {
		name string
		ops  []op // the last one is refused
	}{
		{"the same member twice", []op{num("$.a"), num("$.a")}},
		{"a string member set again", []op{str("$.a", "x"), str("$.a", "y")}},
		{"back into a closed object", []op{num("$.a.b"), num("$.c"), num("$.a.d")}},
		{"back into a closed array", []op{num("$.a[0]"), num("$.c"), num("$.a[1]")}},
		{"an array element written twice", []op{num("$.a[0]"), num("$.a[0]")}},
		{"an array index that skips", []op{num("$.a[0]"), num("$.a[2]")}},
		{"a new array not starting at 0", []op{num("$.a[1]")}},
		{"a new nested array not starting at 0", []op{num("$.a.b[3].c")}},
		{"a scalar then used as an object", []op{num("$.a"), num("$.a.b")}},
		{"an object then used as an array", []op{num("$.a.b"), num("$.a[0]")}},
		{"the root itself", []op{num("$")}},
		{"the root as an array", []op{num("$[0]")}},
		{"no value", []op{{"$.a", argNone, "", false}}},
		{"a number into a continuing string", []op{{"$.a", argString, "x", true}, num("$.a")}},
		{"too deep", []op{num("$" + strings.Repeat(".a", jsonscan.MaxDepth))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p partialArgs
			out := p.begin(nil)
			for i, o := range tc.ops {
				segs, names, err := parsePath([]byte(o.path), nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				before := string(out)
				out, err = p.add(out, segs, names, o.kind, []byte(o.raw), o.more, []byte(o.path))
				if i < len(tc.ops)-1 {
					if err != nil {
						t.Fatalf("op %d (%s): %v", i, o.path, err)
					}
					continue
				}
				if !errors.Is(err, ErrArgumentPath) || string(out) != before {
					t.Fatalf("op %s: err %v, text %q then %q", o.path, err, before, out)
				}
			}
		})
	}
}

// TestPartialArgsStringEnds: a continuing string ends at its last piece,
// at a piece with no value and willContinue false, at another path's
// value, and at the end of the call.
func TestPartialArgsStringEnds(t *testing.T) {
	type op struct {
		path string
		kind argValue
		raw  string
		more bool
	}
	for _, tc := range []struct {
		name string
		ops  []op
		want string
	}{
		{"last piece", []op{{"$.a", argString, "x", true}, {"$.a", argString, "y", false}, {"$.b", argNumber, "1", false}}, `{"a":"xy","b":1}`},
		{"a piece with no value", []op{{"$.a", argString, "x", true}, {"$.a", argNone, "", false}}, `{"a":"x"}`},
		{"another path", []op{{"$.a", argString, "x", true}, {"$.b", argBool, "true", false}}, `{"a":"x","b":true}`},
		{"end of the call", []op{{"$.a.b[0]", argString, "x", true}}, `{"a":{"b":["x"]}}`},
		{"array element strings", []op{{"$.a[0]", argString, "p", true}, {"$.a[0]", argString, "q", false}, {"$.a[1]", argString, "r", false}}, `{"a":["pq","r"]}`},
	} {
		var p partialArgs
		out := p.begin(nil)
		for _, o := range tc.ops {
			segs, names, _ := parsePath([]byte(o.path), nil, nil)
			var err error
			if out, err = p.add(out, segs, names, o.kind, []byte(o.raw), o.more, []byte(o.path)); err != nil {
				t.Fatalf("%s: %s: %v", tc.name, o.path, err)
			}
		}
		if got := string(p.end(out)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestPartialArgsReuse: begin resets everything a previous call left.
func TestPartialArgsReuse(t *testing.T) {
	var p partialArgs
	segs, names, _ := parsePath([]byte("$.a"), nil, nil)
	out := p.begin(nil)
	out, _ = p.add(out, segs, names, argString, []byte("x"), true, nil)
	out = p.begin(out[:0])
	out, err := p.add(out, segs, names, argNumber, []byte("2"), false, nil)
	if got := string(p.end(out)); err != nil || got != `{"a":2}` {
		t.Fatalf("%s, %v", got, err)
	}
}

// FuzzPartialArgs: any JSON object built from its leaves, with strings
// cut at random rune boundaries, is the object again; and any sequence of
// paths and values either fails with ErrArgumentPath or builds valid JSON.
func FuzzPartialArgs(f *testing.F) {
	for _, obj := range argumentObjects {
		f.Add([]byte(obj), uint64(len(obj)))
	}
	f.Add([]byte("$.a\ns x\n$.a[0]\nn 1\n$['b'].c\nt\n$.a\nz"), uint64(3))
	f.Add([]byte("$.x\nS ab\n$.x\nS cd\n$.x\ns e\n$.y[0][0]\nn -1.5"), uint64(9))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 7))
		if json.Valid(data) {
			if leaves, ok := leavesOf(data, seed%2 == 0); ok && !duplicateKeys(data) {
				got, err := buildArgs(t, leaves, func(s string) []string { return randomPieces(s, rng) })
				if err != nil || !sameJSON(got, string(data)) {
					t.Fatalf("%s: built %s, %v", data, got, err)
				}
			}
		}
		// data as lines: a path, then a value ("s text", "S text" for a
		// piece with more to come, "n 1", "t", "f", "z" for null, "-"
		// for none).
		lines := strings.Split(string(data), "\n")
		var p partialArgs
		out := p.begin(nil)
		for i := 0; i+1 < len(lines); i += 2 {
			segs, names, err := parsePath([]byte(lines[i]), nil, nil)
			if err != nil {
				if !errors.Is(err, ErrArgumentPath) {
					t.Fatalf("parsePath(%q): untyped %v", lines[i], err)
				}
				continue
			}
			v := lines[i+1]
			kind, raw, more := argNone, "", false
			switch {
			case strings.HasPrefix(v, "s "), strings.HasPrefix(v, "S "):
				kind, raw, more = argString, jsonContent(v[2:]), v[0] == 'S'
			case strings.HasPrefix(v, "n "):
				kind, raw = argNumber, v[2:]
				if !json.Valid([]byte(raw)) || !strings.ContainsAny(raw[:1], "-0123456789") {
					continue
				}
			case v == "t":
				kind, raw = argBool, "true"
			case v == "f":
				kind, raw = argBool, "false"
			case v == "z":
				kind, raw = argNull, "null"
			}
			before := string(out)
			out, err = p.add(out, segs, names, kind, []byte(raw), more, []byte(lines[i]))
			if err != nil {
				if !errors.Is(err, ErrArgumentPath) || string(out) != before {
					t.Fatalf("add(%q, %q): %v, text changed: %v", lines[i], v, err, string(out) != before)
				}
			}
		}
		if res := p.end(out); !json.Valid(res) || res[0] != '{' {
			t.Fatalf("built invalid arguments %q", res)
		}
	})
}

// duplicateKeys reports an object with a member name twice in one object,
// which partial arguments refuse by design.
func duplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj  bool
		seen map[string]bool
		key  bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.obj && top.key {
			if top.seen[s] {
				return true
			}
			top.seen[s] = true
			top.key = false
			continue
		}
		if top != nil && top.obj {
			top.key = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, seen: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
		}
	}
}

// randomPieces cuts s into pieces at random rune boundaries.
func randomPieces(s string, rng *rand.Rand) []string {
	var out []string
	for len(s) > 0 {
		n := 1 + rng.IntN(len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	if len(out) == 0 || rng.IntN(4) == 0 {
		out = append(out, "")
	}
	return out
}

// A member costs the builder one allocation (its name in the set of names
// taken), however long the name: the key buffer is reused, not regrown for
// every name longer than the four bytes of its object's number.
func TestPartialArgsAllocsPerMember(t *testing.T) {
	const members = 1000
	paths := make([][]byte, members)
	for i := range paths {
		paths[i] = fmt.Appendf(nil, "$.a_long_member_name_%d", i)
	}
	var p partialArgs
	var dst, names []byte
	var segs []pathSeg
	allocs := testing.AllocsPerRun(5, func() {
		dst = p.begin(dst[:0])
		for _, path := range paths {
			var err error
			segs, names, err = parsePath(path, segs[:0], names[:0])
			if err != nil {
				t.Fatal(err)
			}
			if dst, err = p.add(dst, segs, names, argNumber, []byte("1"), false, path); err != nil {
				t.Fatal(err)
			}
		}
		dst = p.end(dst)
	})
	// One per member, and a few for the set's growth.
	if max := float64(members) * 1.1; allocs > max {
		t.Errorf("%v allocations for %d members; want at most %v", allocs, members, max)
	}
}
