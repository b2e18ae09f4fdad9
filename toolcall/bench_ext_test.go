package toolcall_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
	gojson "github.com/goccy/go-json"
)

// benchCorpus is the harness's "tools" shape: 4 interleaved calls, ~2 KB of
// arguments each, 1–6 byte fragments.
func benchCorpus(b *testing.B) (corpus, int64) {
	b.Helper()
	c := genCorpus(0x7001)
	var n int64
	for _, args := range c.args {
		n += int64(len(args))
	}
	return c, n
}

func BenchmarkAssembler(b *testing.B) {
	c, size := benchCorpus(b)
	perFragment := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.frags)), "ns/fragment")
	}

	// The whole job: every fragment added, then Finalize.
	b.Run("stream", func(b *testing.B) {
		a := toolcall.NewAssembler()
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			a.Reset()
			for _, f := range c.frags {
				if err := a.Add(f); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := a.Finalize(); err != nil {
				b.Fatal(err)
			}
		}
		perFragment(b)
	})

	// Add alone: the per-fragment cost, validation included.
	b.Run("add", func(b *testing.B) {
		a := toolcall.NewAssembler()
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			a.Reset()
			for _, f := range c.frags {
				if err := a.Add(f); err != nil {
					b.Fatal(err)
				}
			}
		}
		perFragment(b)
	})

	// Finalize alone on assembled calls: what is left to do at the end of
	// the stream, validation and copying out.
	b.Run("finalize", func(b *testing.B) {
		a := toolcall.NewAssembler()
		addAll(b, a, c.frags)
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Finalize(); err != nil {
				b.Fatal(err)
			}
		}
	})

	// The baselines: validating the same arguments at the end of the stream
	// with encoding/json and goccy/go-json (the bytes are ours and valid).
	args := make([][]byte, len(c.args))
	for i, s := range c.args {
		args[i] = []byte(s)
	}
	b.Run("encoding-json-valid", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, a := range args {
				if !json.Valid(a) {
					b.Fatal("invalid")
				}
			}
		}
	})
	b.Run("goccy-valid", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, a := range args {
				if !gojson.Valid(a) {
					b.Fatal("invalid")
				}
			}
		}
	})
}

// TestAddDoesNotAllocate holds Add to zero allocations per fragment once the
// Assembler has warmed up.
func TestAddDoesNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations")
	}
	c := genCorpus(0x7001)
	a := toolcall.NewAssembler()
	addAll(t, a, c.frags) // warm up
	allocs := testing.AllocsPerRun(20, func() {
		a.Reset()
		for _, f := range c.frags {
			if err := a.Add(f); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per stream of %d fragments, want 0", allocs, len(c.frags))
	}
	// Finalize allocates per call, never per fragment: the result, one
	// string for all arguments.
	allocs = testing.AllocsPerRun(20, func() {
		if _, err := a.Finalize(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("Finalize: %v allocations, want at most 2", allocs)
	}
}

// TestFinalizeMadeUpIDsDoNotAllocate holds Finalize to its two allocations
// when it makes up ids ("call_<index>"), for any index: formatting an index
// of 100 or more with strconv.Itoa allocated once per call, three times.
func TestFinalizeMadeUpIDsDoNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations")
	}
	tests := []struct {
		name  string
		first int // index of the first of three id-less calls
	}{
		{"small indexes", 0},
		{"indexes from 99", 99},
		{"indexes from 100", 100},
		{"indexes near MaxIndex", toolcall.MaxIndex - 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := toolcall.NewAssembler()
			for i := range 3 {
				addAll(t, a, []toolcall.Fragment{{Index: tt.first + i, Name: "f", Arguments: "{}"}})
			}
			allocs := testing.AllocsPerRun(20, func() {
				if _, err := a.Finalize(); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 2 {
				t.Errorf("Finalize: %v allocations, want at most 2", allocs)
			}
			calls := mustFinalize(t, a)
			if want := "call_" + strconv.Itoa(tt.first+2); calls[2].ID != want || calls[2].Arguments != "{}" {
				t.Errorf("last call = %+v, want ID %q and Arguments {}", calls[2], want)
			}
		})
	}
}
