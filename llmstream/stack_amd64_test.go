package llmstream

import (
	"context"
	"io"
	"net/http"
	"testing"
	"unsafe"
)

// stackProbe is a source that records how deep the stack is when it is
// read, as the address of one of its locals, and serves a stream in two
// reads: the first event, then the rest.
type stackProbe struct {
	at    uintptr
	parts []string
}

//go:noinline
func (p *stackProbe) Read(b []byte) (int, error) {
	var here byte
	p.at = uintptr(unsafe.Pointer(&here))
	if len(p.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.parts[0])
	p.parts = p.parts[1:]
	return n, nil
}

//go:noinline
func growStack(n int) byte {
	var pad [1024]byte
	if n > 0 {
		pad[n%len(pad)] = growStack(n - 1)
	}
	return pad[0]
}

// TestParkedStack: while ReadMessage waits in its source's Read for the
// next event, airlock's frames above the source (ReadMessage, the
// bridge's read loop, the SSE reader) take at most 800 bytes of stack. A
// held stream spends its life parked there; with the caller's and the
// network's frames around them, a parked stack over a quarter of 16 KiB
// keeps a stack that a burst of work grew to 16 KiB from shrinking back
// to 8 KiB, which costs that held stream 8 KiB. (This was 1,008 bytes
// while the read loop returned the Message itself, through Consume, and
// the held-stream measurement showed 0.7 KB of stack per stream over
// net/http's; 0.03 KB since.) amd64 only, and not under -race, which
// enlarges frames.
func TestParkedStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector enlarges frames")
	}
	parts := []string{stream(content("hi")), stream(finish("stop"), done)}
	got := make(chan [2]uintptr, 1)
	go func() {
		growStack(32) // so that the stack does not move while it is measured
		var d [2]uintptr
		for range 5 {
			var top byte
			at := uintptr(unsafe.Pointer(&top))
			p := &stackProbe{parts: []string{"x"}}
			var src io.Reader = p
			src.Read(make([]byte, 1))
			d[0] = at - p.at
			p = &stackProbe{parts: append([]string(nil), parts...)}
			m, err := ReadMessage(p)
			if err != nil || m.Content != "hi" {
				t.Errorf("ReadMessage: %q, %v", m.Content, err)
			}
			d[1] = at - p.at // the last read: parked for an event after the first
			if uintptr(unsafe.Pointer(&top)) == at {
				break
			}
		}
		got <- d
	}()
	d := <-got
	own := d[1] - d[0]
	t.Logf("ReadMessage's frames above a waiting Read: %d bytes", own)
	if d[1] < d[0] || own > 800 {
		t.Errorf("parked in Read, ReadMessage and the reader below it take %d bytes of stack, want at most 800", own)
	}
}

// probeDoer answers every request with a stream read from its probe.
type probeDoer struct{ p *stackProbe }

func (d probeDoer) Do(req *http.Request) (*http.Response, error) {
	h := http.Header{}
	h.Set("Content-Type", "text/event-stream")
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(d.p), Request: req}, nil
}

// TestParkedStackClient: the same through Client.Stream, the way an agent
// holds a stream: at most 1,800 bytes of airlock frames above a waiting
// Read (2,184 while send built the request and read the stream in one
// frame; 1,496 since).
func TestParkedStackClient(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector enlarges frames")
	}
	parts := []string{stream(content("hi")), stream(finish("stop"), done)}
	got := make(chan [2]uintptr, 1)
	go func() {
		growStack(32)
		var d [2]uintptr
		for range 5 {
			var top byte
			at := uintptr(unsafe.Pointer(&top))
			p := &stackProbe{parts: []string{"x"}}
			var src io.Reader = p
			src.Read(make([]byte, 1))
			d[0] = at - p.at
			p = &stackProbe{parts: append([]string(nil), parts...)}
			c := NewClient(WithHTTPClient(probeDoer{p}), WithModel("m"))
			m, err := c.Stream(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
			if err != nil || m.Content != "hi" {
				t.Errorf("Stream: %q, %v", m.Content, err)
			}
			d[1] = at - p.at
			if uintptr(unsafe.Pointer(&top)) == at {
				break
			}
		}
		got <- d
	}()
	d := <-got
	own := d[1] - d[0]
	t.Logf("Client.Stream's frames above a waiting Read: %d bytes", own)
	if d[1] < d[0] || own > 1800 {
		t.Errorf("parked in Read, Client.Stream and the reader below it take %d bytes of stack, want at most 1800", own)
	}
}
