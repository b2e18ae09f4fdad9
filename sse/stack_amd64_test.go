package sse

import (
	"testing"
	"unsafe"
)

// stackProbe is a source whose Read records how deep the stack is at that
// point, as the address of one of its locals, and serves one event.
type stackProbe struct {
	at   uintptr
	done bool
}

//go:noinline
func (p *stackProbe) Read(b []byte) (int, error) {
	var here byte
	p.at = uintptr(unsafe.Pointer(&here))
	if p.done {
		return 0, errBoom
	}
	p.done = true
	return copy(b, "data: x\n\n"), nil
}

// growStack uses about n KiB of stack, so that the goroutine's stack is
// large enough not to move while it is measured.
//
//go:noinline
func growStack(n int) byte {
	var pad [1024]byte
	if n > 0 {
		pad[n%len(pad)] = growStack(n - 1)
	}
	return pad[0]
}

// nextThrough calls src.Next through the interface, as llmstream's bridge
// does; noinline, so that the compiler cannot see the concrete type.
//
//go:noinline
func nextThrough(src interface{ Next() (Event, error) }) error {
	_, err := src.Next()
	return err
}

// TestReadPathStack: while a Reader waits in its source's Read, its own
// frames (next and fill, and Next's when it is not inlined) take at most
// 160 bytes of the goroutine's stack, 256 through an interface (with the
// small frame of the function that calls it there), so that a
// held stream's parked stack is mostly its caller's and the network's;
// parse, the large frame, has returned by then. (Before the read moved out
// from under parse this was 272 bytes.) The depth is measured from the
// caller's frame to the source's, less the same depth when the caller
// calls the source itself. amd64 only, and not under -race, which enlarges
// frames.
func TestReadPathStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector enlarges frames")
	}
	type depths struct{ direct, viaNext, viaNextRef, viaIface uintptr }
	got := make(chan depths)
	go func() {
		growStack(32)
		var d depths
		// A stack that moves during a measurement (a GC may shrink it)
		// makes it meaningless: measure again, a few times at most.
		for range 5 {
			var top byte
			at := uintptr(unsafe.Pointer(&top))
			p := &stackProbe{}
			var src interface {
				Read([]byte) (int, error)
			} = p
			src.Read(make([]byte, 16))
			d.direct = at - p.at
			p.done = false
			if _, err := NewReader(p).Next(); err != nil {
				t.Error(err)
			}
			d.viaNext = at - p.at
			p.done = false
			if _, err := NewReader(p).NextRef(); err != nil {
				t.Error(err)
			}
			d.viaNextRef = at - p.at
			// Through an interface, as llmstream's bridge calls it: Next
			// is not inlined then and has a frame of its own.
			p.done = false
			if err := nextThrough(NewReader(p)); err != nil {
				t.Error(err)
			}
			d.viaIface = at - p.at
			if uintptr(unsafe.Pointer(&top)) == at {
				break
			}
		}
		got <- d
	}()
	d := <-got
	for _, c := range []struct {
		name  string
		depth uintptr
		most  uintptr
	}{{"Next", d.viaNext, 160}, {"NextRef", d.viaNextRef, 160}, {"an interface", d.viaIface, 256}} {
		own := c.depth - d.direct
		t.Logf("via %s: %d bytes of stack above the source's Read, %d of them the Reader's", c.name, c.depth, own)
		if c.depth < d.direct || own > c.most {
			t.Errorf("via %s the Reader's frames take %d bytes of stack while it waits in Read, want at most %d", c.name, own, c.most)
		}
	}
}
