package toolcall_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// FuzzAssembler checks, for two calls with arbitrary argument text:
//   - nothing panics;
//   - cut into random fragments and interleaved at random, the calls
//     assemble to exactly what the whole texts assemble to;
//   - what Finalize accepts is what encoding/json.Valid accepts (blank
//     arguments becoming "{}"), and a failure names the first invalid call;
//   - a Preview on the way, at random fragments, is empty or JSON.
func FuzzAssembler(f *testing.F) {
	// Small seeds keep the runs, and the minimization of new inputs, fast.
	rng := rand.New(rand.NewPCG(3, 3))
	g := argWriter{rng: rng}
	f.Add(g.document(100), g.document(120), uint64(1))
	f.Add(g.document(200)[:80], g.document(90), uint64(2))
	f.Add(`{"a":"b\u00e9\ud83d\ude00","n":[1,-0.5e+7,true,null]}`, `[]`, uint64(3))
	f.Add(`{"a":1`, `{"b":2}`, uint64(4))
	f.Add(`{"a":1}`, `{"b":2}}`, uint64(5))
	f.Add(``, " \n", uint64(6))
	f.Add(`"\x"`, "\"\xff\"", uint64(7))
	f.Add(`[01]`, `{"a" 1}`, uint64(8))
	f.Add(strings.Repeat("[", 40)+strings.Repeat("]", 40), `{"k":[{"k":[{}]}]}`, uint64(9))
	f.Fuzz(func(t *testing.T, argsA, argsB string, seed uint64) {
		// Long inputs add nothing (the scanner's state is byte-local) but
		// make each run, and the minimization of new inputs, slow.
		docs := []string{argsA[:min(len(argsA), 512)], argsB[:min(len(argsB), 512)]}
		whole := toolcall.NewAssembler(toolcall.WithMaxArgumentBytes(-1))
		for i, d := range docs {
			addAll(t, whole, []toolcall.Fragment{{Index: i, ID: "id", Name: "f", Arguments: d}})
		}
		want, wantErr := whole.Finalize()
		checkAgainstValid(t, docs, want, wantErr)

		rng := rand.New(rand.NewPCG(seed, seed>>7))
		seqs := make([][]toolcall.Fragment, len(docs))
		for i, d := range docs {
			seqs[i] = append(seqs[i], toolcall.Fragment{Index: i, ID: "id", Name: "f"})
			for j := 0; j < len(d); {
				k := min(j+1+rng.IntN(8), len(d)) // any cut, even inside a UTF-8 sequence
				seqs[i] = append(seqs[i], toolcall.Fragment{Index: i, Arguments: d[j:k]})
				j = k
			}
		}
		a := toolcall.NewAssembler(toolcall.WithMaxArgumentBytes(-1))
		frags := interleave(rng, seqs)
		previews := 8
		for _, frag := range frags {
			if err := a.Add(frag); err != nil {
				t.Fatalf("Add: %v", err)
			}
			if previews == 0 || rng.IntN(len(frags)) >= 8 {
				continue // a few Previews a run: one per fragment would be quadratic
			}
			previews--
			p, ok := a.Preview(a.LastIndex())
			if !ok {
				t.Fatalf("no Preview for LastIndex %d", a.LastIndex())
			}
			if !strings.HasPrefix(docs[p.Index], string(p.Partial)) {
				t.Fatalf("Preview.Partial %q is not a prefix of %q", p.Partial, docs[p.Index])
			}
			if closed := p.Closed(); closed != "" && !json.Valid([]byte(closed)) {
				t.Fatalf("Preview of %q: Closed() = %q is not JSON", p.Partial, closed)
			}
		}
		got, err := a.Finalize()
		if !slices.EqualFunc(want, got, sameCall) {
			diff := cmp.Diff(want, got)
			t.Fatalf("fragmented calls differ from whole (-whole +fragmented):\n%s", diff)
		}
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("fragmented error %v, whole error %v", err, wantErr)
		}
	})
}

// checkAgainstValid checks Finalize's answer for calls 0..len(docs)-1
// against encoding/json.Valid.
func checkAgainstValid(t *testing.T, docs []string, calls []toolcall.Call, err error) {
	t.Helper()
	firstBad := -1
	for i, d := range docs {
		if strings.Trim(d, " \t\r\n") != "" && !json.Valid([]byte(d)) {
			firstBad = i
			break
		}
	}
	if firstBad < 0 {
		if err != nil {
			t.Fatalf("Finalize refused JSON that encoding/json accepts: %v", err)
		}
		for i, c := range calls {
			want := docs[i]
			if strings.Trim(want, " \t\r\n") == "" {
				want = "{}"
			}
			if c.Arguments != want {
				t.Fatalf("call %d: Arguments = %q, want %q", i, c.Arguments, want)
			}
		}
		return
	}
	var ae *toolcall.ArgumentsError
	if !errors.As(err, &ae) || !errors.Is(err, toolcall.ErrInvalidArguments) {
		t.Fatalf("Finalize accepted %q, which encoding/json refuses (error %v)", docs[firstBad], err)
	}
	if ae.Index != firstBad {
		t.Fatalf("ArgumentsError names call %d, want %d", ae.Index, firstBad)
	}
	if calls != nil {
		t.Fatalf("calls returned with an error: %+v", calls)
	}
}

// sameCall compares two calls; cheaper than cmp.Diff, which only reports.
func sameCall(x, y toolcall.Call) bool {
	return x.Index == y.Index && x.ID == y.ID && x.Type == y.Type && x.Name == y.Name &&
		x.Arguments == y.Arguments && string(x.Extra) == string(y.Extra)
}
