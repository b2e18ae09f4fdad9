package sse

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidPrefix(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"ASCII shorter than 8", "abc", 3},
		{"ASCII of 16", "0123456789abcdef", 16},
		{"ASCII of 40", "0123456789012345678901234567890123456789", 40},
		{"two-byte", "é", 2},
		{"bad after 17 ASCII", "01234567890123456\xFF", 17},
		{"bad at 9 within a word", "012345678\x80abcdefgh", 9},
		{"bad after a multi-byte char", "aé\xFF", 3},
		{"four-byte then ASCII", "🎉0123456789abcdef", 20},
		{"truncated at the end", "0123456789\xE2\x82", 10},
		{"surrogate", "ab\xED\xA0\x80", 2},
		{"E0 overlong", "\xE0\x9F\xBF", 0},
		{"E0 smallest", "\xE0\xA0\x80", 3},
		{"ED largest", "\xED\x9F\xBF", 3},
		{"F0 overlong", "\xF0\x8F\xBF\xBF", 0},
		{"F0 smallest", "\xF0\x90\x80\x80", 4},
		{"F4 largest", "\xF4\x8F\xBF\xBF", 4},
		{"F4 too large", "\xF4\x90\x80\x80", 0},
		{"C1 overlong", "\xC1\xBF", 0},
		{"C2 smallest", "\xC2\x80", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := validPrefix([]byte(tt.in)); got != tt.want {
				t.Errorf("validPrefix(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// TestDecodeMatchesReference checks validPrefix and appendDecoded against
// utf8.Valid and the step-by-step reference decoder on every 1- and 2-byte
// input, and on 3-byte inputs whose last two bytes are range edges, alone
// and embedded in ASCII.
func TestDecodeMatchesReference(t *testing.T) {
	check := func(in []byte) {
		t.Helper()
		i := validPrefix(in)
		if (i == len(in)) != utf8.Valid(in) {
			t.Fatalf("validPrefix(%q) = %d but utf8.Valid = %v", in, i, utf8.Valid(in))
		}
		if !utf8.Valid(in[:i]) {
			t.Fatalf("validPrefix(%q) = %d, but that prefix is not valid", in, i)
		}
		got := string(appendDecoded(nil, in, i))
		if want := string(refDecode(in)); got != want {
			t.Fatalf("decode(%q) = %q, want %q", in, got, want)
		}
	}
	// Bytes at the edges of the ranges the decoder distinguishes.
	edges := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
		0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF}
	for a := range 256 {
		check([]byte{byte(a)})
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
		}
		for _, b := range edges {
			for _, c := range edges {
				check([]byte{byte(a), b, c})
				check([]byte{'0', '1', '2', '3', '4', '5', '6', '7', '8', byte(a), b, c, 0x80, 'z'})
			}
		}
	}
}

// TestValidPrefixEveryPosition puts one ill-formed byte, and one 2-, 3- or
// 4-byte character before it, at every position of a 200-byte ASCII run, so
// that every step of the fast path (64, 32, 16, 8 bytes, single bytes) meets
// it at every offset.
func TestValidPrefixEveryPosition(t *testing.T) {
	for _, char := range []string{"", "é", "€", "🎉"} {
		for pos := 0; pos+len(char) < 200; pos++ {
			in := []byte(strings.Repeat("a", 200))
			copy(in[pos:], char)
			in[pos+len(char)] = 0xFF
			if got, want := validPrefix(in), pos+len(char); got != want {
				t.Fatalf("%q at %d then 0xFF: validPrefix = %d, want %d", char, pos, got, want)
			}
			in[pos+len(char)] = 'a'
			if got := validPrefix(in); got != len(in) {
				t.Fatalf("%q at %d: validPrefix = %d, want %d", char, pos, got, len(in))
			}
		}
	}
}

func TestGather(t *testing.T) {
	for pattern := range 256 {
		var w uint64
		for i := range 8 {
			b := uint64(0x3A + i) // low bits that must not matter
			if pattern>>i&1 == 1 {
				b |= 0x80
			}
			w |= b << (8 * i)
		}
		if got := gather(w); got != uint64(pattern) {
			t.Fatalf("gather(%#x) = %08b, want %08b", w, got, pattern)
		}
	}
}

// TestValidPrefixRandom compares validPrefix with a byte-at-a-time
// reference on random mixes of ASCII, well-formed characters of every
// length and stray bytes, long enough to cross many 64-byte blocks.
func TestValidPrefixRandom(t *testing.T) {
	pieces := []string{"a", "bc", " ", "\n", "é", "€", "🎉", "\u07FF", "\uFFFD", "\U0010FFFF", "\u0800"}
	stray := []string{"\x80", "\xC0", "\xE2\x82", "\xED\xA0\x80", "\xF4\x90", "\xFF"}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 3000 {
		var in []byte
		for len(in) < 40+rng.IntN(400) {
			in = append(in, pieces[rng.IntN(len(pieces))]...)
		}
		if n%2 == 0 {
			at := rng.IntN(len(in))
			in = append(in[:at:at], append([]byte(stray[rng.IntN(len(stray))]), in[at:]...)...)
		}
		want := 0
		for want < len(in) {
			r, size := utf8.DecodeRune(in[want:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			want += size
		}
		if got := validPrefix(in); got != want {
			t.Fatalf("validPrefix(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzValidPrefix compares validPrefix, which takes the vector check where
// the CPU has one, with scalarPrefix and with a reference built on
// utf8.DecodeRune. The input is placed after pad ASCII bytes and repeated,
// so that it meets the vector check's block edges at every offset.
func FuzzValidPrefix(f *testing.F) {
	f.Add(uint8(0), []byte("plain ASCII text that is long enough for one vector block or two"))
	f.Add(uint8(31), []byte("é€🎉\U0010FFFF\u07FF\u0800"))
	f.Add(uint8(30), []byte("\xE2\x82"))
	f.Add(uint8(61), []byte("\xF4\x90\x80\x80"))
	f.Add(uint8(3), []byte("\xED\xA0\x80\xE0\x9F\xBF\xF0\x8F\xBF\xBF\xC1\xBF"))
	f.Fuzz(func(t *testing.T, pad uint8, data []byte) {
		in := []byte(strings.Repeat("p", int(pad%64)))
		for range 4 {
			in = append(in, data...)
		}
		for _, b := range [][]byte{data, in} {
			want := 0
			for want < len(b) {
				r, size := utf8.DecodeRune(b[want:])
				if r == utf8.RuneError && size == 1 {
					break
				}
				want += size
			}
			if got := validPrefix(b); got != want {
				t.Fatalf("validPrefix(%q) = %d, want %d", b, got, want)
			}
			if got := scalarPrefix(b); got != want {
				t.Fatalf("scalarPrefix(%q) = %d, want %d", b, got, want)
			}
		}
	})
}

// TestIncomplete: a non-ASCII start of input is incomplete exactly when
// utf8.FullRune says more bytes could still make it a whole character, for
// every input of one or two bytes and every three-byte input of range edges.
func TestIncomplete(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		if got, want := incomplete(b), !utf8.FullRune(b); got != want {
			t.Fatalf("incomplete(%q) = %v, want %v", b, got, want)
		}
	}
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0}
	for a := 0x80; a < 256; a++ {
		check([]byte{byte(a)})
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
			for _, c := range edges {
				check([]byte{byte(a), byte(b), c})
			}
		}
	}
}
