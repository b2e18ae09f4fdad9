package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// result is everything a whole stream produced, in a comparable form.
type result struct {
	Events   []refEvent
	Unknown  []string // "name=value" per unknown field, in order
	LastID   string
	Retry    time.Duration
	HasRetry bool
	Done     bool
	Err      string // "" for a clean end; see errKey
}

// errKey names an error's category. An EventSizeError's Size may depend on
// the read sizes (it is "at least Max+1"), so only the category and the limit
// are compared.
func errKey(err error) string {
	var se *EventSizeError
	switch {
	case err == nil, err == io.EOF:
		return ""
	case errors.As(err, &se):
		return fmt.Sprintf("too large (limit %d)", se.Max)
	default:
		return err.Error()
	}
}

// recorder returns an option that records unknown fields into res.
func recorder(res *result) Option {
	return WithUnknownField(func(name string, value []byte) error {
		res.Unknown = append(res.Unknown, name+"="+string(value))
		return nil
	})
}

// readAll drains a Reader over src, calling Next and NextRef in turn, so
// that every test of the Reader checks both. The recorder comes first so
// that a test's own WithUnknownField replaces it.
func readAll(src io.Reader, opts ...Option) result {
	var res result
	r := NewReader(src, append([]Option{recorder(&res)}, opts...)...)
	for i := 0; ; i++ {
		ev, err := nextEither(r, i%2 == 1)
		if err != nil {
			res.Err = errKey(err)
			if _, err2 := nextEither(r, i%2 == 0); err2 != err {
				res.Err += fmt.Sprintf(" (then a different error: %v)", err2)
			}
			break
		}
		res.Events = append(res.Events, refEvent{ev.Type, string(ev.Data), ev.ID})
	}
	res.LastID = r.LastEventID()
	res.Retry, res.HasRetry = r.Retry()
	res.Done = r.Done()
	return res
}

// nextEither calls r.Next, or r.NextRef when ref is set and checks that it
// returns an Event exactly when it returns no error.
func nextEither(r *Reader, ref bool) (Event, error) {
	if !ref {
		return r.Next()
	}
	ev, err := r.NextRef()
	if (ev == nil) != (err != nil) {
		return Event{}, fmt.Errorf("NextRef returned %v with error %v", ev, err)
	}
	if ev == nil {
		return Event{}, err
	}
	return *ev, nil
}

// feedAll pushes chunks into a Parser, then closes it.
func feedAll(chunks [][]byte, opts ...Option) result {
	var res result
	p := NewParser(append([]Option{recorder(&res)}, opts...)...)
	emit := func(ev Event) error {
		res.Events = append(res.Events, refEvent{ev.Type, string(ev.Data), ev.ID})
		return nil
	}
	var err error
	for _, c := range chunks {
		// The parser must not keep c: scribble over it once Feed returns.
		c = bytes.Clone(c)
		err = p.Feed(c, emit)
		for i := range c {
			c[i] = '#'
		}
		if err != nil {
			break
		}
	}
	cerr := p.Close()
	if err != io.EOF && !errors.Is(cerr, err) {
		res.Err = fmt.Sprintf("Close returned %v after Feed returned %v", cerr, err)
	} else {
		res.Err = errKey(err)
	}
	res.LastID = p.LastEventID()
	res.Retry, res.HasRetry = p.Retry()
	res.Done = p.Done()
	return res
}

// chunkReader returns its chunks one per Read, scribbling over the caller's
// buffer past what it returns, as a hostile reader may.
type chunkReader struct{ chunks [][]byte }

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	for i := n; i < len(p); i++ {
		p[i] = '!'
	}
	return n, nil
}

func splitAt(in []byte, offsets ...int) [][]byte {
	var out [][]byte
	prev := 0
	for _, o := range offsets {
		out = append(out, in[prev:o])
		prev = o
	}
	return append(out, in[prev:])
}

func oneByteChunks(in []byte) [][]byte {
	out := make([][]byte, len(in))
	for i := range in {
		out[i] = in[i : i+1]
	}
	return out
}

// parseEveryWay parses in whole, one byte at a time, through the iotest
// readers, split at every offset, and through the Parser the same ways;
// it fails t unless all agree, and returns the result.
func parseEveryWay(t *testing.T, in []byte, opts ...Option) result {
	t.Helper()
	want := readAll(bytes.NewReader(in), opts...)
	check := func(how string, got result) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s differs from one whole read (-whole +%s):\n%s", how, how, diff)
		}
	}
	check("OneByteReader", readAll(iotest.OneByteReader(bytes.NewReader(in)), opts...))
	check("HalfReader", readAll(iotest.HalfReader(bytes.NewReader(in)), opts...))
	check("DataErrReader", readAll(iotest.DataErrReader(bytes.NewReader(in)), opts...))
	check("Parser whole", feedAll([][]byte{in}, opts...))
	check("Parser 1-byte", feedAll(oneByteChunks(in), opts...))
	for i := 0; i <= len(in); i++ {
		check(fmt.Sprintf("reads split at %d", i), readAll(&chunkReader{splitAt(in, i)}, opts...))
		check(fmt.Sprintf("Parser split at %d", i), feedAll(splitAt(in, i), opts...))
	}
	return want
}
