package llmstreamtest

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTextPieces(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"one word", "Hello", []string{"Hello"}},
		{"words keep trailing space", "Hello, world!", []string{"Hello, ", "world!"}},
		{"leading space stays with first word", "  lead on", []string{"  lead ", "on"}},
		{"newlines and tabs are spaces", "a\nb\t c\r\n", []string{"a\n", "b\t ", "c\r\n"}},
		{"only spaces", "   ", []string{"   "}},
		{"word at the limit", "abcdefghijklmnop", []string{"abcdefghijklmnop"}},
		{"word at the limit with space", "abcdefghijklmnop x", []string{"abcdefghijklmnop ", "x"}},
		{"word one below the limit", "abcdefghijklmno", []string{"abcdefghijklmno"}},
		{"word one above the limit", "abcdefghijklmnopq", []string{"abcdefghijklmnop", "q"}},
		{"word of two limits", "abcdefghijklmnopABCDEFGHIJKLMNOP!", []string{"abcdefghijklmnop", "ABCDEFGHIJKLMNOP", "!"}},
		{"cut moves to rune start", "abcdefghijklmnoé", []string{"abcdefghijklmnoé"}},
		{"cut inside a 4-byte rune", "abcdefghijklmn😀z", []string{"abcdefghijklmn😀", "z"}},
		{"leading space counts toward the limit", " abcdefghijklmnop", []string{" abcdefghijklmno", "p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := textPieces(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("textPieces(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// fragmentOK reports whether f is a fragment argFragments may produce: 1
// to maxArgFragment bytes, plus only the continuation bytes needed to end
// on a rune boundary.
func fragmentOK(f string) bool {
	if f == "" || !utf8.ValidString(f) {
		return false
	}
	last := strings.LastIndexFunc(f, func(rune) bool { return true }) // start of the last rune
	return len(f) <= maxArgFragment || last < maxArgFragment
}

func TestArgFragments(t *testing.T) {
	inputs := []struct {
		name string
		in   string
	}{
		{"empty", ""},
		{"one byte", "{"},
		{"ascii", `{"path":"go.mod","mode":"read","lines":[1,2,3,4,5,6,7,8,9,10]}`},
		{"two-byte runes", `{"q":"ééééééééééééééééééééééééé"}`},
		{"four-byte runes", `{"q":"😀😀😀😀😀😀😀😀😀😀😀😀"}`},
		{"escapes", `{"s":"a\"b\\c\n\u00e9"}`},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			for seed := range uint64(50) {
				frags := argFragments(in.in, rand.New(rand.NewPCG(seed, 1)))
				if got := strings.Join(frags, ""); got != in.in {
					t.Fatalf("seed %d: fragments join to %q, want %q", seed, got, in.in)
				}
				for _, f := range frags {
					if !fragmentOK(f) {
						t.Fatalf("seed %d: bad fragment %q in %q", seed, f, frags)
					}
				}
			}
		})
	}
}

// TestArgFragmentSizes checks the limits: over a long ASCII text every size
// from 1 to maxArgFragment occurs, and nothing longer.
func TestArgFragmentSizes(t *testing.T) {
	frags := argFragments(strings.Repeat("x", 5000), rand.New(rand.NewPCG(DefaultSeed, 1)))
	seen := map[int]int{}
	for _, f := range frags {
		seen[len(f)]++
	}
	for n := 1; n <= maxArgFragment; n++ {
		if seen[n] == 0 {
			t.Errorf("no fragment of %d bytes in %d fragments", n, len(frags))
		}
	}
	if seen[0] != 0 || seen[maxArgFragment+1] != 0 || len(seen) != maxArgFragment {
		t.Errorf("sizes seen %v, want exactly 1..%d", seen, maxArgFragment)
	}
}

func TestArgFragmentsDeterministic(t *testing.T) {
	const s = `{"path":"a/long/path/to/some/file.go","content":"package main\n"}`
	a := argFragments(s, rand.New(rand.NewPCG(7, 3)))
	b := argFragments(s, rand.New(rand.NewPCG(7, 3)))
	c := argFragments(s, rand.New(rand.NewPCG(8, 3)))
	if !cmp.Equal(a, b) {
		t.Errorf("same seed, different fragments:\n%q\n%q", a, b)
	}
	if cmp.Equal(a, c) {
		t.Errorf("seeds 7 and 8 gave the same fragments %q", a)
	}
}

func TestCallPieces(t *testing.T) {
	calls := []Call{{Name: "a", Arguments: `{"x":"0123456789"}`}, {Name: "b", Arguments: ""}, {Name: "c", Arguments: `{"y":[1,2,3,4,5]}`}}
	for _, interleave := range []bool{false, true} {
		for seed := range uint64(20) {
			ps := callPieces(calls, rand.New(rand.NewPCG(seed, 1)), interleave)
			args := make([]string, len(calls))
			headerSeen := make([]bool, len(calls))
			for _, p := range ps {
				switch p.kind {
				case pieceHeader:
					if headerSeen[p.call] {
						t.Fatalf("interleave %t seed %d: two headers for call %d", interleave, seed, p.call)
					}
					headerSeen[p.call] = true
				case pieceArgs:
					if !headerSeen[p.call] {
						t.Fatalf("interleave %t seed %d: arguments of call %d before its header", interleave, seed, p.call)
					}
					args[p.call] += p.text
				}
			}
			for i, c := range calls {
				if !headerSeen[i] || args[i] != c.Arguments {
					t.Errorf("interleave %t seed %d: call %d header %t arguments %q, want %q", interleave, seed, i, headerSeen[i], args[i], c.Arguments)
				}
			}
		}
	}
}

// TestCallPiecesInterleaves checks that interleaving does mix the calls:
// without it the call index never goes back down; with it, for some seed,
// it does.
func TestCallPiecesInterleaves(t *testing.T) {
	calls := []Call{{Name: "a", Arguments: `{"x":"0123456789"}`}, {Name: "b", Arguments: `{"y":"0123456789"}`}}
	goesBack := func(ps []piece) bool {
		for i := 1; i < len(ps); i++ {
			if ps[i].call < ps[i-1].call {
				return true
			}
		}
		return false
	}
	mixed := 0
	for seed := range uint64(20) {
		if goesBack(callPieces(calls, rand.New(rand.NewPCG(seed, 1)), false)) {
			t.Fatalf("seed %d: calls mixed without interleaving", seed)
		}
		if goesBack(callPieces(calls, rand.New(rand.NewPCG(seed, 1)), true)) {
			mixed++
		}
	}
	if mixed == 0 {
		t.Error("interleaving never mixed the calls in 20 seeds")
	}
}
