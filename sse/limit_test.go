package sse

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tooLarge is how errKey prints an EventSizeError for the given limit.
func tooLarge(limit int) string { return errKey(&EventSizeError{Size: limit + 1, Max: limit}) }

// limitTests checks WithMaxEventSize at the limit, one below and one above,
// for each thing it bounds: the pending line (whatever its field), the
// pending data, and the two together. The sizes are worked out by hand:
// a line counts its bytes without the line end; data counts its bytes after
// decoding, with the LFs that join lines.
var limitTests = []struct {
	name  string
	in    string
	limit int
	want  result
}{
	{name: "line/one below", in: "data:1234\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "1234", "")}}},
	{name: "line/at the limit", in: "data:12345\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "12345", "")}}},
	{name: "line/one above", in: "data:123456\n\n", limit: 10,
		want: result{Err: tooLarge(10)}},
	{name: "line/a comment at the limit", in: ":234567890\ndata:x\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "x", "")}}},
	{name: "line/a comment one above", in: ": 345678901\ndata:x\n\n", limit: 10,
		want: result{Err: tooLarge(10)}},
	{name: "line/an event field one above", in: "event:12345\ndata:x\n\n", limit: 10,
		want: result{Err: tooLarge(10)}},
	{name: "line/line ends do not count", in: "data:12345\r\n\r\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "12345", "")}}},
	{name: "line/a leading BOM does not count", in: "\xEF\xBB\xBFdata:12345\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "12345", "")}}},
	{name: "line/unterminated at the limit is discarded", in: "data:a\n\ndata:12345", limit: 10,
		want: result{Events: []refEvent{ev("message", "a", "")}}},
	{name: "line/unterminated one above fails", in: "data:a\n\ndata:123456", limit: 10,
		want: result{Events: []refEvent{ev("message", "a", "")}, Err: tooLarge(10)}},
	{name: "line plus data/one below", in: "data:1234\ndata:1\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "1234\n1", "")}}},
	{name: "line plus data/at the limit", in: "data:1234\ndata:\n\n", limit: 9,
		want: result{Events: []refEvent{ev("message", "1234\n", "")}}},
	{name: "line plus data/one above", in: "data:1234\ndata:12\n\n", limit: 10,
		want: result{Err: tooLarge(10)}},
	{name: "line plus data/a comment counts with the data", in: "data:1234\n:2345\n\n", limit: 9,
		want: result{Events: []refEvent{ev("message", "1234", "")}}},
	{name: "line plus data/a comment one above", in: "data:1234\n:23456\n\n", limit: 9,
		want: result{Err: tooLarge(9)}},
	{name: "decoded data/one below", in: "data:\xFF\xFF\xFF\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "\uFFFD\uFFFD\uFFFD", "")}}},
	{name: "decoded data/at the limit", in: "data:\xFF\xFF\xFF\xFF\n\n", limit: 12,
		want: result{Events: []refEvent{ev("message", "\uFFFD\uFFFD\uFFFD\uFFFD", "")}}},
	{name: "decoded data/one above", in: "data:\xFF\xFF\xFF\xFF\n\n", limit: 11,
		want: result{Err: tooLarge(11)}},
	{name: "per event/each event may reach the limit", in: "data:12345\n\ndata:12345\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "12345", ""), ev("message", "12345", "")}}},
	{name: "after/nothing past the error is delivered", in: "data:1\n\nid: 7\ndata:1234567\nretry: 5\n\ndata:2\n\n", limit: 10,
		want: result{Events: []refEvent{ev("message", "1", "")}, Err: tooLarge(10)}},
	{name: "after/the done sentinel first ends cleanly", in: "data:[DONE]\n\ndata:1234567890\n\n", limit: 11,
		want: result{Done: true}},
	{name: "smallest/one byte", in: "data\n\n:\n\nd\n\n", limit: 1,
		want: result{Err: tooLarge(1)}},
	{name: "smallest/a blank line is free", in: "\n\n\r\n", limit: 1,
		want: result{}},
}

func TestMaxEventSize(t *testing.T) {
	for _, tt := range limitTests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseEveryWay(t, []byte(tt.in), WithMaxEventSize(tt.limit))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q with limit %d: (-want +got):\n%s", tt.in, tt.limit, diff)
			}
		})
	}
}

// TestDefaultMaxEventSize checks the default limit at, below and above.
func TestDefaultMaxEventSize(t *testing.T) {
	for _, tt := range []struct {
		name    string
		lineLen int
		wantErr bool
	}{
		{"one below", DefaultMaxEventSize - 1, false},
		{"at the limit", DefaultMaxEventSize, false},
		{"one above", DefaultMaxEventSize + 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := strings.Repeat("x", tt.lineLen-len("data:"))
			r := NewReader(strings.NewReader("data:" + data + "\n\n"))
			ev, err := r.Next()
			if tt.wantErr {
				var se *EventSizeError
				if !errors.Is(err, ErrEventTooLarge) || !errors.As(err, &se) || se.Max != DefaultMaxEventSize || se.Size <= se.Max {
					t.Fatalf("Next = %v; want an *EventSizeError with Max %d", err, DefaultMaxEventSize)
				}
				return
			}
			if err != nil || string(ev.Data) != data {
				t.Fatalf("Next = %d bytes, %v; want %d bytes", len(ev.Data), err, len(data))
			}
		})
	}
}

func TestEventSizeError(t *testing.T) {
	r := NewReader(strings.NewReader("data: "+strings.Repeat("y", 100)+"\n\n"), WithMaxEventSize(64))
	_, err := r.Next()
	var se *EventSizeError
	if !errors.As(err, &se) || !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v, want *EventSizeError wrapping ErrEventTooLarge", err)
	}
	// One read of 4 KiB holds the whole 106-byte line.
	if se.Max != 64 || se.Size != 106 {
		t.Errorf("Size, Max = %d, %d; want 106, 64", se.Size, se.Max)
	}
	if want := "sse: event too large: 106 bytes pending, limit 64"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if _, err2 := r.Next(); err2 != err {
		t.Errorf("second Next = %v, want the same error", err2)
	}
}

// TestLimitBoundsMemory feeds an endless line: the Reader must fail once the
// line passes the limit, having buffered little more than the limit.
func TestLimitBoundsMemory(t *testing.T) {
	const limit = 1 << 20
	src := &endlessReader{b: 'x'}
	r := NewReader(src, WithMaxEventSize(limit))
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("Next = %v, want ErrEventTooLarge", err)
	}
	if src.maxRead > limit+smallBufSize {
		t.Errorf("a read asked for %d bytes with a limit of %d: the buffer grew past the limit plus %d", src.maxRead, limit, smallBufSize)
	}
	if r.buf != nil {
		t.Errorf("the Reader holds a %d-byte buffer after the stream ended", len(r.buf))
	}
	if src.n > 2*limit {
		t.Errorf("read %d bytes of an endless line with a limit of %d", src.n, limit)
	}

	p := NewParser(WithMaxEventSize(limit))
	chunk := bytes.Repeat([]byte{'x'}, 1000)
	var err error
	for i := 0; err == nil && i < 10*limit/len(chunk); i++ {
		err = p.Feed(chunk, nil)
	}
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("Feed = %v, want ErrEventTooLarge", err)
	}
}

// endlessReader returns b forever, and records how much it was asked for.
type endlessReader struct {
	b       byte
	n       int // bytes returned
	maxRead int // the largest len(p), which is the room left in the buffer
}

func (e *endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.n += len(p)
	e.maxRead = max(e.maxRead, len(p))
	return len(p), nil
}
