package eventstream

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// crcUpdate agrees with crc32 for every length around its thresholds (8,
// 16, 64 and the 16-byte blocks past it) and any starting CRC.
func TestCRCUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for n := range len(buf) + 1 {
		for _, start := range []uint32{0, 0xffffffff, rng.Uint32()} {
			p := buf[len(buf)-n:]
			if got, want := crcUpdate(start, p), crc32.Update(start, crc32.IEEETable, p); got != want {
				t.Fatalf("%d bytes from 0x%08x: 0x%08x, want 0x%08x", n, start, got, want)
			}
		}
	}
	for range 10000 {
		p := buf[:8]
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		if got, want := crcStep8(0, p), crc32.ChecksumIEEE(p); got != want {
			t.Fatalf("prelude % x: 0x%08x, want 0x%08x", p, got, want)
		}
	}
}
