package eventstream

import (
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// Every frame hashes two short inputs: its 8-byte prelude, and the last
// len%16 bytes of the rest, which crc32 (past its PCLMULQDQ path on amd64)
// hashes a byte at a time, each step waiting on the one before. One step of
// slicing-by-8 hashes 8 bytes with independent lookups instead: about 4×
// faster for the prelude here.

// slicing8 holds the tables of slicing-by-8 for CRC-32 (IEEE): slicing8[k][b]
// is the CRC of byte b followed by k zero bytes. 8 KiB, made on first use,
// so a program that never reads a frame never builds it.
var slicing8 = sync.OnceValue(func() *[8][256]uint32 {
	var t [8][256]uint32
	t[0] = *crc32.IEEETable
	for b := range 256 {
		c := t[0][b]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][b] = c
		}
	}
	return &t
})

// crcStep8 updates the IEEE CRC crc with p's first 8 bytes.
func crcStep8(crc uint32, p []byte) uint32 {
	p = p[:8]
	c := ^crc ^ binary.LittleEndian.Uint32(p)
	t := slicing8()
	return ^(t[0][p[7]] ^ t[1][p[6]] ^ t[2][p[5]] ^ t[3][p[4]] ^
		t[4][c>>24] ^ t[5][c>>16&0xff] ^ t[6][c>>8&0xff] ^ t[7][c&0xff])
}

// crcUpdate is crc32.Update(crc, crc32.IEEETable, p) with an 8-byte step
// for the tail that crc32 would hash a byte at a time. crc32 takes its
// hardware path for whole 16-byte blocks of an input of at least 64 bytes.
func crcUpdate(crc uint32, p []byte) uint32 {
	n := 0
	if len(p) >= 64 {
		n = len(p) &^ 15
	}
	crc = crc32.Update(crc, crc32.IEEETable, p[:n])
	p = p[n:]
	for len(p) >= 8 {
		crc = crcStep8(crc, p)
		p = p[8:]
	}
	return crc32.Update(crc, crc32.IEEETable, p)
}
