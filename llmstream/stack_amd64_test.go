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

// parkedFrames returns how many bytes of stack call's frames take above its
// source's last Read, less what a plain call of that Read takes (both
// from a closure; call's includes the frame that receives the Message, as
// every caller's does): call
// reads the stream of one text event and a finish from the probe it is
// given. It measures on a goroutine whose stack has been grown, so that
// the stack does not move meanwhile, and measures again if it did.
func parkedFrames(t *testing.T, call func(p *stackProbe) (Message, error)) uintptr {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector enlarges frames")
	}
	parts := []string{stream(content("hi")), stream(finish("stop"), done)}
	direct := func(p *stackProbe) (Message, error) {
		var src io.Reader = p
		src.Read(make([]byte, 1))
		return Message{Content: "hi"}, nil
	}
	got := make(chan [2]uintptr, 1)
	go func() {
		growStack(32)
		var d [2]uintptr
		for range 5 {
			var top byte
			at := uintptr(unsafe.Pointer(&top))
			for k, f := range []func(*stackProbe) (Message, error){direct, call} {
				p := &stackProbe{parts: append([]string(nil), parts...)}
				m, err := f(p)
				if err != nil || m.Content != "hi" {
					t.Errorf("got %q, %v", m.Content, err)
				}
				d[k] = at - p.at // the last read: parked for an event after the first
			}
			if uintptr(unsafe.Pointer(&top)) == at {
				break
			}
		}
		got <- d
	}()
	d := <-got
	if d[1] < d[0] {
		t.Fatalf("the call's Read is %d bytes deep, a plain Read %d", d[1], d[0])
	}
	return d[1] - d[0]
}

// TestParkedStack: while ReadMessage waits in its source's Read for the
// next event, airlock's frames above the source (ReadMessage, the
// bridge's read loop, the SSE reader) take at most 1,150 bytes of stack. A
// held stream spends its life parked there; with the caller's and the
// network's frames around them, a parked stack over a quarter of 16 KiB
// keeps a stack that a burst of work grew to 16 KiB from shrinking back
// to 8 KiB, which costs that held stream 8 KiB. (This was 1,344 bytes
// while the read loop returned the Message itself, through Consume, and
// the held-stream measurement showed 0.7 KB of stack per stream over
// net/http's; 1,000 bytes and 0.03 KB since.) amd64 only, and not under
// -race, which enlarges frames.
func TestParkedStack(t *testing.T) {
	own := parkedFrames(t, func(p *stackProbe) (Message, error) { return ReadMessage(p) })
	t.Logf("ReadMessage's frames above a waiting Read: %d bytes", own)
	if own > 1150 {
		t.Errorf("parked in Read, ReadMessage and the reader below it take %d bytes of stack, want at most 1150", own)
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
// holds a stream: at most 2,450 bytes of airlock frames above a waiting
// Read (2,800 while send built the request and read the stream in one
// frame; 2,112 since; 2,288 before Message gained Model, whose 16 bytes
// every frame holding a Message pays).
func TestParkedStackClient(t *testing.T) {
	own := parkedFrames(t, func(p *stackProbe) (Message, error) {
		c := NewClient(WithHTTPClient(probeDoer{p}), WithModel("m"))
		return c.Stream(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
	})
	t.Logf("Client.Stream's frames above a waiting Read: %d bytes", own)
	if own > 2450 {
		t.Errorf("parked in Read, Client.Stream and the reader below it take %d bytes of stack, want at most 2450", own)
	}
}
