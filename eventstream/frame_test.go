package eventstream

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Frames as other implementations write them, byte for byte: the examples
// of the Elixir event_stream package's documentation, whose CRCs come from
// Erlang's crc32.
var knownFrames = []struct {
	name    string
	hex     string
	headers []Header
	payload string
}{{
	name:    "no headers",
	hex:     "0000001e00000000baf2f68a" + hex.EncodeToString([]byte(`{"foo": "bar"}`)) + "ae7258e4",
	payload: `{"foo": "bar"}`,
}, {
	name: "content-type",
	hex: "0000003e00000020405df9460c" + hex.EncodeToString([]byte("content-type")) + "070010" +
		hex.EncodeToString([]byte("application/json")) + hex.EncodeToString([]byte(`{"foo": "bar"}`)) + "6fa2bf3b",
	headers: []Header{{Name: "content-type", Value: String("application/json")}},
	payload: `{"foo": "bar"}`,
}}

func TestKnownFrames(t *testing.T) {
	for _, tt := range knownFrames {
		t.Run(tt.name, func(t *testing.T) {
			wire, err := hex.DecodeString(tt.hex)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendFrame(nil, Message{Headers: tt.headers, Payload: []byte(tt.payload)})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, wire) {
				t.Errorf("AppendFrame:\n got %x\nwant %x", got, wire)
			}
			res := checkChunking(t, wire)
			if res.err != io.EOF || len(res.Msgs) != 1 {
				t.Fatalf("read %d frames, then %v; want 1, then io.EOF", len(res.Msgs), res.err)
			}
			m := res.Msgs[0]
			if string(m.Payload) != tt.payload || len(m.Headers) != len(tt.headers) {
				t.Fatalf("read %+v", m)
			}
			for _, h := range tt.headers {
				if v, ok := m.Header(h.Name); !ok || v.String() != h.Value.String() {
					t.Errorf("header %q = %v, %v; want %v", h.Name, v, ok, h.Value)
				}
			}
		})
	}
}

// A header of each value type, in wire form, with what it decodes to.
var typedHeaders = []struct {
	wire  []byte
	value Value
	text  string
}{
	{[]byte{1, 't', 0}, Bool(true), "true"},
	{[]byte{1, 'f', 1}, Bool(false), "false"},
	{[]byte{1, 'b', 2, 0xff}, Byte(-1), "-1"},
	{[]byte{1, 's', 3, 0x80, 0x00}, Short(-32768), "-32768"},
	{[]byte{1, 'i', 4, 0x7f, 0xff, 0xff, 0xff}, Int(2147483647), "2147483647"},
	{[]byte{1, 'l', 5, 0x80, 0, 0, 0, 0, 0, 0, 1}, Long(-9223372036854775807), "-9223372036854775807"},
	{[]byte{1, 'a', 6, 0, 3, 0, 1, 0xfe}, ByteArray([]byte{0, 1, 0xfe}), "AAH+"},
	{[]byte{1, 'S', 7, 0, 2, 'h', 'i'}, String("hi"), "hi"},
	{[]byte{1, 'e', 7, 0, 0}, String(""), ""},
	{[]byte{1, 'T', 8, 0, 0, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00}, Timestamp(time0), "2023-11-14T22:13:20.000Z"},
	{append([]byte{1, 'u', 9}, uuid0[:]...), UUID(uuid0), "01234567-89ab-cdef-0123-456789abcdef"},
}

var uuid0 = [16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}

var time0 = time.UnixMilli(1700000000000)

func TestHeaderTypes(t *testing.T) {
	var wire []byte
	var want []Header
	for _, tt := range typedHeaders {
		wire = append(wire, tt.wire...)
		want = append(want, Header{Name: string(tt.wire[1 : 1+tt.wire[0]]), Value: tt.value})
	}
	frame := goodFrame(wire, []byte("p"))
	res := checkChunking(t, frame)
	if res.err != io.EOF || len(res.Msgs) != 1 {
		t.Fatalf("read %d frames, then %v", len(res.Msgs), res.err)
	}
	got := res.Msgs[0].Headers
	if len(got) != len(want) {
		t.Fatalf("%d headers, want %d", len(got), len(want))
	}
	for i, tt := range typedHeaders {
		if got[i].Name != want[i].Name || got[i].Value.Type() != tt.value.Type() ||
			got[i].Value.String() != tt.text || tt.value.String() != tt.text {
			t.Errorf("header %d: %q %v %q; want %q %v %q", i, got[i].Name, got[i].Value.Type(), got[i].Value, want[i].Name, tt.value.Type(), tt.text)
		}
	}
	// The encoder writes the same bytes.
	enc, err := AppendFrame(nil, Message{Headers: want, Payload: []byte("p")})
	if err != nil || !bytes.Equal(enc, frame) {
		t.Errorf("AppendFrame = %x, %v; want %x", enc, err, frame)
	}
}

func TestBadFrames(t *testing.T) {
	ok := bedrockFrame("messageStart", `{"role":"assistant"}`)
	badPrelude := bytes.Clone(ok)
	badPrelude[9] ^= 1
	badMessage := bytes.Clone(ok)
	badMessage[len(ok)-5] ^= 0x20
	badMessageCRC := bytes.Clone(ok)
	badMessageCRC[len(ok)-1] ^= 1
	long := []byte{1, 'l', 5, 0, 0, 0, 0, 0, 0, 0, 0}
	tests := []struct {
		name   string
		in     []byte
		frames int // good frames before the error
		err    error
		detail string
	}{
		{"empty", nil, 0, io.EOF, ""},
		{"one frame", ok, 1, io.EOF, ""},
		{"no headers, no payload", goodFrame(nil, nil), 1, io.EOF, ""},
		{"truncated prelude", ok[:5], 0, ErrTruncated, "frame at byte 0: the input ended after 5 bytes of the 12-byte prelude"},
		{"truncated after prelude", concat(ok, ok[:12]), 1, ErrTruncated, "after 12 bytes of a " + itoa(len(ok)) + "-byte frame"},
		{"truncated before message CRC", ok[:len(ok)-1], 0, ErrTruncated, "ended after " + itoa(len(ok)-1) + " bytes"},
		{"bad prelude CRC", concat(ok, badPrelude), 1, ErrBadPreludeCRC, "frame at byte " + itoa(len(ok)) + ": stated 0x"},
		{"bad prelude CRC of a short input", badPrelude[:12], 0, ErrBadPreludeCRC, ""},
		{"bad payload byte", badMessage, 0, ErrBadMessageCRC, ""},
		{"bad message CRC", concat(ok, ok, badMessageCRC, ok), 2, ErrBadMessageCRC, ""},
		{"total length 0", rawFrame(0, 0, nil, nil), 0, ErrBadLength, "total length 0, headers length 0"},
		{"total length 15", rawFrame(15, 0, nil, nil), 0, ErrBadLength, "total length 15"},
		{"total length 16", rawFrame(16, 0, nil, nil), 1, io.EOF, ""},
		{"headers length at the payload's end", rawFrame(16+11, 11, long, nil), 1, io.EOF, ""},
		{"headers length one past", rawFrame(16+11, 12, long, nil), 0, ErrBadLength, "total length 27, headers length 12"},
		{"headers length 2^32-1", rawFrame(16, 1<<32-1, nil, nil), 0, ErrBadLength, ""},
		{"empty header name", goodFrame([]byte{0, 7, 0, 0}, nil), 0, ErrBadHeader, "header at byte 0 of the headers: empty name"},
		{"name past the headers", goodFrame([]byte{5, 'a', 'b'}, []byte("payload")), 0, ErrBadHeader, "name of 5 bytes runs past"},
		{"no value type", goodFrame([]byte{1, 'a'}, nil), 0, ErrBadHeader, "no value type"},
		{"unknown value type", goodFrame(concat(long, []byte{1, 'x', 10}), nil), 0, ErrBadHeader, "header at byte 11 of the headers: unknown value type 10"},
		{"fixed value past the headers", goodFrame(long[:10], nil), 0, ErrBadHeader, "value of 8 bytes runs past"},
		{"value length past the headers", goodFrame([]byte{1, 'a', 6, 0}, nil), 0, ErrBadHeader, "value length runs past"},
		{"string past the headers", goodFrame([]byte{1, 'a', 7, 0, 3, 'x', 'y'}, []byte("z")), 0, ErrBadHeader, "value of 3 bytes runs past"},
		{"uuid past the headers", goodFrame([]byte{1, 'u', 9, 1, 2, 3}, nil), 0, ErrBadHeader, "value of 16 bytes runs past"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := checkChunking(t, tt.in)
			if len(res.Msgs) != tt.frames || !errors.Is(res.err, tt.err) {
				t.Fatalf("read %d frames, then %v; want %d, then %v", len(res.Msgs), res.err, tt.frames, tt.err)
			}
			if !strings.Contains(res.Err, tt.detail) {
				t.Errorf("error %q does not say %q", res.Err, tt.detail)
			}
			var fe *FrameError
			if tt.err != io.EOF && (!errors.As(res.err, &fe) || fe.Err != tt.err) {
				t.Errorf("error %#v is not a *FrameError of %v", res.err, tt.err)
			}
		})
	}
}

func TestMaxFrameSize(t *testing.T) {
	f := bedrockFrame("contentBlockDelta", `{"delta":{"text":"Hi"},"contentBlockIndex":0}`)
	in := concat(f, f)
	n := len(f)
	for _, tt := range []struct {
		max    int
		frames int
	}{{0, 2}, {n + 1, 2}, {n, 2}, {n - 1, 0}, {16, 0}} {
		res := checkChunking(t, in, WithMaxFrameSize(tt.max))
		if len(res.Msgs) != tt.frames {
			t.Errorf("limit %d: read %d frames, want %d", tt.max, len(res.Msgs), tt.frames)
		}
		if tt.frames == 2 {
			if res.err != io.EOF {
				t.Errorf("limit %d: %v, want io.EOF", tt.max, res.err)
			}
			continue
		}
		var se *FrameSizeError
		if !errors.As(res.err, &se) || !errors.Is(res.err, ErrFrameTooLarge) || se.Size != int64(n) || se.Max != tt.max || se.Offset != 0 {
			t.Fatalf("limit %d: %#v; want a *FrameSizeError of %d bytes", tt.max, res.err, n)
		}
		want := "eventstream: frame too large: frame at byte 0 is " + itoa(n) + " bytes, limit " + itoa(tt.max)
		if res.Err != want {
			t.Errorf("error %q, want %q", res.Err, want)
		}
	}
	// Reported from the prelude, before the frame's other bytes arrive.
	big := rawFrame(DefaultMaxFrameSize+1, 0, nil, nil)[:12]
	if res := readAll(bytes.NewReader(big)); !errors.Is(res.err, ErrFrameTooLarge) {
		t.Errorf("a 16 MiB + 1 prelude: %v, want ErrFrameTooLarge", res.err)
	}
	at := rawFrame(DefaultMaxFrameSize, 0, nil, nil)[:12]
	if res := readAll(bytes.NewReader(at)); !errors.Is(res.err, ErrTruncated) {
		t.Errorf("a 16 MiB prelude: %v, want ErrTruncated", res.err)
	}
}

func TestInvalidOption(t *testing.T) {
	for _, n := range []int{-1, 1, 15} {
		o := WithMaxFrameSize(n)
		_, rerr := NewReader(bytes.NewReader(nil), o).Next()
		perr := NewParser(o).Feed(nil, nil)
		for _, err := range []error{rerr, perr} {
			var oe *OptionError
			if !errors.As(err, &oe) || !errors.Is(err, ErrInvalidOption) || oe.Option != "eventstream.WithMaxFrameSize("+itoa(n)+")" {
				t.Errorf("WithMaxFrameSize(%d): %v, want an *OptionError", n, err)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
