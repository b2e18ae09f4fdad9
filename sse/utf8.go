package sse

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The stream is UTF-8 (WHATWG HTML §9.2.5): bytes that are not are decoded
// with the Encoding Standard's "UTF-8 decode", one U+FFFD per maximal
// subpart of an ill-formed sequence. CR, LF and ':' are ASCII and never part
// of a multi-byte sequence, so decoding one line at a time gives the same
// text as decoding the whole stream first.

// bom is U+FEFF in UTF-8; one at the very start of a stream is dropped.
const bom = "\xEF\xBB\xBF"

// replacement is U+FFFD in UTF-8.
const replacement = "\uFFFD"

const asciiMask = 0x8080808080808080

// validPrefix returns the index of the first byte of the first ill-formed
// sequence in b, or len(b) when all of b is valid UTF-8. Where the CPU
// allows, vector instructions check most of b (see utf8_amd64.go) and
// scalarPrefix finishes: the last partial block, or the block where the
// vector check found something wrong, since it only says whether a block is
// good, not where the first bad sequence starts.
func validPrefix(b []byte) int {
	k := vectorPrefix(b)
	return k + scalarPrefix(b[k:])
}

// scalarPrefix is validPrefix in plain Go. Runs of ASCII are checked 64
// bytes at a time, and the fast path resumes after every multi-byte
// character, unlike utf8.Valid's, which gives it up for the rest of the
// input at the first one; LLM text mixes the two all the time.
func scalarPrefix(b []byte) int {
	// Reslicing p, rather than indexing b, lets the compiler drop the
	// bounds checks (the pattern of utf8.Valid).
	p := b[:len(b):len(b)]
	// Three bytes past the block must exist, so that the four bytes at
	// any position in it can be read: a sequence then needs no length
	// check, a branch per sequence saved (about 7% over LLM text).
	for len(p) >= 64+3 {
		w0 := binary.LittleEndian.Uint64(p)
		w1 := binary.LittleEndian.Uint64(p[8:])
		w2 := binary.LittleEndian.Uint64(p[16:])
		w3 := binary.LittleEndian.Uint64(p[24:])
		w4 := binary.LittleEndian.Uint64(p[32:])
		w5 := binary.LittleEndian.Uint64(p[40:])
		w6 := binary.LittleEndian.Uint64(p[48:])
		w7 := binary.LittleEndian.Uint64(p[56:])
		if (w0|w1|w2|w3|w4|w5|w6|w7)&asciiMask == 0 {
			p = p[64:]
			continue
		}
		// One bit per byte of the block, set for non-ASCII bytes: the
		// multiply gathers each word's eight high bits into its top byte.
		// Walking the set bits checks every sequence that starts in the
		// block with a branch per sequence that goes the same way for all
		// valid text, instead of per-word and per-length branches that
		// mispredict where text mixes scripts.
		m := gather(w0) | gather(w1)<<8 | gather(w2)<<16 | gather(w3)<<24 |
			gather(w4)<<32 | gather(w5)<<40 | gather(w6)<<48 | gather(w7)<<56
		end := 64
		for m != 0 {
			i := bits.TrailingZeros64(m)
			size := seqLen4(p[i:])
			if size == 0 {
				return len(b) - len(p) + i
			}
			end = i + size
			// Drop the bits of this sequence and of the bytes before it;
			// a shift of 64 or more yields 0, so the mask empties.
			m &^= 1<<uint(end) - 1
		}
		p = p[max(end, 64):]
	}
	for len(p) > 0 {
		if p[0] < utf8.RuneSelf {
			if len(p) >= 8 && binary.LittleEndian.Uint64(p)&asciiMask == 0 {
				p = p[8:]
			} else {
				p = p[1:]
			}
			continue
		}
		size := seqLen(p)
		if size == 0 {
			return len(b) - len(p)
		}
		p = p[size:]
	}
	return len(b)
}

// gather maps the high bits of w's bytes to one bit per byte (the high bit
// of byte i to bit i).
func gather(w uint64) uint64 {
	return (w & asciiMask >> 7) * 0x0102040810204080 >> 56
}

// leadClass says what may follow a lead byte: the sequence length (0 for a
// byte that cannot lead one), the range of the second byte, and which bits
// of the third and fourth bytes to check (they must be continuation bytes).
type leadClass struct {
	size   uint8
	lo, hi uint8
	cmask  uint32
}

// leads is a read-only table of the classes, by lead byte (Unicode Table
// 3-7), built once; only non-ASCII bytes are looked up.
var leads = func() (t [256]leadClass) {
	for c := range t {
		switch {
		case c >= 0xC2 && c <= 0xDF:
			t[c] = leadClass{size: 2, lo: 0x80, hi: 0xBF}
		case c >= 0xE0 && c <= 0xEF:
			t[c] = leadClass{size: 3, lo: 0x80, hi: 0xBF, cmask: 0x00C00000}
		case c >= 0xF0 && c <= 0xF4:
			t[c] = leadClass{size: 4, lo: 0x80, hi: 0xBF, cmask: 0xC0C00000}
		default:
			t[c] = leadClass{lo: 1, hi: 0} // an empty range: nothing passes
		}
	}
	t[0xE0].lo, t[0xED].hi, t[0xF0].lo, t[0xF4].hi = 0xA0, 0x9F, 0x90, 0x8F
	return t
}()

// seqLen4 is seqLen for len(b) >= 4, with no branch on the sequence's
// length (in text that mixes 2- and 3-byte characters such a branch
// mispredicts): the checks are arithmetic, and the one branch goes the same
// way for all valid text.
func seqLen4(b []byte) int {
	v := binary.LittleEndian.Uint32(b)
	lc := &leads[byte(v)]
	b1 := int(byte(v >> 8))
	if (b1-int(lc.lo))|(int(lc.hi)-b1) < 0 || v&lc.cmask != lc.cmask&0x80808080 {
		return 0
	}
	return int(lc.size)
}

// seqLen returns the length of the well-formed multi-byte sequence at the
// start of b, whose first byte is not ASCII, or 0 if it is ill-formed.
func seqLen(b []byte) int {
	if n, size := seqPrefix(b); n == size {
		return size
	}
	return 0
}

// seqPrefix returns how many bytes at the start of b are the lead byte b[0]
// and the continuation bytes allowed after it (Unicode Table 3-7, as leads
// has it: the second byte's range depends on the first), at most the
// sequence's length; and that length, size, 0 for a byte that cannot lead
// a sequence. n is at least 1, and n == size exactly when b starts with a
// well-formed sequence.
func seqPrefix(b []byte) (n, size int) {
	lc := &leads[b[0]]
	lo, hi := lc.lo, lc.hi
	n, size = 1, int(lc.size)
	for n < size && n < len(b) && b[n] >= lo && b[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n, size
}

// appendDecoded appends b to dst with every maximal subpart of an ill-formed
// sequence replaced by U+FFFD. from is where the first ill-formed sequence
// starts (as validPrefix returns); the bytes before it are copied as they are.
func appendDecoded(dst, b []byte, from int) []byte {
	dst = append(dst, b[:from]...)
	for i := from; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || size > 1 {
			dst = append(dst, b[i:i+size]...)
			i += size
			continue
		}
		dst = append(dst, replacement...)
		i += maximalSubpart(b[i:])
	}
	return dst
}

// maximalSubpart returns the length of the maximal subpart of the ill-formed
// sequence at the start of b: a lead byte and the continuation bytes that
// could still have completed it (Encoding Standard, "UTF-8 decoder": the
// lower and upper boundaries narrow the second byte after E0, ED, F0 and F4).
// It is at least 1. b must start with an ill-formed sequence.
func maximalSubpart(b []byte) int {
	n, _ := seqPrefix(b)
	return n
}

// incomplete reports whether b, which starts with a sequence validPrefix
// found ill-formed, is only the start of a sequence that more bytes could
// complete: its lead byte and every byte after it are allowed there, and
// there are fewer than the sequence needs.
func incomplete(b []byte) bool {
	n, size := seqPrefix(b)
	return n == len(b) && n < size
}
