package toolcall_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

func TestCorpus(t *testing.T) {
	c := genCorpus(1)
	for i, args := range c.args {
		if !json.Valid([]byte(args)) {
			t.Errorf("call %d: generated arguments are not JSON: %q", i, args)
		}
		if len(args) < corpusArgBytes-64 || len(args) > corpusArgBytes+768 {
			t.Errorf("call %d: %d bytes of arguments, want about %d", i, len(args), corpusArgBytes)
		}
	}
	if diff := cmp.Diff(c, genCorpus(1), cmp.AllowUnexported(corpus{})); diff != "" {
		t.Errorf("the same seed gave another corpus:\n%s", diff)
	}
}

// TestInterleavings is the property: any interleaving of the same per-index
// fragment sequences assembles to the same calls, and those are the calls
// the fragments were cut from.
func TestInterleavings(t *testing.T) {
	for seed := range uint64(20) {
		c := genCorpus(seed)
		rng := rand.New(rand.NewPCG(seed, 99))
		a := toolcall.NewAssembler()
		for round := range 5 {
			a.Reset()
			addAll(t, a, interleave(rng, c.perIndex))
			if diff := cmp.Diff(c.want, mustFinalize(t, a)); diff != "" {
				t.Fatalf("seed %d round %d: calls (-want +got):\n%s", seed, round, diff)
			}
		}
		// One call after another, and each call's arguments whole.
		a.Reset()
		for _, seq := range c.perIndex {
			addAll(t, a, seq)
		}
		if diff := cmp.Diff(c.want, mustFinalize(t, a)); diff != "" {
			t.Fatalf("seed %d sequential: calls (-want +got):\n%s", seed, diff)
		}
		a.Reset()
		for _, want := range c.want {
			addAll(t, a, []toolcall.Fragment{{Index: want.Index, ID: want.ID, Type: want.Type, Name: want.Name, Arguments: want.Arguments}})
		}
		if diff := cmp.Diff(c.want, mustFinalize(t, a)); diff != "" {
			t.Fatalf("seed %d whole: calls (-want +got):\n%s", seed, diff)
		}
	}
}

// TestSplitEverywhere feeds one call's arguments split at every offset into
// two fragments, and one byte at a time.
func TestSplitEverywhere(t *testing.T) {
	docs := []string{
		`{"a":[1,-2.5e+3,true,false,null,"s\u00e9\n",{"b":{}}],"c":"日本😀"}`,
		`{"a":1`,
		`{"a":1}}`,
		`[1,2,]`,
		`"\ud83d\ude00 \x"`,
		// Blank, then a value; a value, then whitespace or more: where a
		// call's scan settles and starts again.
		"  \t{\"a\":1}  \n",
		`{"a":1} x`,
		" 12 ",
		"-0.5e+7",
		"null ",
	}
	for _, doc := range docs {
		var want []toolcall.Call
		var wantErr string
		whole := toolcall.NewAssembler()
		addAll(t, whole, []toolcall.Fragment{{Index: 0, Name: "f", Arguments: doc}})
		want, err := whole.Finalize()
		if err != nil {
			wantErr = err.Error()
		}
		if (err == nil) != json.Valid([]byte(doc)) {
			t.Fatalf("%q: Finalize error %v disagrees with encoding/json.Valid", doc, err)
		}
		check := func(how string, frags []toolcall.Fragment) {
			t.Helper()
			a := toolcall.NewAssembler()
			addAll(t, a, frags)
			got, err := a.Finalize()
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(want, got); diff != "" || gotErr != wantErr {
				t.Errorf("%q %s: calls (-whole +split):\n%s\nerror %q, whole gave %q", doc, how, diff, gotErr, wantErr)
			}
		}
		for i := range len(doc) + 1 {
			check(fmt.Sprint("split at ", i), []toolcall.Fragment{{Index: 0, Name: "f", Arguments: doc[:i]}, {Index: 0, Arguments: doc[i:]}})
		}
		var bytewise []toolcall.Fragment
		for i := range len(doc) {
			bytewise = append(bytewise, toolcall.Fragment{Index: 0, Name: "f", Arguments: doc[i : i+1]})
		}
		check("byte by byte", bytewise)

		// Preview says Complete exactly when the arguments so far are JSON.
		a := toolcall.NewAssembler()
		for i := range len(doc) {
			addAll(t, a, bytewise[i:i+1])
			if p, _ := a.Preview(0); p.Complete != json.Valid([]byte(doc[:i+1])) {
				t.Errorf("%q: after %q Complete is %v", doc, doc[:i+1], p.Complete)
			}
		}
	}
}
