package sse

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestReviewWriterAnyBytes writes events of random bytes, invalid UTF-8
// and NUL and line ends included: each either reads back exactly (every
// chunking, and the reference parser) or is refused with a FieldError
// whose offset is an offending byte of the named field, nothing written.
func TestReviewWriterAnyBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"a", " ", ":", "\n", "\r", "\x00", "\xff", "\xc3", "\xa9", "é", "\U0001F600", "\xed\xa0\x80", "\uFEFF", "id: ", "data:"}
	text := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	refused, written := 0, 0
	for range 3000 {
		ev := Event{Type: text(3), ID: text(3), Data: []byte(text(6))}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		err := w.WriteEvent(ev)
		var fe *FieldError
		if err != nil {
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidField) || buf.Len() != 0 {
				t.Fatalf("%+q: err %v, wrote %q", ev, err, buf.Bytes())
			}
			s := map[string]string{"id": ev.ID, "event": ev.Type, "data": string(ev.Data)}[fe.Field]
			if fe.Offset < 0 || fe.Offset >= len(s) {
				t.Fatalf("%+q: offset %d out of %s", ev, fe.Offset, fe.Field)
			}
			c := s[fe.Offset]
			bad := c == '\r' || c == '\n' || c == 0 && fe.Field == "id" || !utf8.ValidString(s[fe.Offset:min(len(s), fe.Offset+4)]) || !utf8.ValidString(s[:fe.Offset+1])
			if !bad || !utf8.ValidString(s[:fe.Offset]) && fe.Reason == "invalid UTF-8" {
				t.Fatalf("%+q: %v names a byte that is not the first offending one", ev, err)
			}
			refused++
			continue
		}
		written++
		checkRoundTrip(t, []Event{ev})
	}
	if refused == 0 || written == 0 {
		t.Fatalf("%d refused, %d written: the alphabet misses a side", refused, written)
	}
}

// TestReviewWriterAllocsResponseWriter: no allocation per event through
// an http.ResponseWriter either (its flush goes through a
// ResponseController).
func TestReviewWriterAllocsResponseWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	w := NewWriter(rec)
	ev := Event{ID: "1", Type: "t", Data: []byte("a\nb\r\nc")}
	if err := w.WriteEvent(ev); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		rec.Body.Reset()
		_ = w.WriteEvent(ev)
		_ = w.WriteComment("")
	}); n != 0 {
		t.Fatalf("%v allocations per event", n)
	}
}
