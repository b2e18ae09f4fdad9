package compat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	awses "github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/airlock-go/airlock/eventstream"
)

// frame is what a decoder found in one frame: its headers as aws-sdk-go-v2
// keeps them (a repeated name in its first place, with its last value) and
// its payload. Values are written as "type:text".
type frame struct {
	Headers [][2]string
	Payload string
}

// decoded is what a decoder made of a whole input: the frames before the
// first failure, and whether it failed.
type decoded struct {
	Frames []frame
	Failed bool
	err    error
}

func setHeader(hs [][2]string, name, value string) [][2]string {
	for i := range hs {
		if hs[i][0] == name {
			hs[i][1] = value
			return hs
		}
	}
	return append(hs, [2]string{name, value})
}

// ours decodes in with eventstream.Reader.
func ours(in []byte) decoded {
	var d decoded
	r := eventstream.NewReader(bytes.NewReader(in))
	for {
		m, err := r.Next()
		if err != nil {
			d.Failed, d.err = err != io.EOF, err
			return d
		}
		var f frame
		for _, h := range m.Headers {
			v := h.Value
			text := v.String()
			if v.Type() == eventstream.TypeTimestamp {
				text = fmt.Sprint(v.Time().UnixMilli())
			}
			f.Headers = setHeader(f.Headers, h.Name, v.Type().String()+":"+text)
		}
		f.Payload = string(m.Payload)
		d.Frames = append(d.Frames, f)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// theirs decodes in with aws-sdk-go-v2's Decoder, one Decode per frame, as
// its eventstreamapi reader calls it. Its io.EOF is a clean end only when
// it comes before any byte of a frame: the Decoder also returns a bare
// io.EOF when the input ends just before a header, the payload or the
// message CRC of a frame it has begun.
func theirs(in []byte) decoded {
	var d decoded
	src := &countingReader{r: bytes.NewReader(in)}
	dec := awses.NewDecoder()
	for {
		before := src.n
		m, err := dec.Decode(src, nil)
		if err != nil {
			d.Failed = err != io.EOF || src.n > before
			d.err = err
			return d
		}
		var f frame
		for _, h := range m.Headers {
			f.Headers = setHeader(f.Headers, h.Name, awsValue(h.Value))
		}
		f.Payload = string(m.Payload)
		d.Frames = append(d.Frames, f)
	}
}

func awsValue(v awses.Value) string {
	switch v := v.(type) {
	case awses.BoolValue:
		return fmt.Sprintf("bool:%v", bool(v))
	case awses.Int8Value:
		return fmt.Sprintf("byte:%d", v)
	case awses.Int16Value:
		return fmt.Sprintf("short:%d", v)
	case awses.Int32Value:
		return fmt.Sprintf("int:%d", v)
	case awses.Int64Value:
		return fmt.Sprintf("long:%d", v)
	case awses.BytesValue:
		return "byte_array:" + eventstream.ByteArray(v).String()
	case awses.StringValue:
		return "string:" + string(v)
	case awses.TimestampValue:
		return fmt.Sprintf("timestamp:%d", time.Time(v).UnixMilli())
	case awses.UUIDValue:
		return "uuid:" + eventstream.UUID(v).String()
	}
	return fmt.Sprintf("unknown:%T", v)
}

// lenient reports whether err is ours refusing a header that
// aws-sdk-go-v2's Decoder lets through — the places the two may differ (see
// the eventstream package doc): an empty name, and a name length that is the
// headers section's last byte (the Decoder takes the end of the section
// there for the end of the headers, and drops the byte).
func lenient(err error, in []byte) bool {
	var fe *eventstream.FrameError
	if !errors.As(err, &fe) || fe.Err != eventstream.ErrBadHeader {
		return false
	}
	if strings.HasSuffix(fe.Detail, "empty name") {
		return true
	}
	hl := binary.BigEndian.Uint32(in[fe.Offset+4:])
	return strings.HasPrefix(fe.Detail, fmt.Sprintf("header at byte %d of the headers: name of", hl-1))
}

// compare holds the two decoders to the same frames and the same verdict.
func compare(t *testing.T, in []byte) {
	t.Helper()
	a, b := ours(in), theirs(in)
	if lenient(a.err, in) {
		// Up to that frame they agree; from it on AWS's may go on.
		b.Frames, b.Failed = b.Frames[:min(len(a.Frames), len(b.Frames))], true
	}
	if diff := cmp.Diff(a, b, cmp.AllowUnexported(decoded{}), cmpopts.EquateEmpty(), cmp.Comparer(func(x, y error) bool { return true })); diff != "" {
		t.Fatalf("eventstream and aws-sdk-go-v2 differ on %x (-ours +aws):\n%s\nours: %v\naws: %v", in, diff, a.err, b.err)
	}
}

// randomHeaders writes 0–6 headers of random types, names drawn from a
// small set so that repeats happen, now and then an empty name.
func randomHeaders(rng *rand.Rand) []byte {
	names := []string{":event-type", ":content-type", ":message-type", "x", "", "a-much-longer-header-name"}
	var h []byte
	for range rng.IntN(7) {
		name := names[rng.IntN(len(names))]
		if name == "" && rng.IntN(4) != 0 {
			name = "y"
		}
		h = append(h, byte(len(name)))
		h = append(h, name...)
		t := byte(rng.IntN(10))
		h = append(h, t)
		switch t {
		case 2:
			h = append(h, byte(rng.Uint32()))
		case 3:
			h = binary.BigEndian.AppendUint16(h, uint16(rng.Uint32()))
		case 4:
			h = binary.BigEndian.AppendUint32(h, rng.Uint32())
		case 5, 8:
			h = binary.BigEndian.AppendUint64(h, rng.Uint64())
		case 6, 7:
			v := make([]byte, rng.IntN(40))
			for i := range v {
				v[i] = byte('a' + rng.IntN(26))
			}
			h = binary.BigEndian.AppendUint16(h, uint16(len(v)))
			h = append(h, v...)
		case 9:
			for range 16 {
				h = append(h, byte(rng.Uint32()))
			}
		}
	}
	return h
}

// rawFrame lays out a frame with the lengths given and correct CRCs.
func rawFrame(total, headersLen uint32, body []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, total)
	b = binary.BigEndian.AppendUint32(b, headersLen)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(b, body...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// randomStream writes 1–4 frames, valid or damaged in one of the ways a
// wire can be: a flipped bit, a cut, lengths that lie (with a prelude CRC
// that matches them), headers that run past their section.
func randomStream(rng *rand.Rand) []byte {
	var out []byte
	for range 1 + rng.IntN(4) {
		h := randomHeaders(rng)
		p := make([]byte, rng.IntN(64))
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		total, hl := uint32(16+len(h)+len(p)), uint32(len(h))
		switch rng.IntN(12) {
		case 0:
			hl += uint32(rng.IntN(5)) // headers run into the payload, or past it
		case 1:
			hl -= min(hl, uint32(rng.IntN(4)))
		case 2:
			total = uint32(rng.IntN(20))
		}
		f := rawFrame(total, hl, append(h, p...))
		switch rng.IntN(10) {
		case 0:
			i := rng.IntN(len(f) * 8)
			f[i/8] ^= 1 << (i % 8)
		case 1:
			f = f[:rng.IntN(len(f))]
		}
		out = append(out, f...)
	}
	return out
}

func TestEventStreamDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	failed := 0
	for range 20000 {
		in := randomStream(rng)
		compare(t, in)
		if ours(in).Failed {
			failed++
		}
	}
	// The generator must exercise both sides of the verdict.
	if failed < 2000 || failed > 18000 {
		t.Errorf("%d of 20000 random streams failed: the generator is off", failed)
	}
}

// FuzzEventStreamDifferential: for any input, the two decoders agree.
// go test -run '^$' -fuzz FuzzEventStreamDifferential -fuzztime 3m
func FuzzEventStreamDifferential(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		f.Add(randomStream(rng))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 1<<16 {
			return // the AWS decoder has no bound; keep its reads small
		}
		compare(t, in)
	})
}

// Frames aws-sdk-go-v2's Encoder writes read back through eventstream with
// the same headers and payload, and are the bytes AppendFrame writes.
func TestEventStreamAWSEncoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	enc := awses.NewEncoder()
	for i := range 2000 {
		var am awses.Message
		var om eventstream.Message
		for j := range rng.IntN(8) {
			name := fmt.Sprintf("h%d", j)
			var av awses.Value
			var ov eventstream.Value
			switch rng.IntN(9) {
			case 0:
				b := rng.IntN(2) == 0
				av, ov = awses.BoolValue(b), eventstream.Bool(b)
			case 1:
				v := int8(rng.Uint32())
				av, ov = awses.Int8Value(v), eventstream.Byte(v)
			case 2:
				v := int16(rng.Uint32())
				av, ov = awses.Int16Value(v), eventstream.Short(v)
			case 3:
				v := int32(rng.Uint32())
				av, ov = awses.Int32Value(v), eventstream.Int(v)
			case 4:
				v := int64(rng.Uint64())
				av, ov = awses.Int64Value(v), eventstream.Long(v)
			case 5:
				v := bytes.Repeat([]byte{byte(rng.Uint32())}, rng.IntN(100))
				av, ov = awses.BytesValue(v), eventstream.ByteArray(v)
			case 6:
				v := fmt.Sprintf("value-%d", rng.Uint32())
				av, ov = awses.StringValue(v), eventstream.String(v)
			case 7:
				v := time.UnixMilli(rng.Int64N(4e12)).UTC()
				av, ov = awses.TimestampValue(v), eventstream.Timestamp(v)
			case 8:
				var u [16]byte
				for k := range u {
					u[k] = byte(rng.Uint32())
				}
				av, ov = awses.UUIDValue(u), eventstream.UUID(u)
			}
			am.Headers.Set(name, av)
			om.Headers = append(om.Headers, eventstream.Header{Name: name, Value: ov})
		}
		if n := rng.IntN(300); n > 0 {
			am.Payload = bytes.Repeat([]byte("p"), n)
			om.Payload = am.Payload
		}
		var buf bytes.Buffer
		if err := enc.Encode(&buf, am); err != nil {
			t.Fatal(err)
		}
		mine, err := eventstream.AppendFrame(nil, om)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mine, buf.Bytes()) {
			t.Fatalf("frame %d: AppendFrame wrote\n%x\naws-sdk-go-v2 wrote\n%x", i, mine, buf.Bytes())
		}
		got := ours(buf.Bytes())
		if got.Failed || len(got.Frames) != 1 {
			t.Fatalf("frame %d: %v", i, got.err)
		}
		compare(t, buf.Bytes())
	}
}
