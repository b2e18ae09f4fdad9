package toolcall

import "testing"

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
