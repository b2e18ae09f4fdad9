package toolcall_test

import (
	"encoding/json"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// addAll adds frags to a and fails the test on the first error.
func addAll(tb testing.TB, a *toolcall.Assembler, frags []toolcall.Fragment) {
	tb.Helper()
	for i, f := range frags {
		if err := a.Add(f); err != nil {
			tb.Fatalf("Add(fragment %d = %+v): %v", i, f, err)
		}
	}
}

// mustFinalize returns a's calls and fails the test on an error.
func mustFinalize(tb testing.TB, a *toolcall.Assembler) []toolcall.Call {
	tb.Helper()
	calls, err := a.Finalize()
	if err != nil {
		tb.Fatalf("Finalize: %v", err)
	}
	return calls
}

func TestAssemblerRules(t *testing.T) {
	type F = toolcall.Fragment
	type C = toolcall.Call
	tests := []struct {
		name  string
		opts  []toolcall.Option
		frags []F
		want  []C
	}{
		{
			name: "seed: one call in three fragments",
			frags: []F{
				{Index: 0, ID: "call_1", Type: "function", Name: "get_weather", Arguments: `{"city":`},
				{Index: 0, Arguments: `"Paris"`},
				{Index: 0, Arguments: `}`},
			},
			want: []C{{Index: 0, ID: "call_1", Type: "function", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		},
		{
			name: "seed: two interleaved calls",
			frags: []F{
				{Index: 0, ID: "call_a", Name: "read", Arguments: `{"pa`},
				{Index: 1, ID: "call_b", Name: "write", Arguments: `{"pa`},
				{Index: 1, Arguments: `th":"b"}`},
				{Index: 0, Arguments: `th":"a"}`},
			},
			want: []C{
				{Index: 0, ID: "call_a", Type: "function", Name: "read", Arguments: `{"path":"a"}`},
				{Index: 1, ID: "call_b", Type: "function", Name: "write", Arguments: `{"path":"b"}`},
			},
		},
		{
			name: "ascending index order whatever the arrival order",
			frags: []F{
				{Index: 2, Name: "c"},
				{Index: 0, Name: "a"},
				{Index: 1, Name: "b"},
			},
			want: []C{
				{Index: 0, ID: "call_0", Type: "function", Name: "a", Arguments: `{}`},
				{Index: 1, ID: "call_1", Type: "function", Name: "b", Arguments: `{}`},
				{Index: 2, ID: "call_2", Type: "function", Name: "c", Arguments: `{}`},
			},
		},
		{
			name: "sparse indexes are kept",
			frags: []F{
				{Index: 5, ID: "x", Name: "f", Arguments: `1`},
				{Index: 2, ID: "y", Name: "g", Arguments: `2`},
			},
			want: []C{
				{Index: 2, ID: "y", Type: "function", Name: "g", Arguments: `2`},
				{Index: 5, ID: "x", Type: "function", Name: "f", Arguments: `1`},
			},
		},
		{
			name: "first non-empty id wins; a later id without a name is ignored",
			frags: []F{
				{Index: 0, Name: "f", Arguments: `{"a":`},
				{Index: 0, ID: "first"},
				{Index: 0, ID: "second", Arguments: `1}`},
				{Index: 0, ID: "third"},
			},
			want: []C{{Index: 0, ID: "first", Type: "function", Name: "f", Arguments: `{"a":1}`}},
		},
		{
			name: "a new id and a name mid-call (arguments incomplete) is the same call",
			frags: []F{
				{Index: 0, ID: "call_1", Name: "f", Arguments: `{"a":`},
				{Index: 0, ID: "call_2", Name: "f", Arguments: `1}`},
			},
			want: []C{{Index: 0, ID: "call_1", Type: "function", Name: "f", Arguments: `{"a":1}`}},
		},
		{
			name: "a new id and a name after complete arguments is a new call at the next free index",
			frags: []F{
				{Index: 0, ID: "call_1", Name: "f", Arguments: `{"a":1}`},
				{Index: 0, ID: "call_2", Name: "g", Arguments: `{"b":2}`},
			},
			want: []C{
				{Index: 0, ID: "call_1", Type: "function", Name: "f", Arguments: `{"a":1}`},
				{Index: 1, ID: "call_2", Type: "function", Name: "g", Arguments: `{"b":2}`},
			},
		},
		{
			name: "a new id without a name after complete arguments is the same call",
			frags: []F{
				{Index: 0, ID: "call_1", Name: "f", Arguments: `{"a":1}`},
				{Index: 0, ID: "call_2", Arguments: ` `},
			},
			want: []C{{Index: 0, ID: "call_1", Type: "function", Name: "f", Arguments: `{"a":1} `}},
		},
		{
			name: "old Ollama: three parallel calls all at index 0",
			frags: []F{
				{Index: 0, ID: "call_a", Name: "f", Arguments: `{"n":1}`},
				{Index: 0, ID: "call_b", Name: "f", Arguments: `{"n":2}`},
				{Index: 0, ID: "call_c", Name: "g", Arguments: `{"n":3}`},
			},
			want: []C{
				{Index: 0, ID: "call_a", Type: "function", Name: "f", Arguments: `{"n":1}`},
				{Index: 1, ID: "call_b", Type: "function", Name: "f", Arguments: `{"n":2}`},
				{Index: 2, ID: "call_c", Type: "function", Name: "g", Arguments: `{"n":3}`},
			},
		},
		{
			name: "after a new call at a reused index, that index's later fragments go to the new call",
			frags: []F{
				{Index: 0, ID: "call_a", Name: "f", Arguments: `{}`},
				{Index: 0, ID: "call_b", Name: "g", Arguments: `{"x":`},
				{Index: 0, Arguments: `true}`},
			},
			want: []C{
				{Index: 0, ID: "call_a", Type: "function", Name: "f", Arguments: `{}`},
				{Index: 1, ID: "call_b", Type: "function", Name: "g", Arguments: `{"x":true}`},
			},
		},
		{
			name: "a provider index already given to a placed call starts a new call",
			frags: []F{
				{Index: 0, ID: "call_a", Name: "f", Arguments: `{}`},
				{Index: 0, ID: "call_b", Name: "g", Arguments: `{}`}, // placed at 1
				{Index: 1, ID: "call_c", Name: "h", Arguments: `{}`}, // 1 is taken: placed at 2
				{Index: 1, Arguments: ` `},
			},
			want: []C{
				{Index: 0, ID: "call_a", Type: "function", Name: "f", Arguments: `{}`},
				{Index: 1, ID: "call_b", Type: "function", Name: "g", Arguments: `{}`},
				{Index: 2, ID: "call_c", Type: "function", Name: "h", Arguments: `{} `},
			},
		},
		{
			name: "first non-empty name wins; names are never concatenated",
			frags: []F{
				{Index: 0, ID: "c", Arguments: `[`},
				{Index: 0, Name: "get_"},
				{Index: 0, Name: "weather", Arguments: `]`},
			},
			want: []C{{Index: 0, ID: "c", Type: "function", Name: "get_", Arguments: `[]`}},
		},
		{
			name: "first non-empty type wins",
			frags: []F{
				{Index: 0, ID: "c", Name: "f"},
				{Index: 0, Type: "custom"},
				{Index: 0, Type: "function"},
			},
			want: []C{{Index: 0, ID: "c", Type: "custom", Name: "f", Arguments: `{}`}},
		},
		{
			name:  "a call with no id gets call_<index>",
			frags: []F{{Index: 3, Name: "f", Arguments: `{}`}},
			want:  []C{{Index: 3, ID: "call_3", Type: "function", Name: "f", Arguments: `{}`}},
		},
		{
			name:  "a call with no arguments gets {}",
			frags: []F{{Index: 0, ID: "c", Name: "f"}},
			want:  []C{{Index: 0, ID: "c", Type: "function", Name: "f", Arguments: `{}`}},
		},
		{
			name:  "a call with only whitespace arguments gets {}",
			frags: []F{{Index: 0, ID: "c", Name: "f", Arguments: " \n"}, {Index: 0, Arguments: "\t"}},
			want:  []C{{Index: 0, ID: "c", Type: "function", Name: "f", Arguments: `{}`}},
		},
		{
			name:  "arguments are kept exactly: key order and whitespace",
			frags: []F{{Index: 0, ID: "c", Name: "f", Arguments: "{ \"z\": 1,\n  \"a\": [ 2 ] }\n"}},
			want:  []C{{Index: 0, ID: "c", Type: "function", Name: "f", Arguments: "{ \"z\": 1,\n  \"a\": [ 2 ] }\n"}},
		},
		{
			name: "any JSON value is accepted as arguments, not only an object",
			frags: []F{
				{Index: 0, Name: "a", Arguments: `[1,2]`},
				{Index: 1, Name: "b", Arguments: `"text"`},
				{Index: 2, Name: "c", Arguments: `4`},
				{Index: 3, Name: "d", Arguments: `null`},
			},
			want: []C{
				{Index: 0, ID: "call_0", Type: "function", Name: "a", Arguments: `[1,2]`},
				{Index: 1, ID: "call_1", Type: "function", Name: "b", Arguments: `"text"`},
				{Index: 2, ID: "call_2", Type: "function", Name: "c", Arguments: `4`},
				{Index: 3, ID: "call_3", Type: "function", Name: "d", Arguments: `null`},
			},
		},
		{
			name: "arguments that arrived as an object's text are text like any other",
			frags: []F{
				{Index: 0, ID: "c", Name: "f", Arguments: `{"city":"Paris","days":[1,2]}`},
			},
			want: []C{{Index: 0, ID: "c", Type: "function", Name: "f", Arguments: `{"city":"Paris","days":[1,2]}`}},
		},
		{
			name: "Gemini: whole calls without index, with empty ids",
			frags: []F{
				{NoIndex: true, ID: "", Name: "f", Arguments: `{"a":1}`},
				{NoIndex: true, ID: "", Name: "g", Arguments: `{"b":2}`},
			},
			want: []C{
				{Index: 0, ID: "call_0", Type: "function", Name: "f", Arguments: `{"a":1}`},
				{Index: 1, ID: "call_1", Type: "function", Name: "g", Arguments: `{"b":2}`},
			},
		},
		{
			name: "a NoIndex fragment with only arguments continues the newest call",
			frags: []F{
				{NoIndex: true, ID: "x", Name: "f", Arguments: `{"a":1}`},
				{NoIndex: true, ID: "y", Name: "g", Arguments: `{"b":`},
				{NoIndex: true, Arguments: `2}`},
			},
			want: []C{
				{Index: 0, ID: "x", Type: "function", Name: "f", Arguments: `{"a":1}`},
				{Index: 1, ID: "y", Type: "function", Name: "g", Arguments: `{"b":2}`},
			},
		},
		{
			name: "a NoIndex fragment with only arguments and no call yet starts call 0",
			frags: []F{
				{NoIndex: true, Arguments: `{"a":1}`},
			},
			want: []C{{Index: 0, ID: "call_0", Type: "function", Arguments: `{"a":1}`}},
		},
		{
			name: "a NoIndex fragment repeating the newest call's id continues it",
			frags: []F{
				{NoIndex: true, ID: "x", Name: "f", Arguments: `{"a":`},
				{NoIndex: true, ID: "x", Arguments: `1}`},
			},
			want: []C{{Index: 0, ID: "x", Type: "function", Name: "f", Arguments: `{"a":1}`}},
		},
		{
			name: "a NoIndex fragment with a name starts a call past the highest index",
			frags: []F{
				{Index: 4, ID: "x", Name: "f", Arguments: `{}`},
				{NoIndex: true, Name: "g", Arguments: `{}`},
			},
			want: []C{
				{Index: 4, ID: "x", Type: "function", Name: "f", Arguments: `{}`},
				{Index: 5, ID: "call_5", Type: "function", Name: "g", Arguments: `{}`},
			},
		},
		{
			name: "an index the assembler gave a NoIndex call is not merged into",
			frags: []F{
				{NoIndex: true, ID: "x", Name: "f", Arguments: `{}`},
				{Index: 0, ID: "y", Name: "g", Arguments: `{}`},
			},
			want: []C{
				{Index: 0, ID: "x", Type: "function", Name: "f", Arguments: `{}`},
				{Index: 1, ID: "y", Type: "function", Name: "g", Arguments: `{}`},
			},
		},
		{
			name: "WithStrictIndex ignores NoIndex fragments",
			opts: []toolcall.Option{toolcall.WithStrictIndex()},
			frags: []F{
				{Index: 0, ID: "x", Name: "f", Arguments: `{"a":1}`},
				{NoIndex: true, ID: "y", Name: "g", Arguments: `{"b":2}`},
				{NoIndex: true, Arguments: `garbage`},
			},
			want: []C{{Index: 0, ID: "x", Type: "function", Name: "f", Arguments: `{"a":1}`}},
		},
		{
			name: "the first non-empty Extra is kept, later ones dropped",
			frags: []F{
				{Index: 0, ID: "x", Name: "f", Arguments: `{}`},
				{Index: 0, Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig1"}}}`)},
				{Index: 0, Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig2"}}}`)},
				{Index: 1, ID: "y", Name: "g", Arguments: `{}`},
			},
			want: []C{
				{Index: 0, ID: "x", Type: "function", Name: "f", Arguments: `{}`, Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"sig1"}}}`)},
				{Index: 1, ID: "y", Type: "function", Name: "g", Arguments: `{}`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler(tt.opts...)
			addAll(t, a, tt.frags)
			got := mustFinalize(t, a)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLastIndex(t *testing.T) {
	type F = toolcall.Fragment
	tests := []struct {
		name  string
		opts  []toolcall.Option
		frags []F
		want  []int // LastIndex after each Add
	}{
		{
			name:  "indexed fragments report their index",
			frags: []F{{Index: 3, Name: "f"}, {Index: 1, Name: "g"}, {Index: 3, Arguments: "{}"}},
			want:  []int{3, 1, 3},
		},
		{
			name:  "NoIndex fragments report the index given to them",
			frags: []F{{NoIndex: true, Name: "f", Arguments: "{"}, {NoIndex: true, Arguments: "}"}, {NoIndex: true, Name: "g"}},
			want:  []int{0, 0, 1},
		},
		{
			name:  "a new call at a reused index reports its new index",
			frags: []F{{Index: 0, ID: "a", Name: "f", Arguments: "{}"}, {Index: 0, ID: "b", Name: "g", Arguments: "{"}, {Index: 0, Arguments: "}"}},
			want:  []int{0, 1, 1},
		},
		{
			name:  "an ignored NoIndex fragment reports -1",
			opts:  []toolcall.Option{toolcall.WithStrictIndex()},
			frags: []F{{Index: 0, Name: "f"}, {NoIndex: true, Name: "g"}, {Index: 0, Arguments: "{}"}},
			want:  []int{0, -1, 0},
		},
		{
			name:  "a refused fragment reports -1",
			opts:  []toolcall.Option{toolcall.WithMaxArgumentBytes(2)},
			frags: []F{{Index: 0, Arguments: "{}"}, {Index: 0, Arguments: " "}, {Index: 0}},
			want:  []int{0, -1, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler(tt.opts...)
			if got := a.LastIndex(); got != -1 {
				t.Errorf("LastIndex before any Add = %d, want -1", got)
			}
			var got []int
			for _, f := range tt.frags {
				_ = a.Add(f) // the refusals are tested in limit_ext_test.go
				got = append(got, a.LastIndex())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LastIndex after each Add (-want +got):\n%s", diff)
			}
			a.Reset()
			if got := a.LastIndex(); got != -1 {
				t.Errorf("LastIndex after Reset = %d, want -1", got)
			}
		})
	}
}

func TestFinalizeAgain(t *testing.T) {
	a := toolcall.NewAssembler()
	addAll(t, a, []toolcall.Fragment{{Index: 0, ID: "x", Name: "f", Arguments: `{"a":`}, {Index: 0, Arguments: `1}`}})
	first := mustFinalize(t, a)
	second := mustFinalize(t, a)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second Finalize differs (-first +second):\n%s", diff)
	}
	// The caller owns the result: changing it changes nothing inside.
	first[0].Name = "changed"
	third := mustFinalize(t, a)
	if third[0].Name != "f" {
		t.Errorf("Finalize after the caller changed a result: Name = %q, want %q", third[0].Name, "f")
	}
	// Adds may follow a Finalize.
	addAll(t, a, []toolcall.Fragment{{Index: 1, ID: "y", Name: "g"}})
	if got := mustFinalize(t, a); len(got) != 2 {
		t.Errorf("after one more call: %d calls, want 2", len(got))
	}
}

func TestFinalizeEmpty(t *testing.T) {
	a := toolcall.NewAssembler()
	calls, err := a.Finalize()
	if calls != nil || err != nil {
		t.Errorf("Finalize of nothing = %v, %v; want nil, nil", calls, err)
	}
}

func TestReset(t *testing.T) {
	a := toolcall.NewAssembler(toolcall.WithMaxCalls(1))
	addAll(t, a, []toolcall.Fragment{{Index: 0, ID: "x", Name: "f", Arguments: `{"broken`, Extra: json.RawMessage(`{"k":1}`)}})
	a.Reset()
	if calls, err := a.Finalize(); calls != nil || err != nil {
		t.Fatalf("Finalize after Reset = %v, %v; want nil, nil", calls, err)
	}
	// The options survive, the state does not: one call fits again, with
	// nothing of the old one.
	addAll(t, a, []toolcall.Fragment{{Index: 0, Name: "g", Arguments: `[true]`}})
	want := []toolcall.Call{{Index: 0, ID: "call_0", Type: "function", Name: "g", Arguments: `[true]`}}
	if diff := cmp.Diff(want, mustFinalize(t, a)); diff != "" {
		t.Errorf("calls after Reset (-want +got):\n%s", diff)
	}
	if err := a.Add(toolcall.Fragment{Index: 1}); err == nil {
		t.Error("WithMaxCalls(1) was lost by Reset")
	}
}

// TestManyCalls crosses the point where lookups switch from slices to maps,
// with every rule that looks calls up.
func TestManyCalls(t *testing.T) {
	const n = 40
	a := toolcall.NewAssembler(toolcall.WithMaxCalls(-1))
	for round := range 2 { // the second round reuses the maps after Reset
		a.Reset()
		var frags []toolcall.Fragment
		for i := range n {
			frags = append(frags, toolcall.Fragment{Index: 2 * i, ID: "id", Name: "f", Arguments: `{"i":`})
		}
		for i := range n {
			frags = append(frags, toolcall.Fragment{Index: 2 * i, Arguments: `0}`})
		}
		// A new call at index 0 is placed past the highest index, 78.
		frags = append(frags, toolcall.Fragment{Index: 0, ID: "other", Name: "g", Arguments: `[`},
			toolcall.Fragment{Index: 0, Arguments: `]`})
		addAll(t, a, frags)
		if got := a.LastIndex(); got != 2*n-1 {
			t.Errorf("round %d: LastIndex = %d, want %d", round, got, 2*n-1)
		}
		calls := mustFinalize(t, a)
		if len(calls) != n+1 {
			t.Fatalf("round %d: %d calls, want %d", round, len(calls), n+1)
		}
		for i := range n {
			if calls[i].Index != 2*i || calls[i].Arguments != `{"i":0}` {
				t.Errorf("round %d: call %d = %+v", round, i, calls[i])
			}
		}
		if last := calls[n]; last.Index != 2*n-1 || last.Arguments != `[]` || last.ID != "other" {
			t.Errorf("round %d: placed call = %+v", round, last)
		}
		if p, ok := a.Preview(2*n - 1); !ok || p.ID != "other" {
			t.Errorf("round %d: Preview(%d) = %+v, %v", round, 2*n-1, p, ok)
		}
	}
}
