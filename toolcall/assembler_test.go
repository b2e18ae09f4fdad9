package toolcall

import (
	"errors"
	"strconv"
	"testing"
)

// TestRoutesStopGrowingPastLinearLimit checks that once lookups have moved to
// the maps, starting a call no longer touches the route slice: scanning it
// for every new call made n calls cost O(n²) (100,000 calls took 1.7 s).
func TestRoutesStopGrowingPastLinearLimit(t *testing.T) {
	tests := []struct {
		name  string
		calls int
		want  int // routes in the slice
	}{
		{"one below the switch", linearLimit - 1, linearLimit - 1},
		{"at the switch", linearLimit, linearLimit},
		{"one past the switch", linearLimit + 1, linearLimit},
		{"far past the switch", 1000, linearLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAssembler(WithMaxCalls(-1))
			for i := range tt.calls {
				if err := a.Add(Fragment{Index: i, Name: "f", Arguments: "{}"}); err != nil {
					t.Fatal(err)
				}
			}
			if got := len(a.routes); got != tt.want {
				t.Errorf("%d routes in the slice after %d calls, want %d", got, tt.calls, tt.want)
			}
			// Every call is still found by its provider index.
			for i := range tt.calls {
				if err := a.Add(Fragment{Index: i, Arguments: " "}); err != nil || a.LastIndex() != i {
					t.Fatalf("Add to index %d: err %v, LastIndex %d", i, err, a.LastIndex())
				}
			}
		})
	}
}

// TestScannersOnlyWhileInsideAValue checks that a call holds a scanner only
// while its arguments are inside a value, or failed: a response of many
// complete calls keeps none, so a call costs its slot and not a scanner
// too, and calls open at once never share one.
func TestScannersOnlyWhileInsideAValue(t *testing.T) {
	a := NewAssembler(WithMaxCalls(-1))
	const n = 100
	for i := range n {
		for _, p := range []string{" ", `{"a":`, `[1,`, `2]`, `} `} {
			if err := a.Add(Fragment{Index: i, Name: "f", Arguments: p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	held := 0
	for i := range a.calls {
		if a.calls[i].sc != nil {
			held++
		}
	}
	if held != 0 || a.scansHeld != 0 || len(a.idle) != 0 {
		t.Fatalf("%d complete calls hold %d scanners (in place held %b, %d idle), want none and none made", n, held, a.scansHeld, len(a.idle))
	}

	// Open at once: each its own; failed: kept for Finalize's report.
	a.Reset()
	const open = inPlaceScanners + 2
	for i := range open {
		if err := a.Add(Fragment{Index: i, Name: "f", Arguments: `{"a":[`}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Add(Fragment{Index: 0, Arguments: `}`}); err != nil {
		t.Fatal(err)
	}
	seen := map[*scanner]bool{}
	for i := range a.calls {
		if s := a.calls[i].sc; s == nil || seen[s] {
			t.Fatalf("call %d: scanner %p, shared or missing among %d open calls", i, s, len(a.calls))
		} else {
			seen[s] = true
		}
	}
	_, err := a.Finalize()
	var ce *CallsError
	if !errors.As(err, &ce) || len(ce.Invalid) != open || ce.Invalid[0].Offset != 6 || ce.Invalid[0].Reason != `invalid character '}' looking for the beginning of a value` || ce.Invalid[1].Reason != "unexpected end of JSON input" {
		t.Fatalf("Finalize: %v", err)
	}
	// Reset takes them all back, for the next response.
	a.Reset()
	if a.scansHeld != 0 || len(a.idle) != open-inPlaceScanners {
		t.Errorf("after Reset: in place held %b, %d idle, want none and %d", a.scansHeld, len(a.idle), open-inPlaceScanners)
	}
}

// TestPreviewOfAnIndexPastInt32 checks that the int32 keys of the index
// map do not make a huge index find the call whose index it wraps to.
func TestPreviewOfAnIndexPastInt32(t *testing.T) {
	a := NewAssembler(WithMaxCalls(-1))
	for i := range linearLimit + 2 { // past the switch to the maps
		if err := a.Add(Fragment{Index: i, Name: "f", Arguments: "{}"}); err != nil {
			t.Fatal(err)
		}
	}
	huge := 3 | 1<<(strconv.IntSize-2) // wraps to 3 in 32 bits, where int has 64
	if p, ok := a.Preview(huge); ok {
		t.Errorf("Preview(%d) = %+v, true; want none", huge, p)
	}
	if p, ok := a.Preview(3); !ok || p.Index != 3 {
		t.Errorf("Preview(3) = %+v, %v; want call 3", p, ok)
	}
}
