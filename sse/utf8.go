package sse

import (
	"encoding/binary"
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
// checked 16 bytes at a time, and the fast path resumes after every
// multi-byte character, unlike utf8.Valid's, which gives it up for the rest
// of the input at the first one; LLM text mixes the two all the time.
func validPrefix(b []byte) int {
	n := len(b)
	i := 0
	for i < n {
		for i+16 <= n {
			if (binary.LittleEndian.Uint64(b[i:])|binary.LittleEndian.Uint64(b[i+8:]))&asciiMask != 0 {
				break
			}
			i += 16
		}
		if i+8 <= n && binary.LittleEndian.Uint64(b[i:])&asciiMask == 0 {
			i += 8
			continue
		}
		for i < n && b[i] < utf8.RuneSelf {
			i++
		}
		if i == n {
			break
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return n
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
