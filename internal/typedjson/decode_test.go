package typedjson

import (
	"encoding/json"
	"testing"
	"time"
)

type (
	Base struct {
		ID string `json:"id"`
	}
	decodeIn struct {
		Base
		When  time.Time          `json:"when"`
		Raw   json.RawMessage    `json:"raw"`
		Any   any                `json:"any"`
		Tags  map[string]int     `json:"tags"`
		Ptrs  []*int             `json:"ptrs"`
		Blob  []byte             `json:"blob,omitempty"`
		Grid  [2][]string        `json:"grid,omitzero"`
		Named map[string]*string `json:"named,omitempty"`
	}
)

var words = Words{Member: "member", Whole: "the answer", Unknown: "is not in the schema"}

// TestDecode: the rules past what agentloop's table covers — embedded
// members, types that take any JSON (null too), map values and array
// elements, and names compared exactly at every depth.
func TestDecode(t *testing.T) {
	const ok = `"id":"x","when":"2026-01-02T03:04:05Z","raw":null,"any":{"Deep":[null]},"tags":{"a":1},"ptrs":[null,2]`
	tests := []struct{ data, want string }{
		{`{` + ok + `}`, ""},
		{`{` + ok + `,"blob":null,"named":{"a":null}}`, ""},
		{`{` + ok + `,"ID":"y"}`, `the member "ID" is not in the schema; names are exact: "id"`},
		{`{` + ok + `,"Base":{}}`, `the member "Base" is not in the schema`},
		{`{"id":"x","when":null,"raw":1,"any":1,"tags":{},"ptrs":[]}`, `the member "when" is null; it is required and takes a date-time string`},
		{`{"id":"x","when":"2026-01-02T03:04:05Z","raw":1,"any":1,"tags":{"a":null},"ptrs":[]}`, `the member "tags.a" is null; it is required and takes an integer in the range of int`},
		{`{"id":"x","when":"2026-01-02T03:04:05Z","raw":1,"any":1,"tags":{"a":1,"a":2},"ptrs":[]}`, `the member "tags.a" is given twice; send it once`},
		{`{` + ok + `,"grid":[["a"],null]}`, `the member "grid[1]" is null; it is required and takes an array`},
		{`{` + ok + `,"grid":[["a"],[null]]}`, `the member "grid[1][0]" is null; it is required and takes a string`},
		{`{"id":"x","when":"2026-01-02T03:04:05Z","raw":1,"any":1,"tags":null,"ptrs":[]}`, `the member "tags" is null; it is required and takes an object`},
		{`{"id":"x","when":"2026-01-02T03:04:05Z","raw":1,"any":1,"tags":{},"ptrs":[],"grid":{"a":1}}`, `the member "grid" is a JSON object, not an array`},
		{`{"id":"x","when":"2026-01-02T03:04:05Z","raw":1,"any":1,"tags":{}}`, `the member "ptrs" is missing`},
	}
	for _, tt := range tests {
		var v decodeIn
		err := Decode([]byte(tt.data), &v, words)
		if got := errString(err); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.data, got, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
