package toolcall_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
)

func TestPreviewClosed(t *testing.T) {
	tests := []struct {
		name     string
		partial  string
		closed   string
		complete bool
	}{
		{"nothing yet", ``, ``, false},
		{"only whitespace", ` `, ``, false},
		{"open object", `{`, `{}`, false},
		{"open object and whitespace", `{ `, `{}`, false},
		{"open string value", `{"city":"Par`, `{"city":"Par"}`, false},
		{"key without colon", `{"city"`, `{}`, false},
		{"dangling key after a member", `{"a":1,"ci`, `{"a":1}`, false},
		{"dangling key with colon", `{"a":1,"city":`, `{"a":1}`, false},
		{"dangling key with colon and space", `{"a":1, "city": `, `{"a":1}`, false},
		{"trailing comma in object", `{"a":1,`, `{"a":1}`, false},
		{"trailing comma in array", `[1,2,`, `[1,2]`, false},
		{"open array", `[`, `[]`, false},
		{"nested containers", `{"a":[{"b":[1,{"c":"x`, `{"a":[{"b":[1,{"c":"x"}]}]}`, false},
		{"after a nested value", `{"a":[1]`, `{"a":[1]}`, false},
		{"number in progress", `[12`, `[12]`, false},
		{"number after dot", `[1.`, `[1]`, false},
		{"number after exponent", `[1.5e`, `[1.5]`, false},
		{"number after exponent sign", `[2E-`, `[2]`, false},
		{"lone minus in array", `[1,-`, `[1]`, false},
		{"lone minus at the top", `-`, ``, false},
		{"top-level number", `-12`, `-12`, true},
		{"top-level number after dot", `3.`, `3`, false},
		{"literal in progress", `{"ok":tr`, `{"ok":true}`, false},
		{"null in progress", `[n`, `[null]`, false},
		{"false in progress", `f`, `false`, false},
		{"half an escape", `["a\`, `["a"]`, false},
		{"half a unicode escape", `["a\u00`, `["a"]`, false},
		{"complete escape", `["a\n`, `["a\n"]`, false},
		{"half an escape in a key", `{"a\`, `{}`, false},
		{"complete object", `{"a":1}`, `{"a":1}`, true},
		{"complete object and whitespace", "{\"a\":1}\n", "{\"a\":1}\n", true},
		{"complete top-level string", `"x"`, `"x"`, true},
		{"broken", `{"a":x`, ``, false},
		{"broken after completion", `{}x`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler()
			addAll(t, a, []toolcall.Fragment{{Index: 4, ID: "id", Name: "f", Arguments: tt.partial}})
			p, ok := a.Preview(4)
			if !ok {
				t.Fatal("Preview(4) found nothing")
			}
			if p.Index != 4 || p.ID != "id" || p.Name != "f" || string(p.Partial) != tt.partial {
				t.Errorf("Preview = %+v", p)
			}
			if got := p.Closed(); got != tt.closed {
				t.Errorf("Closed() = %q, want %q", got, tt.closed)
			}
			if got := string(p.AppendClosed([]byte(">"))); got != ">"+tt.closed {
				t.Errorf("AppendClosed(>) = %q, want %q", got, ">"+tt.closed)
			}
			if p.Complete != tt.complete {
				t.Errorf("Complete = %v, want %v", p.Complete, tt.complete)
			}
		})
	}
}

func TestPreviewMissing(t *testing.T) {
	a := toolcall.NewAssembler()
	addAll(t, a, []toolcall.Fragment{{Index: 1, Name: "f"}})
	for _, i := range []int{-1, 0, 2} {
		if p, ok := a.Preview(i); ok {
			t.Errorf("Preview(%d) = %+v, true; want false", i, p)
		}
	}
}

// TestPreviewSnapshot checks that a Preview keeps showing what it showed
// while fragments keep arriving.
func TestPreviewSnapshot(t *testing.T) {
	a := toolcall.NewAssembler()
	addAll(t, a, []toolcall.Fragment{{Index: 0, Name: "f", Arguments: `{"a":"x`}})
	p, _ := a.Preview(0)
	for range 100 { // enough to move the arguments to a bigger buffer
		addAll(t, a, []toolcall.Fragment{{Index: 0, Arguments: `yyyyyyyyyy`}})
	}
	if got := p.Closed(); got != `{"a":"x"}` {
		t.Errorf("Closed() after more fragments = %q", got)
	}
}

// TestPreviewEveryPrefix checks, for every prefix of valid documents, that
// Closed is empty or JSON that encoding/json accepts.
func TestPreviewEveryPrefix(t *testing.T) {
	docs := append([]string{
		`{"a":[1,-2.5e+3,true,false,null,"s\u00e9\n",{"b":{}}],"c":[[]],"d":"日本"}`,
		` [ { "k" : "v" } , 0 , -0.1E-2 ] `,
		`"just a string with \"escapes\" \\ and \ud83d\ude00"`,
	}, genCorpus(7).args...)
	for _, doc := range docs {
		a := toolcall.NewAssembler()
		for i := range len(doc) {
			addAll(t, a, []toolcall.Fragment{{Index: 0, Arguments: doc[i : i+1]}})
			p, _ := a.Preview(0)
			closed := p.Closed()
			if closed != "" && !json.Valid([]byte(closed)) {
				t.Fatalf("prefix %q: Closed() = %q is not JSON", doc[:i+1], closed)
			}
		}
	}
}

// bytesPerRun is the heap bytes f allocates per call, averaged over n calls.
func bytesPerRun(n int, f func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestPreviewPerFragmentCost: taking a Preview after every one-byte
// fragment, as a caller that shows calls forming does, costs the same
// under arguments nested MaxNestingDepth-1 deep as under one level. A
// closing suffix once built per Preview cost O(depth) bytes per fragment:
// 9,999 levels then 200k fragments allocated 8.9 GB.
func TestPreviewPerFragmentCost(t *testing.T) {
	const fragments = 20000
	cost := func(depth int) float64 {
		a := toolcall.NewAssembler(toolcall.WithMaxArgumentBytes(1 << 20))
		addAll(t, a, []toolcall.Fragment{{Index: 0, ID: "id", Name: "f", Arguments: strings.Repeat("[", depth) + `"`}})
		frag := toolcall.Fragment{Index: 0, Arguments: "x"}
		return bytesPerRun(fragments, func() {
			if err := a.Add(frag); err != nil {
				t.Fatal(err)
			}
			p, ok := a.Preview(0)
			if !ok || p.Complete {
				t.Fatalf("Preview = %+v, %v", p, ok)
			}
		})
	}
	shallow, deep := cost(1), cost(toolcall.MaxNestingDepth-1)
	t.Logf("bytes per fragment: depth 1 %.1f, depth %d %.1f", shallow, toolcall.MaxNestingDepth-1, deep)
	// The arguments' buffer grows by doubling: a few bytes per fragment,
	// a little more when it starts longer.
	if deep > 2*shallow+8 {
		t.Errorf("%.1f bytes per fragment at depth %d, %.1f at depth 1: the preview costs O(depth)", deep, toolcall.MaxNestingDepth-1, shallow)
	}
}
