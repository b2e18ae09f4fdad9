package sse

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// randomChunks splits in at random points, with some empty chunks, mostly
// small ones and now and then a large one.
func randomChunks(in []byte, rng *rand.Rand) [][]byte {
	var out [][]byte
	for len(in) > 0 {
		var n int
		switch rng.IntN(8) {
		case 0:
			n = 0
		case 1:
			n = rng.IntN(len(in) + 1)
		default:
			n = 1 + rng.IntN(min(len(in), 7))
		}
		out = append(out, in[:n])
		in = in[n:]
	}
	return out
}

// FuzzReader holds the parsers to four invariants on any input:
//   - with a limit too large to matter, the Reader's result equals the
//     reference parser's (reference_test.go);
//   - two random chunkings, one read by the Reader and one fed to the
//     Parser, give the same result as one whole read;
//   - with a small limit, the same three agree, and the events delivered
//     before any limit error are a prefix of the unlimited ones;
//   - nothing panics.
//
// seed picks the chunkings and whether the done sentinel is on; limit is
// the small limit minus one.
func FuzzReader(f *testing.F) {
	for i, tt := range rulesTests {
		f.Add([]byte(tt.in), uint64(i), uint16(i))
	}
	for i, tt := range limitTests {
		f.Add([]byte(tt.in), uint64(i)<<1|1, uint16(tt.limit-1))
	}
	// Lines long enough for the vector code (64-byte blocks): mixed
	// scripts, CRLF, a bad byte and a cut sequence at block edges.
	f.Add(chatStream(3, "\n"), uint64(1), uint16(300))
	f.Add(chatStream(3, "\r\n"), uint64(2), uint16(200))
	f.Add([]byte("data: "+strings.Repeat("é", 28)+"x\xFF"+strings.Repeat("a", 70)+"\xE2\x82\n\n"), uint64(3), uint16(100))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, limit uint16) {
		sentinel := DefaultDoneSentinel
		if seed&1 == 1 {
			sentinel = ""
		}
		done := WithDoneSentinel(sentinel)

		// Each input byte decodes to at most 3 bytes, so this never binds.
		unlimited := WithMaxEventSize(3*len(in) + 16)
		got := readAll(bytes.NewReader(in), done, unlimited)
		ref := refParse(in, sentinel)
		want := result{Events: ref.Events, Unknown: ref.Unknown, LastID: ref.LastID,
			Retry: ref.Retry, HasRetry: ref.HasRetry, Done: ref.Done}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: Reader differs from the reference (-reference +Reader):\n%s", in, diff)
		}

		rng := rand.New(rand.NewPCG(seed, seed>>7))
		c1, c2 := randomChunks(in, rng), randomChunks(in, rng)
		if diff := cmp.Diff(got, readAll(&chunkReader{slices.Clone(c1)}, done, unlimited)); diff != "" {
			t.Fatalf("%q in reads %q: (-whole +chunked):\n%s", in, c1, diff)
		}
		if diff := cmp.Diff(got, feedAll(c2, done, unlimited)); diff != "" {
			t.Fatalf("%q fed as %q: (-Reader +Parser):\n%s", in, c2, diff)
		}

		small := WithMaxEventSize(int(limit) + 1)
		lim := readAll(bytes.NewReader(in), done, small)
		if diff := cmp.Diff(lim, readAll(&chunkReader{slices.Clone(c2)}, done, small)); diff != "" {
			t.Fatalf("%q limit %d in reads %q: (-whole +chunked):\n%s", in, limit+1, c2, diff)
		}
		if diff := cmp.Diff(lim, feedAll(c1, done, small)); diff != "" {
			t.Fatalf("%q limit %d fed as %q: (-Reader +Parser):\n%s", in, limit+1, c1, diff)
		}
		if len(lim.Events) > len(got.Events) || !slices.Equal(lim.Events, got.Events[:len(lim.Events)]) {
			t.Fatalf("%q limit %d: events %q are not a prefix of the unlimited %q", in, limit+1, lim.Events, got.Events)
		}
		if lim.Err == "" && !cmp.Equal(lim, got) {
			t.Fatalf("%q limit %d: no limit error, yet the result differs: %s", in, limit+1, cmp.Diff(got, lim))
		}
	})
}

// patternReader serves data in reads shaped by pattern, one byte per read,
// cycling: a byte with the high bit set makes a read that fills all the
// room offered; otherwise bit 6 set asks for (b&0x3F+1)*256 bytes and clear
// for b&0x3F+1 bytes, a short read whenever the room is larger. An empty
// pattern fills every read.
type patternReader struct {
	data    []byte
	pattern []byte
	i       int
}

func (p *patternReader) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	n := len(b)
	if len(p.pattern) > 0 {
		c := p.pattern[p.i%len(p.pattern)]
		p.i++
		switch {
		case c&0x80 != 0:
		case c&0x40 != 0:
			n = min(n, int(c&0x3F+1)*256)
		default:
			n = min(n, int(c&0x3F+1))
		}
	}
	n = copy(b[:n], p.data)
	p.data = p.data[n:]
	return n, nil
}

// FuzzReaderBuffers holds the Reader to one invariant while its read buffer
// moves between the small, the pooled and grown buffers: the result of any
// pattern of full and short reads, on streams long enough to need all
// three, equals the Parser's on the whole stream, with a limit too large to
// matter and with a small one. The stream is in repeated 1+reps%4096 times,
// at most 64 KiB.
func FuzzReaderBuffers(f *testing.F) {
	f.Add([]byte("data: {\"content\":\"hé\"}\n\n"), uint16(700), []byte{0x05, 0x85, 0x45, 0x01}, uint16(100))
	f.Add([]byte("data: "+strings.Repeat("x", 600)+"\r\n\r\n"), uint16(40), []byte{0x80, 0x10, 0x80, 0x7F}, uint16(700))
	f.Add([]byte("event: a\nid: 1\ndata: x\ndata: y\r\r: c\n\n"), uint16(2000), []byte{0x3F, 0xFF}, uint16(20))
	f.Add([]byte("data: "+strings.Repeat("long line ", 100)), uint16(50), []byte{0x80}, uint16(30000))
	f.Add([]byte("data: \xE2\x82\n\xFF\n\n"), uint16(3000), []byte{0x00, 0x01, 0xC0}, uint16(5))
	f.Fuzz(func(t *testing.T, in []byte, reps uint16, pattern []byte, limit uint16) {
		if len(in) == 0 {
			return
		}
		n := min(1+int(reps)%4096, (64<<10)/len(in))
		stream := bytes.Repeat(in, max(n, 1))
		for _, opt := range []Option{WithMaxEventSize(3*len(stream) + 16), WithMaxEventSize(int(limit) + 1)} {
			want := feedAll([][]byte{stream}, opt)
			if diff := cmp.Diff(want, readAll(&patternReader{data: stream, pattern: pattern}, opt)); diff != "" {
				t.Fatalf("%d bytes (%q x %d) with %v in reads %x: (-Parser +Reader):\n%s", len(stream), in, n, opt, pattern, diff)
			}
		}
	})
}

// FuzzWriter writes up to three events built from the input and reads them
// back with the Reader (every chunking) and the reference parser: what was
// written is what is read, line ends in data made LF. Input the Writer
// refuses must be refused with a *FieldError and nothing written.
func FuzzWriter(f *testing.F) {
	f.Add("7", "delta", []byte("a\r\nb\rc\n"), "", []byte("[DONE]"))
	f.Add("a\nb", "t", []byte("x"), "i\x00", []byte(""))
	f.Add("", "é", []byte("\xff"), " ", []byte(":"))
	f.Fuzz(func(t *testing.T, id1, type1 string, data1 []byte, id2 string, data2 []byte) {
		var written []Event
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for _, ev := range []Event{{ID: id1, Type: type1, Data: data1}, {ID: id2, Data: data2}, {Type: type1, Data: data1}} {
			before := buf.Len()
			err := w.WriteEvent(ev)
			if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) || buf.Len() != before {
					t.Fatalf("%+v: %v, wrote %d bytes", ev, err, buf.Len()-before)
				}
				continue
			}
			written = append(written, ev)
		}
		in := buf.Bytes()
		want := writtenEvents(written)
		got := readAll(bytes.NewReader(in), WithDoneSentinel(""), WithMaxEventSize(len(in)+16))
		if diff := cmp.Diff(want, got.Events); diff != "" || got.Err != "" {
			t.Fatalf("%q read back (-written +read):\n%s err %q", in, diff, got.Err)
		}
		rng := rand.New(rand.NewPCG(uint64(len(in)), 1))
		if diff := cmp.Diff(got, feedAll(randomChunks(in, rng), WithDoneSentinel(""), WithMaxEventSize(len(in)+16))); diff != "" {
			t.Fatalf("%q chunked: %s", in, diff)
		}
		if diff := cmp.Diff(want, refParse(in, "").Events); diff != "" {
			t.Fatalf("%q reference read back (-written +read):\n%s", in, diff)
		}
	})
}
