package toolcall_test

import (
	"strconv"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
)

// TestPreviewOfWrappingIndexes: an index that is the same as a call's in
// its low 32 bits, above or below zero, finds no call, whether the calls are
// looked up in the slice (few) or in the int32 maps (many).
func TestPreviewOfWrappingIndexes(t *testing.T) {
	if strconv.IntSize < 64 {
		t.Skip("int has 32 bits: no index wraps")
	}
	shift := 32 // a variable: the constant would not compile where int has 32 bits
	for _, n := range []int{3, 8, 9, 40} {
		a := toolcall.NewAssembler(toolcall.WithMaxCalls(-1))
		for i := range n {
			if err := a.Add(toolcall.Fragment{Index: i, Name: "f", Arguments: "{}"}); err != nil {
				t.Fatal(err)
			}
		}
		for k := range n {
			for _, i := range []int{k | 1<<shift, k - 1<<shift, k | 1<<(shift-1), k - 1<<(shift-1), k | 1<<(2*shift-2), k - 1<<(2*shift-2), -1, -1 - k} {
				if p, ok := a.Preview(i); ok {
					t.Errorf("%d calls: Preview(%d) = %+v, true; want none (call %d has those low bits)", n, i, p, k)
				}
			}
			if p, ok := a.Preview(k); !ok || p.Index != k {
				t.Errorf("%d calls: Preview(%d) = %+v, %v", n, k, p, ok)
			}
		}
	}
}

// TestIndexesHandedOutPastMaxIndex: calls the assembler numbers itself
// (NoIndex fragments, a new call at a reused index) go on past MaxIndex,
// with the maps in use, and are found, routed and ordered there.
func TestIndexesHandedOutPastMaxIndex(t *testing.T) {
	for _, extra := range []int{2, 12} { // within the slice, and past it to the maps
		a := toolcall.NewAssembler(toolcall.WithMaxCalls(-1))
		add := func(f toolcall.Fragment) {
			t.Helper()
			if err := a.Add(f); err != nil {
				t.Fatal(err)
			}
		}
		add(toolcall.Fragment{Index: toolcall.MaxIndex, ID: "top", Name: "f", Arguments: `{"a":1}`})
		// Old Ollama: another call at the same index once the first is whole.
		add(toolcall.Fragment{Index: toolcall.MaxIndex, ID: "again", Name: "g", Arguments: `[`})
		if got := a.LastIndex(); got != toolcall.MaxIndex+1 {
			t.Fatalf("the call at a reused MaxIndex has index %d, want %d", got, toolcall.MaxIndex+1)
		}
		for k := range extra {
			add(toolcall.Fragment{NoIndex: true, ID: "n" + strconv.Itoa(k), Name: "h", Arguments: `{"k":`})
			if got, want := a.LastIndex(), toolcall.MaxIndex+2+k; got != want {
				t.Fatalf("NoIndex call %d: index %d, want %d", k, got, want)
			}
			add(toolcall.Fragment{NoIndex: true, Arguments: strconv.Itoa(k) + "}"})
		}
		// The provider index still routes to the newer call there.
		add(toolcall.Fragment{Index: toolcall.MaxIndex, Arguments: `]`})
		if got := a.LastIndex(); got != toolcall.MaxIndex+1 {
			t.Fatalf("MaxIndex routes to %d, want %d", got, toolcall.MaxIndex+1)
		}
		for k := range extra + 2 {
			i := toolcall.MaxIndex + k
			if p, ok := a.Preview(i); !ok || p.Index != i || !p.Complete {
				t.Errorf("%d extra: Preview(%d) = %+v, %v", extra, i, p, ok)
			}
		}
		calls, err := a.Finalize()
		if err != nil || len(calls) != extra+2 {
			t.Fatalf("Finalize: %d calls, %v", len(calls), err)
		}
		for k, c := range calls {
			if c.Index != toolcall.MaxIndex+k {
				t.Errorf("call %d has index %d, want %d", k, c.Index, toolcall.MaxIndex+k)
			}
		}
		if calls[1].Arguments != "[]" || calls[len(calls)-1].Arguments != `{"k":`+strconv.Itoa(extra-1)+"}" {
			t.Errorf("arguments %q, %q", calls[1].Arguments, calls[len(calls)-1].Arguments)
		}
	}
}
