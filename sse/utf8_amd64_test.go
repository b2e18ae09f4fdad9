//go:build !purego

package sse

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// requireAVX2 skips a test of the vector check on a CPU without AVX2.
func requireAVX2(t testing.TB) {
	t.Helper()
	if !useAVX2 {
		t.Skip("no AVX2 on this CPU")
	}
}

// skipExhaustiveUnderRace skips an exhaustive test of the vector code
// under -race (see raceEnabled).
func skipExhaustiveUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("exhaustive single-goroutine test: nothing for the race detector to find; runs without -race")
	}
}

// withScalar runs f with the vector check switched off.
func withScalar(f func()) {
	saved := useAVX2
	useAVX2 = false
	defer func() { useAVX2 = saved }()
	f()
}

func TestVectorsLayout(t *testing.T) {
	var v utf8Vectors
	for _, tt := range []struct {
		name      string
		got, want uintptr
	}{
		{"first", unsafe.Offsetof(v.first), 0},
		{"firstLow", unsafe.Offsetof(v.firstLow), 16},
		{"second", unsafe.Offsetof(v.second), 32},
		{"lowNibbles", unsafe.Offsetof(v.lowNibbles), 48},
		{"third", unsafe.Offsetof(v.third), 80},
		{"fourth", unsafe.Offsetof(v.fourth), 112},
		{"high", unsafe.Offsetof(v.high), 144},
		{"uncut", unsafe.Offsetof(v.uncut), 176},
	} {
		if tt.got != tt.want {
			t.Errorf("offset of %s = %d, want %d (as utf8_amd64.s has it)", tt.name, tt.got, tt.want)
		}
	}
}

// TestBadPairTables checks the tables against the scalar code's lead table
// for every pair of bytes: the low seven bits say "bad" exactly when the
// second byte may not follow the first, and the high bit marks exactly the
// continuation-after-continuation pairs.
func TestBadPairTables(t *testing.T) {
	isCont := func(c int) bool { return c&0xC0 == 0x80 }
	for a := range 256 {
		for b := range 256 {
			kinds := vectors.first[a>>4] & vectors.firstLow[a&15] & vectors.second[b>>4]
			var bad bool
			switch {
			case a < 0x80:
				bad = isCont(b)
			case isCont(a):
				bad = false // decided by the bytes further back
			default:
				lc := leads[a]
				bad = b < int(lc.lo) || b > int(lc.hi)
			}
			if got := kinds&^twoContBit != 0; got != bad {
				t.Fatalf("pair %02X %02X: bad = %v, want %v (kinds %08b)", a, b, got, bad, kinds)
			}
			if got, want := kinds&twoContBit != 0, isCont(a) && isCont(b); got != want {
				t.Fatalf("pair %02X %02X: continuation pair = %v, want %v", a, b, got, want)
			}
		}
	}
}

// checkVector compares validPrefix with and without the vector check on in.
func checkVector(t *testing.T, in []byte) {
	t.Helper()
	got := validPrefix(in)
	var want int
	withScalar(func() { want = validPrefix(in) })
	if got != want {
		t.Fatalf("validPrefix = %d with AVX2, %d without, on %q", got, want, in)
	}
}

// TestVectorPairsAtBlockEdges puts every pair of bytes, after ASCII or
// after multi-byte text, at every offset around the 32- and 64-byte block
// edges, where the check needs the block before.
func TestVectorPairsAtBlockEdges(t *testing.T) {
	requireAVX2(t)
	skipExhaustiveUnderRace(t)
	backgrounds := [][]byte{
		[]byte(repeatTo("a", 200)),
		[]byte(repeatTo("é€🎉x", 200)),
	}
	offsets := []int{0, 1, 29, 30, 31, 32, 33, 61, 62, 63, 64, 65, 95, 96, 127, 128, 160, 190}
	in := make([]byte, 200)
	for _, bg := range backgrounds {
		for _, off := range offsets {
			for a := range 256 {
				for b := range 256 {
					copy(in, bg)
					in[off], in[off+1] = byte(a), byte(b)
					checkVector(t, in)
				}
			}
		}
	}
}

// TestVectorSequencesAtBlockEdges puts every sequence of four bytes taken
// from the range edges across the 32-byte block edges and at the end of the
// input, where a sequence may be cut.
func TestVectorSequencesAtBlockEdges(t *testing.T) {
	requireAVX2(t)
	skipExhaustiveUnderRace(t)
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
		0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF}
	bg := []byte(repeatTo("ab", 128))
	in := make([]byte, 128)
	for _, a := range edges {
		for _, b := range edges {
			for _, c := range edges {
				for _, d := range edges {
					for _, off := range []int{29, 30, 31, 61, 62, 63} {
						copy(in, bg)
						in[off], in[off+1], in[off+2], in[off+3] = a, b, c, d
						checkVector(t, in)
						checkVector(t, in[:off+1]) // cut after a, b or c
						checkVector(t, in[:off+2])
						checkVector(t, in[:off+3])
					}
				}
			}
		}
	}
}

// TestVectorRandom compares the two paths on long random mixes of
// characters of every length with now and then a stray byte.
func TestVectorRandom(t *testing.T) {
	requireAVX2(t)
	pieces := []string{"a", "bc", " ", "\n", "é", "€", "🎉", "\u07FF", "\uFFFD", "\U0010FFFF", "\u0800", "\uD7FF", "\uE000"}
	stray := []string{"\x80", "\xC0", "\xC2", "\xE2\x82", "\xED\xA0\x80", "\xF0\x8F", "\xF4\x90", "\xF5", "\xFF"}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		var in []byte
		for len(in) < 64+rng.IntN(600) {
			in = append(in, pieces[rng.IntN(len(pieces))]...)
		}
		if rng.IntN(3) > 0 {
			at := rng.IntN(len(in))
			s := stray[rng.IntN(len(stray))]
			in = append(in[:at:at], append([]byte(s), in[at:]...)...)
		}
		checkVector(t, in)
	}
}

func repeatTo(s string, n int) string {
	b := make([]byte, 0, n+len(s))
	for len(b) < n {
		b = append(b, s...)
	}
	return string(b[:n])
}

// BenchmarkValidPrefix checks the UTF-8 of a chat stream (mostly ASCII,
// raw UTF-8 in the content) and of 64 KiB events that mix scripts, with the
// vector check and in plain Go.
func BenchmarkValidPrefix(b *testing.B) {
	inputs := []struct {
		name string
		data []byte
	}{
		{"chat", chatStream(2000, "\n")},
		{"mixed-scripts", mixedEventStream(4, 64<<10)},
	}
	for _, in := range inputs {
		for _, vector := range []bool{true, false} {
			name := in.name + "/scalar"
			if vector {
				name = in.name + "/avx2"
			}
			b.Run(name, func(b *testing.B) {
				if vector {
					requireAVX2(b)
				}
				saved := useAVX2
				useAVX2 = vector
				defer func() { useAVX2 = saved }()
				b.SetBytes(int64(len(in.data)))
				b.ReportAllocs()
				for b.Loop() {
					if validPrefix(in.data) != len(in.data) {
						b.Fatal("the input is well-formed")
					}
				}
			})
		}
	}
}
