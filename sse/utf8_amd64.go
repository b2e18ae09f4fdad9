//go:build !purego

package sse

// The vector check (after Keiser and Lemire, "Validating UTF-8 In Less Than
// One Instruction Per Byte", 2021) looks at every byte together with the
// three before it. Whether a byte may follow the one before depends only on
// three nibbles: the high and low nibble of the first and the high nibble of
// the second. So each kind of bad pair below is a set of values for each
// nibble, three 16-entry tables give one bit per kind, and a pair is bad
// when the three lookups share a bit. What a pair cannot tell, whether a
// continuation byte is one too many, comes from the bytes two and three back.
//
// In the chat corpus most 64-byte blocks are ASCII; those cost one test.
// The rest are checked 32 bytes at a time in about 20 instructions where the
// scalar code takes a branch per character.

// vectorPrefix returns a k such that b[:k] is valid UTF-8 and ends where a
// sequence does: the part of b the vector check vouched for, where the
// scalar check takes over. It is 0 where the CPU lacks AVX2 or b is too
// short to be worth it.
func vectorPrefix(b []byte) int {
	if !useAVX2 || len(b) < 64 {
		return 0
	}
	return sequenceStart(b, validBlocksAVX2(&b[0], len(b), &vectors))
}

// sequenceStart returns the start of the sequence that b[n-1] belongs to,
// or n if b[n-1] is ASCII, given that the vector check passed every byte
// before n: the largest k <= n where b[:k] is known to be valid. The
// sequence at b[n-1] may be cut by the end of b or be where the check
// failed, so scalarPrefix looks at it again.
func sequenceStart(b []byte, n int) int {
	if n == 0 || b[n-1] < 0x80 {
		return n
	}
	k := n - 1
	// At most three continuation bytes: the check passed them.
	for k > 0 && b[k]&0xC0 == 0x80 {
		k--
	}
	return k
}

// validBlocksAVX2 checks p[:n] in 32-byte blocks and returns how many bytes
// it passed, a multiple of 32. With no ill-formed sequence that is every
// whole block. Otherwise it stops before the bad one: at the start of the
// 64 bytes whose check failed, or before an ASCII block that a cut sequence
// runs into. A sequence cut by the end of the last block is not reported:
// the bytes after it are not looked at. In utf8_amd64.s.
//
//go:noescape
func validBlocksAVX2(p *byte, n int, v *utf8Vectors) int

// utf8Vectors holds the constants validBlocksAVX2 loads. The offsets are
// fixed: the assembly uses them (TestVectorsLayout keeps them honest).
type utf8Vectors struct {
	first, firstLow, second [16]byte // the bad-pair tables, by nibble
	lowNibbles              [32]byte // 0x0F in every byte
	third                   [32]byte // 0xE0-0x80: a byte two back that needs a third byte
	fourth                  [32]byte // 0xF0-0x80: a byte three back that needs a fourth byte
	high                    [32]byte // 0x80 in every byte
	// The largest value each byte of a block may hold with no sequence cut
	// by the block's end: anything for the first 29, then less than a
	// 4-byte lead, a 3-byte lead, a 2-byte lead.
	uncut [32]byte
}

// A badPair is a kind of ill-formed byte pair, as the nibbles that make it:
// bit i of each set is nibble value i.
type badPair struct {
	firstHigh, firstLow, secondHigh uint16
}

// Nibble sets.
const (
	anyNibble  = 0xFFFF
	asciiHigh  = 0x00FF // 0x00-0x7F
	contHigh   = 0x0F00 // 0x80-0xBF
	leadHigh   = 0xF000 // 0xC0-0xFF
	notCont    = asciiHigh | leadHigh
	nibble0    = 1 << 0x0
	nibble1    = 1 << 0x1
	nibble8    = 1 << 0x8
	nibble9    = 1 << 0x9
	nibbleAB   = 1<<0xA | 1<<0xB
	nibbleC    = 1 << 0xC
	nibbleD    = 1 << 0xD
	nibbleE    = 1 << 0xE
	nibbleF    = 1 << 0xF
	from4      = 0xFFF0 // 4-F
	from5      = 0xFFE0 // 5-F
	twoConts   = 7      // the bit of the continuation-after-continuation kind
	twoContBit = 1 << twoConts
)

// badPairs are the kinds, one per bit of the table entries. twoConts must be
// the high bit: the check flips it where a continuation is expected.
var badPairs = [8]badPair{
	// A lead byte, then no continuation byte.
	{leadHigh, anyNibble, notCont},
	// ASCII, then a continuation byte.
	{asciiHigh, anyNibble, contHigh},
	// C0 or C1: a 2-byte form of an ASCII character.
	{nibbleC, nibble0 | nibble1, contHigh},
	// E0 80-9F: a 3-byte form of what fits in two.
	{nibbleE, nibble0, nibble8 | nibble9},
	// ED A0-BF: a UTF-16 surrogate.
	{nibbleE, nibbleD, nibbleAB},
	// F0 80-8F, or F5-FF 80-8F: a 4-byte form of what fits in three, or
	// above U+10FFFF.
	{nibbleF, nibble0 | from5, nibble8},
	// F4-FF 90-BF: above U+10FFFF.
	{nibbleF, from4, nibble9 | nibbleAB},
	// A continuation byte, then another: right only as the third or fourth
	// byte of a sequence.
	{contHigh, anyNibble, contHigh},
}

var vectors = func() (v utf8Vectors) {
	for bit, k := range badPairs {
		for n := range 16 {
			if k.firstHigh&(1<<n) != 0 {
				v.first[n] |= 1 << bit
			}
			if k.firstLow&(1<<n) != 0 {
				v.firstLow[n] |= 1 << bit
			}
			if k.secondHigh&(1<<n) != 0 {
				v.second[n] |= 1 << bit
			}
		}
	}
	for i := range 32 {
		v.lowNibbles[i], v.third[i], v.fourth[i], v.high[i], v.uncut[i] = 0x0F, 0xE0-0x80, 0xF0-0x80, 0x80, 0xFF
	}
	v.uncut[29], v.uncut[30], v.uncut[31] = 0xF0-1, 0xE0-1, 0xC0-1
	return v
}()
