package eventstream

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
)

// boolHeaders is a headers section of exactly n bytes of three-byte bool
// headers ("a" true), the densest the encoding allows, padded with one
// string header when n is not a multiple of three.
func boolHeaders(n int) []byte {
	var h []byte
	if r := n % 3; r != 0 {
		// A string header of one-byte name and k-byte value is 5+k bytes;
		// pad to the next multiple of three above 5.
		k := r + 3*2 - 5
		h = append(h, stringHeader("s", string(bytes.Repeat([]byte{'x'}, k)))...)
	}
	for len(h) < n {
		h = append(h, 1, 'a', wireTrue)
	}
	return h
}

// TestHeadersLimit: a headers section of MaxHeadersSize bytes reads, one
// byte more fails from the prelude with ErrHeadersTooLarge, whatever the
// split, and AppendFrame refuses to write it.
func TestHeadersLimit(t *testing.T) {
	for _, n := range []int{MaxHeadersSize - 1, MaxHeadersSize, MaxHeadersSize + 1} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			h := boolHeaders(n)
			if len(h) != n {
				t.Fatalf("built %d bytes of headers, want %d", len(h), n)
			}
			in := goodFrame(h, []byte("{}"))
			res := readAll(bytes.NewReader(in))
			if n <= MaxHeadersSize {
				if res.err != io.EOF || len(res.Msgs) != 1 {
					t.Fatalf("read %d frames, then %v; want 1, then io.EOF", len(res.Msgs), res.err)
				}
				return
			}
			var fe *FrameError
			if !errors.Is(res.err, ErrHeadersTooLarge) || !errors.As(res.err, &fe) || fe.Offset != 0 {
				t.Fatalf("err = %v; want a *FrameError at 0 matching ErrHeadersTooLarge", res.err)
			}
			// From the prelude: the reader stops before the headers.
			if got := readAll(bytes.NewReader(in[:preludeLen])); !errors.Is(got.err, ErrHeadersTooLarge) {
				t.Fatalf("prelude only: err = %v; want ErrHeadersTooLarge", got.err)
			}
			if got := feedAll([][]byte{in[:preludeLen]}); !errors.Is(got.err, ErrHeadersTooLarge) {
				t.Fatalf("parser, prelude only: err = %v; want ErrHeadersTooLarge", got.err)
			}
		})
	}
	t.Run("split", func(t *testing.T) {
		in := concat(bedrockFrame("messageStart", "{}"), goodFrame(boolHeaders(MaxHeadersSize+1), nil))
		res := checkChunking(t, in)
		if len(res.Msgs) != 1 || !errors.Is(res.err, ErrHeadersTooLarge) {
			t.Fatalf("read %d frames, then %v; want 1, then ErrHeadersTooLarge", len(res.Msgs), res.err)
		}
	})
	t.Run("AppendFrame", func(t *testing.T) {
		hs := make([]Header, 0, MaxHeadersSize/3+1)
		for range MaxHeadersSize / 3 {
			hs = append(hs, Header{Name: "a", Value: Bool(true)})
		}
		if _, err := AppendFrame(nil, Message{Headers: hs}); err != nil {
			t.Fatalf("%d bytes of headers: %v", len(hs)*3, err)
		}
		hs = append(hs, Header{Name: "a", Value: Bool(true)})
		dst := []byte("kept")
		out, err := AppendFrame(dst, Message{Headers: hs})
		if !errors.Is(err, ErrHeadersTooLarge) || string(out) != "kept" {
			t.Fatalf("%d bytes of headers: %q, %v; want dst unchanged and ErrHeadersTooLarge", len(hs)*3, out, err)
		}
	})
}

// BenchmarkDenseHeaders is the cost of the densest frame the reader
// accepts: MaxHeadersSize bytes of three-byte headers, bounded by the limit
// whatever the frame size.
func BenchmarkDenseHeaders(b *testing.B) {
	in := goodFrame(boolHeaders(MaxHeadersSize), nil)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(in))
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
