package eventstream

import (
	"errors"
	"io"
	"testing"
)

func TestParserEmitError(t *testing.T) {
	f := bedrockFrame("contentBlockStop", `{"contentBlockIndex":0}`)
	stop := errors.New("stop")
	p := NewParser()
	n := 0
	err := p.Feed(concat(f, f, f), func(Message) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Fatalf("Feed = %v after %d frames; want stop after 1", err, n)
	}
	if err := p.Feed(f, nil); err != stop {
		t.Errorf("Feed after the error = %v, want it again", err)
	}
	if err := p.Close(); err != stop {
		t.Errorf("Close = %v, want the first error", err)
	}
}

func TestParserClose(t *testing.T) {
	f := bedrockFrame("metadata", `{"usage":{}}`)
	var p Parser // the zero Parser works, with the defaults
	if err := p.Feed(concat(f, f[:20]), nil); err != nil {
		t.Fatal(err)
	}
	err := p.Close()
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Err != ErrTruncated || fe.Offset != int64(len(f)) {
		t.Fatalf("Close = %#v; want ErrTruncated at byte %d", err, len(f))
	}
	if again := p.Close(); again != err {
		t.Errorf("second Close = %v, want %v", again, err)
	}
	clean := NewParser()
	if err := clean.Feed(f, nil); err != nil {
		t.Fatal(err)
	}
	if err := clean.Close(); err != nil {
		t.Errorf("Close after whole frames = %v", err)
	}
	if err := clean.Feed(f, nil); err != ErrClosed {
		t.Errorf("Feed after Close = %v, want ErrClosed", err)
	}
	if err := NewParser().Close(); err != nil {
		t.Errorf("Close of an unused Parser = %v", err)
	}
}

// A split frame is copied into a buffer no larger than the frame.
func TestParserBufferBound(t *testing.T) {
	f := goodFrame(nil, make([]byte, 1000))
	p := NewParser(WithMaxFrameSize(len(f)))
	for i := range f {
		if err := p.Feed(f[i:i+1], nil); err != nil {
			t.Fatal(err)
		}
		if cap(p.partial) > len(f) {
			t.Fatalf("after %d bytes the buffer holds %d, limit %d", i+1, cap(p.partial), len(f))
		}
	}
	if err := p.Close(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
}
