package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

var errBoom = errors.New("boom")

// countingReader counts Read calls.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// TestReaderSourceError: complete events come first, then the source's error
// itself (not wrapped), and it sticks without further reads.
func TestReaderSourceError(t *testing.T) {
	src := &countingReader{r: io.MultiReader(strings.NewReader("data: a\n\ndata: b\n\ndata: partial\n"), iotest.ErrReader(errBoom))}
	r := NewReader(src)
	for _, want := range []string{"a", "b"} {
		ev, err := r.Next()
		if err != nil || string(ev.Data) != want {
			t.Fatalf("Next = %q, %v; want %q", ev.Data, err, want)
		}
	}
	if _, err := r.Next(); err != errBoom {
		t.Fatalf("Next = %v, want the source's error unwrapped", err)
	}
	reads := src.reads
	if _, err := r.Next(); err != errBoom {
		t.Fatalf("second Next = %v, want the same error", err)
	}
	if src.reads != reads {
		t.Errorf("Next read again after the error")
	}
}

// TestReaderEOFSticks: io.EOF is returned again without reading.
func TestReaderEOFSticks(t *testing.T) {
	src := &countingReader{r: strings.NewReader("data: a\n\n")}
	r := NewReader(src)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if ev, err := r.Next(); err != io.EOF || ev.Data != nil || ev.Type != "" {
			t.Fatalf("Next = %+v, %v; want a zero Event and io.EOF", ev, err)
		}
	}
	if src.reads > 2 {
		t.Errorf("%d reads; want at most 2 (the data, then EOF)", src.reads)
	}
	if r.Done() {
		t.Error("Done() = true after a plain EOF")
	}
}

// TestReaderDoneStopsReading: after the sentinel, nothing more is read.
func TestReaderDoneStopsReading(t *testing.T) {
	src := &chunkReader{chunks: [][]byte{[]byte("data: a\n\ndata: [DONE]\n\n")}}
	after := &countingReader{r: iotest.ErrReader(errBoom)}
	r := NewReader(io.MultiReader(src, after))
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("Next = %q, %v", ev.Data, err)
	}
	if _, err := r.Next(); err != io.EOF || !r.Done() {
		t.Fatalf("Next = %v, Done = %v; want io.EOF and true", err, r.Done())
	}
	if _, err := r.Next(); err != io.EOF || after.reads != 0 {
		t.Errorf("Next = %v after %d reads past the sentinel; want io.EOF, 0", err, after.reads)
	}
}

type zeroReader struct{ reads int }

func (z *zeroReader) Read([]byte) (int, error) {
	z.reads++
	return 0, nil
}

func TestReaderNoProgress(t *testing.T) {
	z := &zeroReader{}
	r := NewReader(z)
	if _, err := r.Next(); err != io.ErrNoProgress {
		t.Fatalf("Next = %v, want io.ErrNoProgress", err)
	}
	if z.reads != maxEmptyReads {
		t.Errorf("%d reads, want %d", z.reads, maxEmptyReads)
	}
}

type badCountReader struct{ n int }

func (b badCountReader) Read(p []byte) (int, error) {
	if b.n > 0 {
		return len(p) + b.n, nil
	}
	return b.n, nil
}

func TestReaderBadCount(t *testing.T) {
	for _, tt := range []struct {
		name string
		n    int
	}{
		{"negative", -1},
		{"more than asked", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(badCountReader{tt.n})
			if _, err := r.Next(); !errors.Is(err, ErrBadReadCount) {
				t.Fatalf("Next = %v, want ErrBadReadCount", err)
			}
		})
	}
}

// TestUnknownFieldError: the callback's error ends the stream, unwrapped,
// after the events before it, and sticks.
func TestUnknownFieldError(t *testing.T) {
	in := "data: a\n\nerror: {\"message\":\"oops\"}\ndata: b\n\n"
	var seen []string
	opt := WithUnknownField(func(name string, value []byte) error {
		seen = append(seen, name+"="+string(value))
		return errBoom
	})
	r := NewReader(strings.NewReader(in), opt)
	if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("Next = %q, %v", ev.Data, err)
	}
	for range 2 {
		if _, err := r.Next(); err != errBoom {
			t.Fatalf("Next = %v, want the callback's error", err)
		}
	}
	if len(seen) != 1 || seen[0] != `error={"message":"oops"}` {
		t.Errorf("callback saw %q", seen)
	}

	var got []string
	p := NewParser(opt)
	err := p.Feed([]byte(in), func(ev Event) error {
		got = append(got, string(ev.Data))
		return nil
	})
	if err != errBoom || len(got) != 1 || got[0] != "a" {
		t.Errorf("Feed = %v after events %q; want errBoom after [a]", err, got)
	}
	if err := p.Close(); err != errBoom {
		t.Errorf("Close = %v, want the callback's error", err)
	}
}

func TestInvalidOption(t *testing.T) {
	src := &countingReader{r: strings.NewReader("data: a\n\n")}
	r := NewReader(src, WithMaxEventSize(-1))
	_, err := r.Next()
	var oe *OptionError
	if !errors.Is(err, ErrInvalidOption) || !errors.As(err, &oe) || oe.Option != "sse.WithMaxEventSize(-1)" {
		t.Fatalf("Next = %v, want an *OptionError for sse.WithMaxEventSize(-1)", err)
	}
	if want := "sse: invalid option sse.WithMaxEventSize(-1): the size must not be negative"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if src.reads != 0 {
		t.Errorf("read %d times despite the invalid option", src.reads)
	}
	if err := NewParser(WithMaxEventSize(-5)).Feed([]byte("data: a\n\n"), nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("Feed = %v, want ErrInvalidOption", err)
	}
}

// cycleReader repeats block forever. With most > 0 a read returns at most
// most bytes, except that with floodEvery > 0 every floodEvery-th read
// fills p.
type cycleReader struct {
	block      []byte
	off        int
	most       int
	floodEvery int
	reads      int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	c.reads++
	if c.most > 0 && (c.floodEvery == 0 || c.reads%c.floodEvery != 0) {
		p = p[:min(len(p), c.most)]
	}
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.block[c.off:])
		n += k
		c.off = (c.off + k) % len(c.block)
	}
	return n, nil
}

// TestNoAllocPerEvent: in steady state an event costs no allocation, with
// named types, IDs that repeat, multi-line data, comments and CRLF.
func TestNoAllocPerEvent(t *testing.T) {
	for _, tt := range []struct {
		name  string
		block string
	}{
		{"one data line", "data: {\"choices\":[{\"delta\":{\"content\":\"héllo\"}}]}\n\n"},
		{"named types", "event: content_block_delta\ndata: {\"x\":1}\n\nevent: ping\ndata: {}\n\n"},
		{"ids, comments, CRLF", ": keep-alive\r\nid: 42\r\ndata: a\r\ndata: b\r\n\r\n"},
		{"invalid UTF-8", "data: \xff\xfe\n\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(&cycleReader{block: []byte(tt.block)})
			for range 1000 { // warm up: buffers reach their size
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			allocs := testing.AllocsPerRun(1000, func() {
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("Reader: %v allocations per event, want 0", allocs)
			}
			allocs = testing.AllocsPerRun(1000, func() {
				if _, err := r.NextRef(); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("Reader.NextRef: %v allocations per event, want 0", allocs)
			}

			// A source that trickles (one block per read) and one that
			// switches between trickling and flooding, so that the Reader
			// moves between its small and its pooled buffer.
			for _, src := range []struct {
				name string
				r    io.Reader
			}{
				{"trickle", &cycleReader{block: []byte(tt.block), most: len(tt.block)}},
				{"trickle and flood", &cycleReader{block: []byte(tt.block), most: len(tt.block), floodEvery: 7}},
			} {
				r := NewReader(src.r)
				for range 1000 {
					if _, err := r.Next(); err != nil {
						t.Fatal(err)
					}
				}
				allocs := testing.AllocsPerRun(1000, func() {
					if _, err := r.Next(); err != nil {
						t.Fatal(err)
					}
				})
				if allocs != 0 {
					t.Errorf("Reader over a source that goes %s: %v allocations per event, want 0", src.name, allocs)
				}
			}

			p := NewParser()
			block := []byte(strings.Repeat(tt.block, 4))
			n := 0
			emit := func(Event) error { n++; return nil }
			for range 10 {
				if err := p.Feed(block, emit); err != nil {
					t.Fatal(err)
				}
			}
			allocs = testing.AllocsPerRun(100, func() {
				// Split mid-line too, so the partial-line path is measured.
				if err := p.Feed(block[:7], emit); err != nil {
					t.Fatal(err)
				}
				if err := p.Feed(block[7:], emit); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("Parser: %v allocations per block, want 0", allocs)
			}
		})
	}
}

// TestEventClone: a clone survives the next call; the original may not.
func TestEventClone(t *testing.T) {
	r := NewReader(strings.NewReader("event: t\nid: 1\ndata: first\n\ndata: XXXXX\n\n"))
	ev, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	c := ev.Clone()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if c.Type != "t" || c.ID != "1" || string(c.Data) != "first" {
		t.Errorf("clone = %+v, want {t first 1}", c)
	}
	if e := (Event{}).Clone(); e.Data != nil {
		t.Errorf("clone of empty Data = %q", e.Data)
	}
}

// TestNextRef: NextRef gives the events Next gives, in an Event the Reader
// owns, which a caller may change without effect; at the end it returns nil
// and io.EOF, and keeps doing so.
func TestNextRef(t *testing.T) {
	in := "event: a\nid: 1\ndata: x\n\ndata: y\ndata: z\n\nid: 2\ndata: w\n\n"
	want := []Event{{"a", []byte("x"), "1"}, {"message", []byte("y\nz"), "1"}, {"message", []byte("w"), "2"}}
	r := NewReader(strings.NewReader(in))
	var first *Event
	for i, w := range want {
		ev, err := r.NextRef()
		if err != nil {
			t.Fatalf("NextRef %d = %v", i, err)
		}
		if first == nil {
			first = ev
		}
		if ev != first {
			t.Errorf("NextRef %d returned another Event than the first (%p, %p)", i, ev, first)
		}
		if ev.Type != w.Type || string(ev.Data) != string(w.Data) || ev.ID != w.ID {
			t.Errorf("NextRef %d = %+v, want %+v", i, *ev, w)
		}
		*ev = Event{Type: "changed", Data: []byte("changed"), ID: "changed"}
	}
	for range 2 {
		if ev, err := r.NextRef(); ev != nil || err != io.EOF {
			t.Fatalf("NextRef at the end = %v, %v; want nil, io.EOF", ev, err)
		}
	}
	if r.LastEventID() != "2" {
		t.Errorf("LastEventID() = %q, want 2", r.LastEventID())
	}

	r = NewReader(strings.NewReader("data: "+strings.Repeat("q", 20)+"\n\n"), WithMaxEventSize(10))
	if ev, err := r.NextRef(); ev != nil || !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("NextRef = %v, %v; want nil, ErrEventTooLarge", ev, err)
	}
}

// TestNextZeroEventAtEnd: with every kind of end, Next returns the zero
// Event along with the error, the first time and every later time, even
// right after an event.
func TestNextZeroEventAtEnd(t *testing.T) {
	failing := WithUnknownField(func(string, []byte) error { return errBoom })
	for _, tt := range []struct {
		name string
		src  io.Reader
		opts []Option
		want error
	}{
		{"EOF", strings.NewReader("data: a\n\ndata: partial"), nil, io.EOF},
		{"done sentinel", strings.NewReader("data: a\n\ndata: [DONE]\n\n"), nil, io.EOF},
		{"too large", strings.NewReader("data: a\n\ndata: " + strings.Repeat("x", 64) + "\n\n"), []Option{WithMaxEventSize(32)}, ErrEventTooLarge},
		{"source error", io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(errBoom)), nil, errBoom},
		{"callback error", strings.NewReader("data: a\n\nerror: x\n\n"), []Option{failing}, errBoom},
		{"no progress", io.MultiReader(strings.NewReader("data: a\n\n"), &zeroReader{}), nil, io.ErrNoProgress},
		{"bad count", io.MultiReader(strings.NewReader("data: a\n\n"), badCountReader{-1}), nil, ErrBadReadCount},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.src, tt.opts...)
			if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
				t.Fatalf("Next = %q, %v; want the event a", ev.Data, err)
			}
			for range 2 {
				ev, err := r.Next()
				if !errors.Is(err, tt.want) || ev.Type != "" || ev.Data != nil || ev.ID != "" {
					t.Fatalf("Next = %+v, %v; want a zero Event and %v", ev, err, tt.want)
				}
			}
		})
	}
	r := NewReader(strings.NewReader("data: a\n\n"), WithMaxEventSize(-1))
	if ev, err := r.Next(); !errors.Is(err, ErrInvalidOption) || ev.Type != "" || ev.Data != nil || ev.ID != "" {
		t.Errorf("Next = %+v, %v; want a zero Event and ErrInvalidOption", ev, err)
	}
}
