package sse_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/airlock-go/airlock/sse"
)

// flushCounter counts flushes and fails its writes after failAfter bytes.
type flushCounter struct {
	flushes  int
	written  int
	failAt   int
	flushErr error
}

var errDisk = errors.New("disk full")

func (f *flushCounter) Write(p []byte) (int, error) {
	if f.failAt > 0 && f.written+len(p) > f.failAt {
		return 0, errDisk
	}
	f.written += len(p)
	return len(p), nil
}

func (f *flushCounter) Flush() error { f.flushes++; return f.flushErr }

func TestWriterFlushesEachEvent(t *testing.T) {
	f := &flushCounter{}
	w := sse.NewWriter(f)
	for i := range 3 {
		if err := w.WriteEvent(sse.Event{Data: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		if f.flushes != i+1 {
			t.Fatalf("after %d events, %d flushes", i+1, f.flushes)
		}
	}
	if err := w.WriteComment(""); err != nil || f.flushes != 4 {
		t.Fatalf("comment: err %v, %d flushes, want 4", err, f.flushes)
	}
}

func TestWriterErrorSticks(t *testing.T) {
	f := &flushCounter{failAt: 20}
	w := sse.NewWriter(f)
	if err := w.WriteEvent(sse.Event{Data: []byte("0123")}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEvent(sse.Event{Data: []byte("0123456789")}); !errors.Is(err, errDisk) {
		t.Fatalf("err = %v, want errDisk", err)
	}
	f.failAt = 0
	if err := w.WriteEvent(sse.Event{Data: []byte("a")}); !errors.Is(err, errDisk) {
		t.Fatalf("after a failed write: %v, want the same error", err)
	}
	if err := w.WriteComment(""); !errors.Is(err, errDisk) {
		t.Fatalf("comment after a failed write: %v", err)
	}

	errFlush := errors.New("gone")
	g := &flushCounter{flushErr: errFlush}
	w = sse.NewWriter(g)
	if err := w.WriteEvent(sse.Event{}); !errors.Is(err, errFlush) {
		t.Fatalf("flush error: %v", err)
	}
	if err := w.WriteEvent(sse.Event{}); !errors.Is(err, errFlush) || g.flushes != 1 {
		t.Fatalf("after a failed flush: %v, %d flushes", err, g.flushes)
	}
}

// TestWriterHTTP serves events through a real server: the headers turn
// buffering off and each event reaches the client before the next is
// written.
func TestWriterHTTP(t *testing.T) {
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		sse.SetHeaders(rw.Header())
		w := sse.NewWriter(rw)
		for _, d := range []string{"one", "two"} {
			if err := w.WriteEvent(sse.Event{Type: "t", Data: []byte(d)}); err != nil {
				t.Error(err)
				return
			}
			<-next
		}
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for k, v := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	r := sse.NewReader(resp.Body)
	for _, want := range []string{"one", "two"} {
		// The event arrives while the handler still waits: it was flushed.
		ev, err := r.Next()
		if err != nil || ev.Type != "t" || string(ev.Data) != want {
			t.Fatalf("got %q %q, %v; want %q", ev.Type, ev.Data, err, want)
		}
		next <- struct{}{}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// TestWriterResponseWithoutFlush: a ResponseWriter that cannot flush is
// reported at the first write, not silently buffered.
func TestWriterResponseWithoutFlush(t *testing.T) {
	w := sse.NewWriter(noFlush{httptest.NewRecorder()})
	if err := w.WriteEvent(sse.Event{}); !errors.Is(err, http.ErrNotSupported) {
		t.Fatalf("err = %v, want http.ErrNotSupported", err)
	}
}

type noFlush struct{ rw http.ResponseWriter }

func (n noFlush) Header() http.Header         { return n.rw.Header() }
func (n noFlush) Write(p []byte) (int, error) { return n.rw.Write(p) }
func (n noFlush) WriteHeader(code int)        { n.rw.WriteHeader(code) }
