package toolcall

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCallCapRefusalChangesNothing attacks the cap from every side: each
// limit that reaches it (none, the cap, one above, MaxInt) and one below,
// with calls numbered by the provider, index-less, and index-less after
// one at MaxIndex (whose indexes pass MaxIndex). The refused call is a
// typed LimitError, LastIndex says -1 (merged nothing), and Preview and
// Finalize are as in an assembler that never saw it; after Reset the cap
// holds again.
func TestCallCapRefusalChangesNothing(t *testing.T) {
	defer func(c int) { callCap = c }(callCap)
	callCap = 2*linearLimit + 3
	type style struct {
		name string
		frag func(i int) Fragment
	}
	styles := []style{
		{"indexed", func(i int) Fragment { return Fragment{Index: i, ID: fmt.Sprint("c", i), Name: "f", Arguments: "{}"} }},
		{"no index", func(i int) Fragment {
			return Fragment{NoIndex: true, ID: fmt.Sprint("c", i), Name: "f", Arguments: "{}"}
		}},
		{"after MaxIndex", func(i int) Fragment {
			if i == 0 {
				return Fragment{Index: MaxIndex, ID: "top", Name: "f", Arguments: "{}"}
			}
			return Fragment{NoIndex: true, ID: fmt.Sprint("c", i), Name: "f", Arguments: "{}"}
		}},
	}
	for _, st := range styles {
		for _, lim := range []struct{ opt, want int }{
			{-1, callCap}, {callCap, callCap}, {callCap + 1, callCap}, {math.MaxInt, callCap}, {callCap - 1, callCap - 1},
		} {
			t.Run(fmt.Sprintf("%s/%d", st.name, lim.opt), func(t *testing.T) {
				a := NewAssembler(WithMaxCalls(lim.opt))
				ref := NewAssembler(WithMaxCalls(lim.opt))
				for round := range 2 {
					for i := range lim.want {
						if err := a.Add(st.frag(i)); err != nil {
							t.Fatalf("round %d call %d: %v", round, i, err)
						}
						if err := ref.Add(st.frag(i)); err != nil {
							t.Fatal(err)
						}
					}
					last := a.LastIndex()
					for _, f := range []Fragment{st.frag(lim.want), {NoIndex: true, ID: "x", Name: "g", Arguments: `{"a":1}`}, {Index: MaxIndex - 1, ID: "y", Name: "h"}} {
						if f.Index == MaxIndex-1 && st.name == "indexed" && lim.want > MaxIndex-1 {
							continue
						}
						err := a.Add(f)
						var le *LimitError
						if !errors.As(err, &le) || !errors.Is(err, ErrTooManyCalls) || le.Max != lim.want || le.Size != lim.want+1 {
							t.Fatalf("round %d: extra call %+v: err = %v, want LimitError Max %d Size %d", round, f, err, lim.want, lim.want+1)
						}
					}
					if got := a.LastIndex(); got != -1 { // as documented: the latest Add merged nothing
						t.Fatalf("LastIndex %d after refusals, want -1", got)
					}
					if p, ok := a.Preview(last + 1); ok {
						t.Fatalf("Preview(%d) = %+v after refusals", last+1, p)
					}
					got, gerr := a.Finalize()
					want, werr := ref.Finalize()
					if diff := cmp.Diff(want, got); diff != "" || (gerr == nil) != (werr == nil) {
						t.Fatalf("round %d: Finalize differs from an assembler that never saw the refused calls (-want +got):\n%s\n%v %v", round, diff, gerr, werr)
					}
					a.Reset()
					ref.Reset()
				}
			})
		}
	}
}
