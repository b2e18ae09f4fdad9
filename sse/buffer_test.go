package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// phase is a stretch of a scripted source: its next n bytes, in reads of at
// most step bytes (a short read whenever the room offered is larger), or,
// with step 0, in reads that fill all the room offered (full reads).
type phase struct{ n, step int }

// phasedReader serves data in phases and records, per phase, the size of
// the buffer the watched Reader read into at each read (white box: it looks
// at rd.buf).
type phasedReader struct {
	data   []byte
	phases []phase
	cur    int // the phase being served
	rd     *Reader
	sizes  [][]int // by phase
}

func (p *phasedReader) Read(b []byte) (int, error) {
	for p.cur < len(p.phases) && p.phases[p.cur].n == 0 {
		p.cur++
	}
	if p.cur == len(p.phases) {
		return 0, io.EOF
	}
	ph := &p.phases[p.cur]
	n := min(len(b), ph.n)
	if ph.step > 0 {
		n = min(n, ph.step)
	}
	copy(b, p.data[:n])
	p.data, ph.n = p.data[n:], ph.n-n
	p.sizes[p.cur] = append(p.sizes[p.cur], len(p.rd.buf))
	return n, nil
}

// readPhased reads data through a Reader whose source follows phases, and
// returns the result and the buffer size at every read, by phase. It fails
// t if the Reader holds a buffer after the end.
func readPhased(t *testing.T, data []byte, phases []phase, opts ...Option) (result, [][]int) {
	t.Helper()
	total := 0
	for _, ph := range phases {
		total += ph.n
	}
	if total != len(data) {
		t.Fatalf("the phases cover %d bytes of %d", total, len(data))
	}
	src := &phasedReader{data: data, phases: append([]phase(nil), phases...), sizes: make([][]int, len(phases))}
	var res result
	r := NewReader(src, append([]Option{recorder(&res)}, opts...)...)
	src.rd = r
	for {
		ev, err := r.Next()
		if err != nil {
			res.Err = errKey(err)
			break
		}
		res.Events = append(res.Events, refEvent{ev.Type, string(ev.Data), ev.ID})
	}
	res.LastID = r.LastEventID()
	res.Retry, res.HasRetry = r.Retry()
	res.Done = r.Done()
	if r.buf != nil || r.small != nil {
		t.Errorf("the Reader still holds buffers after the end of the stream")
	}
	return res, src.sizes
}

// smallEvents returns n events of about 100 bytes each.
func smallEvents(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "data: {\"n\":%d,\"text\":\"%s\"}\n\n", i, strings.Repeat("a", 70))
	}
	return b.Bytes()
}

// checkSizes fails unless every size in got is want, skipping the first
// skip reads (the reads in which the Reader notices the change of pace).
func checkSizes(t *testing.T, what string, got []int, skip, want int) {
	t.Helper()
	if len(got) <= skip {
		t.Fatalf("%s: only %d reads", what, len(got))
	}
	for i, n := range got[skip:] {
		if n != want {
			t.Fatalf("%s: read %d went into a %d-byte buffer, want %d (all: %v)", what, skip+i, n, want, got)
		}
	}
}

// TestBufferTrickleFloodTrickle: one event per read keeps the small buffer;
// reads that fill it move to the large one at the next read; short reads
// move back at the next read; the events are those of one whole read.
func TestBufferTrickleFloodTrickle(t *testing.T) {
	ev := smallEvents(1)
	trickle := smallEvents(20)
	flood := smallEvents(400) // about 40 KiB
	data := bytes.Join([][]byte{trickle, flood, trickle}, nil)
	got, sizes := readPhased(t, data, []phase{
		{len(trickle), len(ev)},
		{len(flood), 0},
		{len(trickle), len(ev)},
	})
	if diff := cmp.Diff(readAll(bytes.NewReader(data)), got); diff != "" {
		t.Fatalf("phased reads differ from one whole read (-whole +phased):\n%s", diff)
	}
	checkSizes(t, "trickle", sizes[0], 0, smallBufSize)
	// The first flood read fills the small buffer; then the large one.
	if sizes[1][0] != smallBufSize {
		t.Errorf("the first flood read went into %d bytes, want the small buffer", sizes[1][0])
	}
	checkSizes(t, "flood", sizes[1], 1, largeBufSize)
	// The flood's last read filled the large buffer, so the first short
	// read goes there too; the next ones go to the small buffer.
	checkSizes(t, "trickle again", sizes[2], 1, smallBufSize)
}

// TestBufferLargeEventInFlood: one event larger than the large buffer,
// arriving in full reads, grows the buffer by doubling; the trickle after it
// reads into the small buffer again.
func TestBufferLargeEventInFlood(t *testing.T) {
	big := "data: " + strings.Repeat("é", 20<<10) + "\n\n" // 40 KiB of data
	before, after := smallEvents(3), smallEvents(10)
	data := bytes.Join([][]byte{before, []byte(big), after}, nil)
	got, sizes := readPhased(t, data, []phase{
		{len(before), 100},
		{len(big), 0},
		{len(after), 100},
	})
	if diff := cmp.Diff(readAll(bytes.NewReader(data)), got); diff != "" {
		t.Fatalf("phased reads differ from one whole read (-whole +phased):\n%s", diff)
	}
	if len(got.Events) != 14 || len(got.Events[3].Data) != 40<<10 {
		t.Fatalf("got %d events; want 14, the fourth of 40 KiB", len(got.Events))
	}
	biggest := 0
	for _, n := range sizes[1] {
		biggest = max(biggest, n)
	}
	// 40 KiB pending needs 64 KiB: 16 KiB doubled twice.
	if biggest != 4*largeBufSize {
		t.Errorf("the largest buffer was %d bytes, want %d", biggest, 4*largeBufSize)
	}
	checkSizes(t, "trickle after", sizes[2], 1, smallBufSize)
}

// TestBufferLongLineStaysPut: a short read while a partial line fills more
// than half the small buffer does not move the line back there; the next
// short read after the line ends does.
func TestBufferLongLineStaysPut(t *testing.T) {
	long := []byte("data: " + strings.Repeat("x", 2000) + "\n\n")
	after := smallEvents(5)
	data := append(append([]byte(nil), long...), after...)
	_, sizes := readPhased(t, data, []phase{
		{600, 0},                   // fills the small buffer: large next
		{len(long) - 600 + 1, 100}, // short reads, the line pending
		{len(after) - 1, 100},
	})
	checkSizes(t, "while the line is pending", sizes[1], 0, largeBufSize)
	checkSizes(t, "after the line", sizes[2], 1, smallBufSize)
}

// TestBufferLimits checks WithMaxEventSize at the limit, one below and one
// above, for limits around the two buffer sizes, with the line arriving in
// full reads, in short reads, and alternating between the two; the largest
// buffer stays within the limit plus smallBufSize, or largeBufSize.
func TestBufferLimits(t *testing.T) {
	for _, limit := range []int{smallBufSize / 2, smallBufSize - 1, smallBufSize, smallBufSize + 1,
		largeBufSize - 1, largeBufSize, largeBufSize + 1, 3 * largeBufSize} {
		for _, delta := range []int{-1, 0, 1} {
			size := limit + delta
			line := "data:" + strings.Repeat("y", size-len("data:"))
			data := []byte(string(smallEvents(2)) + line + "\n\n" + string(smallEvents(2)))
			want := result{Events: []refEvent{ev("message", line[len("data:"):], "")}}
			if delta > 0 {
				want = result{Err: tooLarge(limit)}
			}
			for _, how := range []struct {
				name   string
				phases []phase
			}{
				{"full reads", []phase{{len(data), 0}}},
				{"short reads", []phase{{len(data), 300}}},
				{"alternating", alternate(len(data), 700)},
			} {
				t.Run(fmt.Sprintf("limit %d/line %d/%s", limit, size, how.name), func(t *testing.T) {
					got, sizes := readPhased(t, data, how.phases, WithMaxEventSize(limit))
					// Only the long line's event and the error matter.
					var evs []refEvent
					for _, e := range got.Events {
						if strings.HasPrefix(e.Data, "yy") || e.Data == "" {
							evs = append(evs, e)
						}
					}
					if diff := cmp.Diff(want, result{Events: evs, Err: got.Err}); diff != "" {
						t.Errorf("(-want +got):\n%s", diff)
					}
					bound := max(largeBufSize, limit+smallBufSize)
					for _, ph := range sizes {
						for _, n := range ph {
							if n > bound {
								t.Fatalf("a %d-byte buffer for a limit of %d", n, limit)
							}
						}
					}
				})
			}
		}
	}
}

// alternate splits n bytes into phases of every bytes each, full reads and
// short reads in turn.
func alternate(n, every int) []phase {
	var ps []phase
	for i := 0; n > 0; i++ {
		k := min(n, every)
		ps = append(ps, phase{k, (i % 2) * 37})
		n -= k
	}
	return ps
}

// TestBufferReleased: after io.EOF, the done sentinel or an error the
// Reader holds no buffer, and later calls still return the same error.
func TestBufferReleased(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want error
	}{
		{"EOF", "data: a\n\ndata: b", io.EOF},
		{"done", "data: a\n\ndata: [DONE]\n\ndata: b\n\n", io.EOF},
		{"too large", "data: a\n\ndata: " + strings.Repeat("z", 100) + "\n\n", ErrEventTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), WithMaxEventSize(50))
			if ev, err := r.Next(); err != nil || string(ev.Data) != "a" {
				t.Fatalf("Next = %q, %v", ev.Data, err)
			}
			if r.buf == nil {
				t.Fatal("no buffer while reading")
			}
			for range 2 {
				if _, err := r.Next(); !errors.Is(err, tt.want) {
					t.Fatalf("Next = %v, want %v", err, tt.want)
				}
				if r.buf != nil || r.small != nil || r.st.cur != nil || r.st.ev.Data != nil {
					t.Fatalf("buffers kept after the end: buf %d bytes, small %v, pending %q, event %q", len(r.buf), r.small != nil, r.st.cur, r.st.ev.Data)
				}
			}
		})
	}
}
