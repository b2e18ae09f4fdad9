package eventstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// result is what a decoder made of an input: the frames, kept, and the
// error that ended it (io.EOF for a clean end), as text.
type result struct {
	Msgs []Message
	Err  string
	err  error
}

var cmpValues = cmp.AllowUnexported(Value{})

func (r *result) add(m Message) error {
	r.Msgs = append(r.Msgs, m.Clone())
	return nil
}

func (r *result) end(err error) {
	r.err = err
	if err != nil {
		r.Err = err.Error()
	}
}

// readAll decodes src with a Reader.
func readAll(src io.Reader, opts ...Option) result {
	var res result
	r := NewReader(src, opts...)
	for {
		m, err := r.Next()
		if err != nil {
			res.end(err)
			return res
		}
		res.add(m)
	}
}

// feedAll decodes chunks with a Parser and Close; a clean end is io.EOF,
// as for readAll.
func feedAll(chunks [][]byte, opts ...Option) result {
	var res result
	p := NewParser(opts...)
	for _, c := range chunks {
		if err := p.Feed(c, res.add); err != nil {
			res.end(err)
			return res
		}
	}
	err := p.Close()
	if err == nil {
		err = io.EOF
	}
	res.end(err)
	return res
}

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

// bytesEach splits in into 1-byte chunks.
func bytesEach(in []byte) [][]byte {
	out := make([][]byte, len(in))
	for i := range in {
		out[i] = in[i : i+1]
	}
	return out
}

// chunkReader returns its chunks one Read at a time.
type chunkReader struct{ chunks [][]byte }

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 {
		ch := c.chunks[0]
		n := copy(p, ch)
		if n == len(ch) {
			c.chunks = c.chunks[1:]
		} else {
			c.chunks[0] = ch[n:]
		}
		if n > 0 || len(p) == 0 {
			return n, nil
		}
	}
	return 0, io.EOF
}

// checkChunking decodes in whole, through the adversarial readers of
// testing/iotest, with random splits, and with the Parser at every split
// point (for inputs up to 4 KiB) and byte by byte; every way must give the
// whole Reader's result, which it returns.
func checkChunking(t *testing.T, in []byte, opts ...Option) result {
	t.Helper()
	want := readAll(bytes.NewReader(in), opts...)
	check := func(how string, got result) {
		t.Helper()
		if diff := cmp.Diff(want, got, cmpValues, cmp.AllowUnexported(result{}), cmp.Comparer(sameErr)); diff != "" {
			t.Fatalf("%s differs from a whole read (-whole +%s):\n%s", how, how, diff)
		}
	}
	check("one byte reads", readAll(iotest.OneByteReader(bytes.NewReader(in)), opts...))
	check("half reads", readAll(iotest.HalfReader(bytes.NewReader(in)), opts...))
	check("data with EOF", readAll(iotest.DataErrReader(bytes.NewReader(in)), opts...))
	check("parser, whole", feedAll([][]byte{in}, opts...))
	check("parser, byte by byte", feedAll(bytesEach(in), opts...))
	rng := rand.New(rand.NewPCG(uint64(len(in)), 7))
	for range 20 {
		chunks := randomChunks(in, rng)
		check("random reads", readAll(&chunkReader{chunks: chunks}, opts...))
		check("parser, random", feedAll(randomChunks(in, rng), opts...))
	}
	if len(in) <= 4<<10 {
		for i := range len(in) + 1 {
			check("parser, split", feedAll([][]byte{in[:i], in[i:]}, opts...))
		}
	}
	return want
}

// sameErr compares the errors' categories; their texts are compared too,
// through result.Err.
func sameErr(a, b error) bool {
	for _, e := range []error{io.EOF, ErrBadLength, ErrHeadersTooLarge, ErrBadPreludeCRC, ErrBadMessageCRC, ErrBadHeader, ErrTruncated, ErrFrameTooLarge} {
		if errors.Is(a, e) != errors.Is(b, e) {
			return false
		}
	}
	return (a == nil) == (b == nil)
}

// rawFrame builds a frame from its parts as the spec lays it out, with the
// lengths given rather than computed (so they can be wrong) and correct
// CRCs. It is written apart from AppendFrame so that each checks the other.
func rawFrame(total, headersLen uint32, headers, payload []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, total)
	b = binary.BigEndian.AppendUint32(b, headersLen)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(b, headers...)
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// goodFrame is a frame with consistent lengths around headers and payload.
func goodFrame(headers, payload []byte) []byte {
	return rawFrame(uint32(16+len(headers)+len(payload)), uint32(len(headers)), headers, payload)
}

// stringHeader is the wire form of a string header.
func stringHeader(name, value string) []byte {
	b := append([]byte{byte(len(name))}, name...)
	b = append(b, 7)
	b = binary.BigEndian.AppendUint16(b, uint16(len(value)))
	return append(b, value...)
}

// bedrockFrame is an event frame as Bedrock's ConverseStream sends one.
func bedrockFrame(event, payload string) []byte {
	var h []byte
	h = append(h, stringHeader(":event-type", event)...)
	h = append(h, stringHeader(":content-type", "application/json")...)
	h = append(h, stringHeader(":message-type", "event")...)
	return goodFrame(h, []byte(payload))
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
