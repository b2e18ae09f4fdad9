package eventstream

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestReaderSourceErrorAfterFrames(t *testing.T) {
	f := bedrockFrame("messageStop", `{"stopReason":"end_turn"}`)
	boom := errors.New("connection reset")
	r := NewReader(io.MultiReader(bytes.NewReader(concat(f, f, f[:7])), iotest.ErrReader(boom)))
	for i := range 2 {
		if _, err := r.Next(); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	for range 2 { // and it sticks
		if m, err := r.Next(); err != boom || m.Headers != nil || m.Payload != nil {
			t.Fatalf("Next = %+v, %v; want the source's error unwrapped", m, err)
		}
	}
}

func TestReaderNoSource(t *testing.T) {
	for name, r := range map[string]*Reader{"zero": {}, "nil": NewReader(nil)} {
		if _, err := r.Next(); err != ErrNoSource {
			t.Errorf("%s Reader: %v, want ErrNoSource", name, err)
		}
	}
}

// badCountReader reports reading n bytes whatever it was given.
type badCountReader struct{ n int }

func (b badCountReader) Read(p []byte) (int, error) { return b.n, nil }

func TestReaderBadReads(t *testing.T) {
	for _, n := range []int{-1, 1 << 20} {
		if _, err := NewReader(badCountReader{n}).Next(); err != ErrBadReadCount {
			t.Errorf("a count of %d: %v, want ErrBadReadCount", n, err)
		}
	}
	if _, err := NewReader(badCountReader{0}).Next(); err != io.ErrNoProgress {
		t.Errorf("endless empty reads: %v, want io.ErrNoProgress", err)
	}
}

func TestReaderStickyAndReleased(t *testing.T) {
	bad := bedrockFrame("x", "y")
	bad[len(bad)-1] ^= 1
	r := NewReader(bytes.NewReader(bad))
	_, err1 := r.Next()
	_, err2 := r.Next()
	if !errors.Is(err1, ErrBadMessageCRC) || err1 != err2 {
		t.Fatalf("Next = %v, then %v; want the same ErrBadMessageCRC", err1, err2)
	}
	if r.buf != nil || r.hd.hs != nil {
		t.Error("a stopped Reader keeps its buffers")
	}
}

// A frame larger than the first buffer grows it, but only to the limit.
func TestReaderGrowsToTheLimit(t *testing.T) {
	f := goodFrame(nil, bytes.Repeat([]byte("x"), 5000))
	r := NewReader(bytes.NewReader(concat(f, f)), WithMaxFrameSize(len(f)))
	for range 2 {
		m, err := r.Next()
		if err != nil || len(m.Payload) != 5000 {
			t.Fatalf("Next = %d bytes, %v", len(m.Payload), err)
		}
		if len(r.buf) > len(f) {
			t.Fatalf("buffer of %d bytes, limit %d", len(r.buf), len(f))
		}
	}
}

// Every byte of a frame matters: flipping any bit of a good frame gives an
// error (or, in a header's value or the payload, a CRC error), never a
// different frame.
func TestEveryBitFlipFails(t *testing.T) {
	f := bedrockFrame("contentBlockDelta", `{"delta":{"text":"Hi"}}`)
	for i := range len(f) * 8 {
		in := bytes.Clone(f)
		in[i/8] ^= 1 << (i % 8)
		res := readAll(bytes.NewReader(in))
		if len(res.Msgs) != 0 || res.err == io.EOF {
			t.Fatalf("bit %d flipped: %d frames, %v", i, len(res.Msgs), res.err)
		}
		if i/8 >= 12 && i/8 < len(f)-4 && !errors.Is(res.err, ErrBadMessageCRC) {
			t.Fatalf("bit %d flipped, past the prelude: %v, want ErrBadMessageCRC", i, res.err)
		}
	}
}
