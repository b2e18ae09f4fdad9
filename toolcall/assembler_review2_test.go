package toolcall

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// randomFragments is a response of up to 40 calls (enough for the index
// maps), fragments interleaved, some without an index, some arguments
// invalid JSON.
func randomFragments(rng *rand.Rand) []Fragment {
	n := 1 + rng.IntN(40)
	var fs []Fragment
	for i := range n {
		fs = append(fs, Fragment{Index: i * (1 + rng.IntN(3)), ID: fmt.Sprintf("c%d", i), Type: "function", Name: "f", Arguments: `{"a":`})
	}
	for i := range n {
		f := fs[i]
		fs = append(fs, Fragment{Index: f.Index, Arguments: []string{`1}`, `"x"}`, `]`}[rng.IntN(3)]})
		if rng.IntN(9) == 0 {
			fs = append(fs, Fragment{NoIndex: true, Arguments: `{}`, ID: "n", Name: "g"})
		}
	}
	rng.Shuffle(n, func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
	return fs
}

// An Assembler reused after Reset, its slots and maps kept, gives every
// response what a fresh one gives, whatever the responses before it held.
func TestAssemblerResetReuse_review2(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	reused := NewAssembler()
	ok := 0
	for round := range 400 {
		fs := randomFragments(rng)
		fresh := NewAssembler()
		reused.Reset()
		var errFresh, errReused []string
		for _, f := range fs {
			e1, e2 := fresh.Add(f), reused.Add(f)
			errFresh, errReused = append(errFresh, fmt.Sprint(e1)), append(errReused, fmt.Sprint(e2))
			if fresh.LastIndex() != reused.LastIndex() {
				t.Fatalf("round %d: LastIndex %d, fresh %d", round, reused.LastIndex(), fresh.LastIndex())
			}
		}
		c1, e1 := fresh.Finalize()
		if e1 == nil {
			ok++
		}
		c2, e2 := reused.Finalize()
		if !reflect.DeepEqual(errFresh, errReused) || fmt.Sprint(e1) != fmt.Sprint(e2) || !reflect.DeepEqual(c1, c2) {
			t.Fatalf("round %d: reused %v %v %v, fresh %v %v %v", round, c2, e2, errReused, c1, e1, errFresh)
		}
	}
	if ok == 0 {
		t.Fatal("no response assembled: the test checks only failures")
	}
	t.Logf("%d of 400 responses assembled", ok)
}
