package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/toolcall"
)

// partialAnswer is a structured answer of about size bytes: a plan of
// steps, each an object of a few members.
func partialAnswer(size int) string {
	var b strings.Builder
	b.WriteString(`{"goal":"ship the release","steps":[`)
	for i := 0; b.Len() < size-64; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"title":"step %d: write and test the part","done":%t,"cost":%d.5,"tags":["a","b"]}`, i, i%2 == 0, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// deltas cuts text into n pieces of (nearly) equal size.
func deltas(text string, n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, text[i*len(text)/n:(i+1)*len(text)/n])
	}
	return out
}

// peerPartial is the peers' way (Vercel's partialOutputStream with
// parsePartialJson, genkit's GenerateDataStream): on every delta, repair
// the whole buffer into JSON and parse it all again with encoding/json.
// The repair here is toolcall's closing pass, one scan of the buffer, as
// Vercel's fixJson is.
func peerPartial(pieces []string) (int, error) {
	var buf []byte
	var closed []byte
	parses := 0
	for _, p := range pieces {
		buf = append(buf, p...)
		closed = toolcall.Preview{Partial: buf}.AppendClosed(closed[:0])
		if len(closed) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(closed, &v); err != nil {
			return parses, err
		}
		parses++
	}
	return parses, nil
}

// airlockPartial is airlock's way: each byte scanned once, each member
// reported as it completes.
func airlockPartial(pieces []string) (int, error) {
	events := 0
	m := toolcall.NewMembers(func(toolcall.Member) error { events++; return nil }, toolcall.WithMaxArgumentBytes(-1))
	for _, p := range pieces {
		if _, err := m.Write([]byte(p)); err != nil {
			return events, err
		}
	}
	return events, m.End()
}

// BenchmarkPartialOutput: partial structured output of a 100 KB and a
// 1 MB answer, at n and 10n deltas, the peers' re-parse on every delta
// against airlock's member events. Each iteration checks the work done.
func BenchmarkPartialOutput(b *testing.B) {
	for _, tc := range []struct {
		size, n int
		peer    bool
	}{
		{100 << 10, 1000, true}, {100 << 10, 10000, true},
		{1 << 20, 1000, false}, {1 << 20, 10000, false},
	} {
		text := partialAnswer(tc.size)
		pieces := deltas(text, tc.n)
		name := fmt.Sprintf("size=%dKB/deltas=%d", tc.size>>10, tc.n)
		b.Run(name+"/way=airlock", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if n, err := airlockPartial(pieces); err != nil || n == 0 {
					b.Fatal(n, err)
				}
			}
		})
		b.Run(name+"/way=parse-once", func(b *testing.B) {
			// The yardstick: one encoding/json parse of the whole answer.
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				var v any
				if err := json.Unmarshal([]byte(text), &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		if !tc.peer {
			continue // the peers' way takes minutes per answer here
		}
		b.Run(name+"/way=reparse", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if n, err := peerPartial(pieces); err != nil || n < tc.n/2 {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// TestPartialWaysAgree: both ways read the whole answer; airlock's last
// event is the answer itself.
func TestPartialWaysAgree(t *testing.T) {
	text := partialAnswer(10 << 10)
	pieces := deltas(text, 100)
	if n, err := peerPartial(pieces); err != nil || n != 100 {
		t.Fatalf("reparse: %d, %v", n, err)
	}
	var last string
	m := toolcall.NewMembers(func(e toolcall.Member) error { last = string(e.Path) + "=" + string(e.Value); return nil })
	for _, p := range pieces {
		if _, err := m.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.End(); err != nil || last != "$="+text {
		t.Fatalf("airlock: %v, last event %.40q", err, last)
	}
}
