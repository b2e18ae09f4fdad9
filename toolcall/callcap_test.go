package toolcall

import (
	"errors"
	"strconv"
	"testing"
)

// TestCallCapBoundsEveryLimit checks the cap that keeps the int32
// positions and indexes from overflowing: no limit, and a limit above it,
// stop at the cap; a limit below it is unchanged. The cap is lowered, as
// 2^30 calls would take over 100 GB.
func TestCallCapBoundsEveryLimit(t *testing.T) {
	defer func(c int) { callCap = c }(callCap)
	callCap = 12 // past linearLimit, so the maps are in use
	for _, tt := range []struct {
		opt  int
		want int
	}{{-1, 12}, {13, 12}, {12, 12}, {11, 11}} {
		t.Run(strconv.Itoa(tt.opt), func(t *testing.T) {
			a := NewAssembler(WithMaxCalls(tt.opt))
			for i := range tt.want {
				if err := a.Add(Fragment{Index: i, Name: "f", Arguments: "{}"}); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			err := a.Add(Fragment{Index: tt.want, Name: "f"})
			var le *LimitError
			if !errors.As(err, &le) || !errors.Is(err, ErrTooManyCalls) || le.Max != tt.want || le.Size != tt.want+1 {
				t.Fatalf("call %d: err = %v, want a LimitError with Max %d", tt.want, err, tt.want)
			}
			// Held calls still take fragments, and nothing was half-added.
			if err := a.Add(Fragment{Index: 0, Arguments: " "}); err != nil {
				t.Fatal(err)
			}
			calls, err := a.Finalize()
			if err != nil || len(calls) != tt.want {
				t.Fatalf("Finalize: %d calls, %v; want %d", len(calls), err, tt.want)
			}
		})
	}
}

// TestIndexesPastMaxIndex checks calls the assembler numbers past MaxIndex
// (index-less calls after one at MaxIndex): they keep their indexes
// through the int32 maps, and Preview finds each and nothing else.
func TestIndexesPastMaxIndex(t *testing.T) {
	a := NewAssembler(WithMaxCalls(-1))
	if err := a.Add(Fragment{Index: MaxIndex, Name: "top", Arguments: "{}"}); err != nil {
		t.Fatal(err)
	}
	const more = 2 * linearLimit
	for i := range more {
		if err := a.Add(Fragment{NoIndex: true, ID: "c" + strconv.Itoa(i), Name: "f", Arguments: `{"i":` + strconv.Itoa(i) + `}`}); err != nil {
			t.Fatal(err)
		}
		if got := a.LastIndex(); got != MaxIndex+1+i {
			t.Fatalf("call %d has index %d, want %d", i, got, MaxIndex+1+i)
		}
	}
	for i := range more {
		p, ok := a.Preview(MaxIndex + 1 + i)
		if !ok || p.ID != "c"+strconv.Itoa(i) {
			t.Fatalf("Preview(MaxIndex+1+%d) = %+v, %v", i, p, ok)
		}
	}
	// An int that wraps onto a held index as an int32 finds nothing. The
	// shift is a variable: as constants these overflow a 32-bit int, and
	// the test did not build for GOARCH=386.
	wraps := []int{-1}
	if sh := 32; strconv.IntSize == 64 {
		wraps = append(wraps, MaxIndex+1<<sh, 1<<sh+MaxIndex+1, 1<<(2*sh-2))
	}
	for _, i := range wraps {
		if p, ok := a.Preview(i); ok {
			t.Fatalf("Preview(%d) = %+v, want none", i, p)
		}
	}
	calls, err := a.Finalize()
	if err != nil || len(calls) != more+1 || calls[more].Index != MaxIndex+more {
		t.Fatalf("Finalize: %v, %v", calls, err)
	}
}
