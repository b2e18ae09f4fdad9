package jsonscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestSkipValueDepth: nesting is accepted at MaxDepth and one below, as
// encoding/json accepts it, and refused one above with ErrDepth.
func TestSkipValueDepth(t *testing.T) {
	for _, tc := range []struct {
		depth int
		err   error
	}{{MaxDepth - 1, nil}, {MaxDepth, nil}, {MaxDepth + 1, ErrDepth}} {
		d := []byte(strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth))
		end, err := SkipValue(d, 0, 0)
		if !errors.Is(err, tc.err) || err == nil && end != len(d) {
			t.Errorf("depth %d: end %d, err %v; want %v", tc.depth, end, err, tc.err)
		}
		if json.Valid(d) != (tc.err == nil) {
			t.Errorf("depth %d: encoding/json disagrees", tc.depth)
		}
	}
}

// TestWalkEvent: an event is one JSON object; anything else, or anything
// after it, is an error at its offset, and the members come in order.
func TestWalkEvent(t *testing.T) {
	for _, tc := range []struct {
		data string
		keys string
		at   int
		err  error
	}{
		{`{"a":1,"b":[true]}`, "a,b", 18, nil},
		{` [1] `, "", 1, ErrNotObject},
		{`{"a":1} x`, "a", 8, ErrTrailing},
		{`{"a":1 "b":2}`, "a", 7, ErrSyntax},
	} {
		var doc Doc
		var keys []string
		at, err := WalkEvent(&doc, &keys, []byte(tc.data), func(k *[]string, key []byte, i, depth int) (int, error) {
			*k = append(*k, string(key))
			return SkipValue(doc.Data, i, depth)
		})
		if !errors.Is(err, tc.err) || at != tc.at || strings.Join(keys, ",") != tc.keys {
			t.Errorf("%s: at %d, err %v, keys %q; want %d, %v, %q", tc.data, at, err, keys, tc.at, tc.err, tc.keys)
		}
	}
}

// TestAppendStringUTF8Invalid: text not known to be valid UTF-8 decodes
// as encoding/json decodes it, each invalid byte a U+FFFD, whether the bad
// bytes end the string, sit before an escape or run on into more text.
func TestAppendStringUTF8Invalid(t *testing.T) {
	for _, s := range []string{
		"plain", "héllo wörld", "日本語のテキスト", "\xff", "a\xffb", "\xe6\x97", "\xe6\x97\\\"", "\xe6\x97\\n",
		"\xe6\x97x日", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\xef\xbf\xbd", "\x80\x80\x80abc\xc3",
		"ascii then 8 bytes\xffmore ascii text", "\\u00e9\xc3\xa9\\ud83d\\ude00\xf0\x9f\x98",
	} {
		quoted := `"` + s + `"`
		var want string
		if err := json.Unmarshal([]byte(quoted), &want); err != nil {
			t.Fatalf("%q: encoding/json: %v", s, err)
		}
		got, end, err := AppendStringUTF8(nil, []byte(quoted), 0, false)
		if err != nil || end != len(quoted) || string(got) != want {
			t.Errorf("%q: got %q, %d, %v; want %q, %d", s, got, end, err, want, len(quoted))
		}
	}
}
