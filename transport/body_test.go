package transport

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"
	"testing/iotest"
)

// chunkReader returns data in reads of the given sizes, cycling through them.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(c.sizes[c.i%len(c.sizes)], len(p), len(c.data))
	c.i++
	n := copy(p, c.data[:k])
	c.data = c.data[n:]
	return n, nil
}

type endRecord struct {
	calls int
	n     int64
	err   error
}

// newTestBody wraps r in the body of an exchange with the cap and no other
// limit, and records its end event in end.
func newTestBody(r io.Reader, maxBytes int64, end *endRecord) *body {
	cfg := config{maxStream: maxBytes, observer: end.observe}
	return newTestExchange(cfg, r)
}

// newTestExchange returns the body of an exchange made with cfg, as Do
// would hand it out after the response headers, reading r.
func newTestExchange(cfg config, r io.Reader) *body {
	return newTestBodyOf(&Client{cfg: cfg}, newTestRequest(), r)
}

func newTestRequest() *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Scheme: "http", Host: "example.test"}}
}

// newTestBodyOf returns the body of a new exchange of c for req, reading r.
func newTestBodyOf(c *Client, req *http.Request, r io.Reader) *body {
	x := newExchange(c, req)
	x.body = body{x: x, rc: io.NopCloser(r), status: http.StatusOK}
	x.enter(phaseBody)
	return &x.body
}

func (e *endRecord) observe(ev Event) {
	if ev.Kind == EventEnd {
		e.calls++
		e.n, e.err = ev.Bytes, ev.Err
	}
}

// readAllWith reads b to its end with a buffer of bufSize bytes.
func readAllWith(b io.Reader, bufSize int) ([]byte, error) {
	var out []byte
	buf := make([]byte, bufSize)
	for {
		n, err := b.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
	}
}

// checkCap is the cap's whole contract for one body and one way of reading
// it: exactly min(len, cap) bytes handed on, the right end, one end report.
func checkCap(t *testing.T, data []byte, maxBytes int64, r io.Reader, bufSize int) {
	t.Helper()
	end := &endRecord{}
	b := newTestBody(r, maxBytes, end)
	got, err := readAllWith(b, bufSize)
	want := data
	var wantErr error
	if maxBytes > 0 && int64(len(data)) > maxBytes {
		want, wantErr = data[:maxBytes], ErrStreamTooLarge
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("cap %d, %d-byte body, buffer %d: handed %d bytes, want %d", maxBytes, len(data), bufSize, len(got), len(want))
	}
	if !errors.Is(err, wantErr) || (wantErr == nil && err != nil) {
		t.Fatalf("cap %d, %d-byte body, buffer %d: err = %v, want %v", maxBytes, len(data), bufSize, err, wantErr)
	}
	if end.calls != 1 || end.n != int64(len(want)) || !errors.Is(end.err, wantErr) {
		t.Fatalf("end reported %d times, %d bytes, %v", end.calls, end.n, end.err)
	}
	b.Close()
	if end.calls != 1 {
		t.Fatal("Close after the end reported again")
	}
}

func TestBodyCapAnyChunking(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	tests := []struct {
		name     string
		size     int
		maxBytes int64
	}{
		{"empty", 0, 5},
		{"one under", 9, 10},
		{"at the cap", 10, 10},
		{"one over", 11, 10},
		{"far over", 36, 10},
		{"cap of one, one byte", 1, 1},
		{"cap of one, two bytes", 2, 1},
		{"no cap", 36, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := data[:tt.size]
			for _, bufSize := range []int{1, 2, 3, 7, 10, 11, 64} {
				checkCap(t, d, tt.maxBytes, bytes.NewReader(d), bufSize)
				checkCap(t, d, tt.maxBytes, iotest.OneByteReader(bytes.NewReader(d)), bufSize)
				checkCap(t, d, tt.maxBytes, iotest.HalfReader(bytes.NewReader(d)), bufSize)
				checkCap(t, d, tt.maxBytes, iotest.DataErrReader(bytes.NewReader(d)), bufSize)
				for split := 0; split <= len(d); split++ {
					checkCap(t, d, tt.maxBytes, &chunkReader{data: d, sizes: []int{max(split, 1), len(d) + 1}}, bufSize)
				}
			}
		})
	}
}

func TestBodyReadError(t *testing.T) {
	end := &endRecord{}
	b := newTestBody(iotest.TimeoutReader(bytes.NewReader([]byte("abc"))), 0, end)
	n, err := b.Read(make([]byte, 8))
	if n != 3 || err != nil {
		t.Fatalf("first read = %d, %v", n, err)
	}
	if _, err = b.Read(make([]byte, 8)); !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("second read = %v", err)
	}
	if _, again := b.Read(make([]byte, 8)); again != err {
		t.Errorf("the error did not stick: %v then %v", err, again)
	}
	if end.calls != 1 || end.n != 3 || end.err != err {
		t.Errorf("end = %+v", end)
	}
}

func TestBodyZeroLengthRead(t *testing.T) {
	end := &endRecord{}
	b := newTestBody(bytes.NewReader([]byte("x")), 1, end)
	if n, err := b.Read(nil); n != 0 || err != nil {
		t.Errorf("Read(nil) = %d, %v", n, err)
	}
	if end.calls != 0 {
		t.Error("an empty read ended the body")
	}
}

func TestBodyCloseBeforeEnd(t *testing.T) {
	end := &endRecord{}
	b := newTestBody(bytes.NewReader([]byte("abcdef")), 0, end)
	b.Read(make([]byte, 2))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Read(make([]byte, 2)); n != 0 || err != ErrBodyClosed {
		t.Errorf("Read after Close = %d, %v", n, err)
	}
	if end.calls != 1 || end.n != 2 || end.err != ErrBodyClosed {
		t.Errorf("end = %+v", end)
	}
}

// FuzzBodyCap checks the cap's contract for any body, cap and chunking: the
// result never depends on how the bytes arrive or on the reader's buffer.
func FuzzBodyCap(f *testing.F) {
	f.Add([]byte("data: hello\n\n"), uint16(13), uint8(1), uint8(4))
	f.Add([]byte("data: hello\n\n"), uint16(12), uint8(3), uint8(1))
	f.Add([]byte(""), uint16(0), uint8(1), uint8(1))
	f.Add(bytes.Repeat([]byte("x"), 300), uint16(299), uint8(7), uint8(64))
	f.Fuzz(func(t *testing.T, data []byte, maxBytes uint16, chunk, bufSize uint8) {
		r := &chunkReader{data: data, sizes: []int{int(chunk%32) + 1, int(chunk/32) + 1}}
		checkCap(t, data, int64(maxBytes), r, int(bufSize)+1)
	})
}

// BenchmarkBodyRead measures the body wrapper alone — the cap check and the
// low-speed bookkeeping on every Read — against the bare reader. Its
// allocations are those of one exchange with the default limits, less
// net/http's registration of its own context in the exchange's.
func BenchmarkBodyRead(b *testing.B) {
	data := bytes.Repeat([]byte("data: x\n\n"), 1<<16) // 576 KiB
	buf := make([]byte, 4096)
	drain := func(b *testing.B, r io.Reader) {
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
		}
	}
	b.Run("bare", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			drain(b, bytes.NewReader(data))
		}
	})
	b.Run("limited", func(b *testing.B) {
		c := &Client{cfg: defaultConfig()}
		req := newTestRequest()
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			body := newTestBodyOf(c, req, bytes.NewReader(data))
			drain(b, body)
			body.Close()
		}
	})
}
