package typedjson

import (
	"strings"
	"testing"
)

// An array type's schema says minItems = maxItems = its length; Decode
// refuses what the schema refuses, so it refuses too few or too many
// elements (encoding/json would zero-fill the missing ones and drop the
// extra ones silently), at any depth.
func TestReviewDecodeArrayLength(t *testing.T) {
	type in struct {
		Pair  [2]int             `json:"pair"`
		Grids [][2]string        `json:"grids,omitempty"`
		Named map[string][1]bool `json:"named,omitempty"`
	}
	tests := []struct{ data, want string }{
		{`{"pair":[1,2]}`, ""},
		{`{"pair":[1,2],"grids":[["a","b"],["c","d"]],"named":{"x":[true]}}`, ""},
		{`{"pair":[1]}`, `the member "pair" has 1 item; it takes exactly 2`},
		{`{"pair":[]}`, `the member "pair" has 0 items; it takes exactly 2`},
		{`{"pair":[1,2,3]}`, `the member "pair" has 3 items; it takes exactly 2`},
		{`{"pair":[1,2],"grids":[["a","b"],["c"]]}`, `the member "grids[1]" has 1 item; it takes exactly 2`},
		{`{"pair":[1,2],"named":{"x":[true,false]}}`, `the member "named.x" has 2 items; it takes exactly 1`},
	}
	for _, tt := range tests {
		var v in
		err := Decode([]byte(tt.data), &v, words)
		if got := errString(err); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.data, got, tt.want)
		}
	}
	// The whole value an array: the schema is not an object, so only a
	// member is ever one; a dense array at the limit still decodes.
	type big struct {
		Many [1000]int `json:"many"`
	}
	data := `{"many":[` + strings.Repeat("1,", 999) + `1]}`
	var b big
	if err := Decode([]byte(data), &b, words); err != nil || b.Many[999] != 1 {
		t.Errorf("1000 items: %v", err)
	}
	data = `{"many":[` + strings.Repeat("1,", 1000) + `1]}`
	if err := Decode([]byte(data), &b, words); err == nil {
		t.Error("1001 items into [1000]int: no error")
	}
}

// A []byte's schema is a (base64) string; encoding/json would also take
// an array of numbers, which the schema refuses, so Decode refuses it.
func TestReviewDecodeBytesAsArray(t *testing.T) {
	type in struct {
		Blob []byte `json:"blob"`
	}
	var v in
	if err := Decode([]byte(`{"blob":"aGk="}`), &v, words); err != nil || string(v.Blob) != "hi" {
		t.Fatalf("base64: %v %q", err, v.Blob)
	}
	err := Decode([]byte(`{"blob":[104,105]}`), &v, words)
	if got, want := errString(err), `the member "blob" is a JSON array, not a base64 string`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
