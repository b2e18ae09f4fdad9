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
// sequence in b, or len(b) when all of b is valid UTF-8. Runs of ASCII are
// checked up to 64 bytes at a time, and the fast path resumes after every
// multi-byte character (or run of them), unlike utf8.Valid's, which gives it
// up for the rest of the input at the first one; LLM text mixes the two all
// the time.
func validPrefix(b []byte) int {
	// Reslicing p, rather than indexing b, lets the compiler drop the
	// bounds checks (the pattern of utf8.Valid).
	p := b[:len(b):len(b)]
	for len(p) > 0 {
		for len(p) >= 64 {
			if (binary.LittleEndian.Uint64(p)|binary.LittleEndian.Uint64(p[8:])|
				binary.LittleEndian.Uint64(p[16:])|binary.LittleEndian.Uint64(p[24:])|
				binary.LittleEndian.Uint64(p[32:])|binary.LittleEndian.Uint64(p[40:])|
				binary.LittleEndian.Uint64(p[48:])|binary.LittleEndian.Uint64(p[56:]))&asciiMask != 0 {
				break
			}
			p = p[64:]
		}
		for len(p) >= 32 {
			if (binary.LittleEndian.Uint64(p)|binary.LittleEndian.Uint64(p[8:])|
				binary.LittleEndian.Uint64(p[16:])|binary.LittleEndian.Uint64(p[24:]))&asciiMask != 0 {
				break
			}
			p = p[32:]
		}
		for len(p) >= 16 {
			if (binary.LittleEndian.Uint64(p)|binary.LittleEndian.Uint64(p[8:]))&asciiMask != 0 {
				break
			}
			p = p[16:]
		}
		if len(p) >= 8 {
			x := binary.LittleEndian.Uint64(p) & asciiMask
			if x == 0 {
				p = p[8:]
				continue
			}
			p = p[bits.TrailingZeros64(x)>>3:]
		} else {
			for len(p) > 0 && p[0] < utf8.RuneSelf {
				p = p[1:]
			}
			if len(p) == 0 {
				break
			}
		}
		// Non-ASCII text comes in runs (words, CJK sentences): decode
		// the whole run before going back to the ASCII steps.
		for len(p) > 0 && p[0] >= utf8.RuneSelf {
			size := seqLen(p)
			if size == 0 {
				return len(b) - len(p)
			}
			p = p[size:]
		}
	}
	return len(b)
}

// seqLen returns the length of the well-formed multi-byte sequence at the
// start of b, whose first byte is not ASCII, or 0 if it is ill-formed. The
// second byte's range depends on the first (Unicode Table 3-7).
func seqLen(b []byte) int {
	c := b[0]
	switch {
	case c < 0xC2:
		return 0
	case c < 0xE0:
		if len(b) < 2 || b[1]&0xC0 != 0x80 {
			return 0
		}
		return 2
	case c < 0xF0:
		if len(b) < 3 || b[2]&0xC0 != 0x80 {
			return 0
		}
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
		if b[1] < lo || b[1] > hi {
			return 0
		}
		return 3
	case c < 0xF5:
		if len(b) < 4 || b[2]&0xC0 != 0x80 || b[3]&0xC0 != 0x80 {
			return 0
		}
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
		if b[1] < lo || b[1] > hi {
			return 0
		}
		return 4
	}
	return 0
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
	c := b[0]
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(b) && b[n] >= lo && b[n] <= hi {
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}

// incomplete reports whether b, which starts with a sequence validPrefix
// found ill-formed, is only the start of a sequence that more bytes could
// complete: its lead byte and every byte after it are allowed there, and
// there are fewer than the sequence needs.
func incomplete(b []byte) bool {
	n := maximalSubpart(b)
	return n == len(b) && n < seqNeed(b[0])
}

// seqNeed returns the length of the sequence a lead byte starts, or 0 for a
// byte that cannot lead one.
func seqNeed(c byte) int {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 2
	case c >= 0xE0 && c <= 0xEF:
		return 3
	case c >= 0xF0 && c <= 0xF4:
		return 4
	}
	return 0
}
