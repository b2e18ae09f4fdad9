package sse_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/sse"
)

// TestZeroParser: the zero Parser works with the defaults — the done
// sentinel and the event size limit — like NewParser().
func TestZeroParser(t *testing.T) {
	var p sse.Parser
	var got []string
	err := p.Feed([]byte("data: a\n\ndata: [DONE]\n\ndata: after\n\n"), func(ev sse.Event) error {
		got = append(got, string(ev.Data))
		return nil
	})
	if err != io.EOF || !p.Done() || len(got) != 1 || got[0] != "a" {
		t.Errorf("events %q, err %v, done %v; want [a], io.EOF, true", got, err, p.Done())
	}

	for _, tc := range []struct {
		size int
		want error
	}{
		{sse.DefaultMaxEventSize - 1, nil},
		{sse.DefaultMaxEventSize, nil},
		{sse.DefaultMaxEventSize + 1, sse.ErrEventTooLarge},
	} {
		var p sse.Parser
		// The limit counts the pending line: "data:" and the data.
		err := p.Feed([]byte("data:"+strings.Repeat("x", tc.size-len("data:"))+"\n\n"), nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("an event of %d bytes: %v, want %v", tc.size, err, tc.want)
		}
	}
}

// TestZeroReader: a Reader with no source fails with ErrNoSource, and
// keeps failing, instead of panicking.
func TestZeroReader(t *testing.T) {
	for name, r := range map[string]*sse.Reader{"zero": new(sse.Reader), "nil source": sse.NewReader(nil)} {
		for range 2 {
			if ev, err := r.Next(); !errors.Is(err, sse.ErrNoSource) || ev.Data != nil {
				t.Errorf("%s: Next = %+v, %v; want ErrNoSource", name, ev, err)
			}
		}
		if ev, err := r.NextRef(); !errors.Is(err, sse.ErrNoSource) || ev != nil {
			t.Errorf("%s: NextRef = %v, %v; want ErrNoSource", name, ev, err)
		}
	}
}
