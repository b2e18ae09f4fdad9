package sse

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writtenEvents is what a reader should get back from events written by a
// Writer: the same type ("message" when none), the ID in effect, and the
// data with every line end made LF.
func writtenEvents(evs []Event) []refEvent {
	var out []refEvent
	id := ""
	for _, ev := range evs {
		if ev.ID != "" {
			id = ev.ID
		}
		typ := ev.Type
		if typ == "" {
			typ = "message"
		}
		data := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(ev.Data))
		out = append(out, refEvent{Type: typ, Data: data, ID: id})
	}
	return out
}

// writeAll writes evs with comments between them and returns the bytes.
func writeAll(t testing.TB, evs []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i, ev := range evs {
		if err := w.WriteEvent(ev); err != nil {
			t.Fatalf("WriteEvent(%+v): %v", ev, err)
		}
		if i%2 == 0 {
			if err := w.WriteComment("keep-alive"); err != nil {
				t.Fatal(err)
			}
		}
	}
	return buf.Bytes()
}

// checkRoundTrip writes evs and reads them back with the Reader (every
// chunking) and the WHATWG reference parser.
func checkRoundTrip(t *testing.T, evs []Event) {
	t.Helper()
	in := writeAll(t, evs)
	want := writtenEvents(evs)
	got := parseEveryWay(t, in, WithDoneSentinel(""), WithMaxEventSize(len(in)+16))
	if diff := cmp.Diff(want, got.Events); diff != "" || got.Err != "" {
		t.Fatalf("%q: Reader read back (-written +read):\n%s err %q", in, diff, got.Err)
	}
	ref := refParse(in, "")
	if diff := cmp.Diff(want, ref.Events); diff != "" {
		t.Fatalf("%q: reference parser read back (-written +read):\n%s", in, diff)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		evs  []Event
	}{
		{"plain", []Event{{Data: []byte("hello")}}},
		{"empty data", []Event{{Data: nil}, {Data: []byte{}}}},
		{"typed with id", []Event{{Type: "delta", ID: "7", Data: []byte(`{"a":1}`)}}},
		{"id kept by a later event without one", []Event{{ID: "a", Data: []byte("1")}, {Data: []byte("2")}}},
		{"multi-line LF", []Event{{Data: []byte("a\nb\n\nc")}}},
		{"multi-line CRLF and CR", []Event{{Data: []byte("a\r\nb\rc\r")}}},
		{"trailing line end", []Event{{Data: []byte("a\n")}}},
		{"only line ends", []Event{{Data: []byte("\n\r\n\r")}}},
		{"leading spaces kept", []Event{{Type: " t", ID: " i", Data: []byte("  x")}}},
		{"colons", []Event{{Type: "a:b", ID: "c:d", Data: []byte("data: e")}}},
		{"non-ASCII", []Event{{Type: "ü", ID: "日本", Data: []byte("🙂 naïve")}}},
		{"BOM in data", []Event{{Data: []byte("\uFEFFx")}}},
		{"done sentinel as data", []Event{{Data: []byte("[DONE]")}}},
		{"NUL in data and type", []Event{{Type: "a\x00", Data: []byte("b\x00c")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRoundTrip(t, tt.evs) })
	}
}

// TestWriterRoundTripRandom writes random events from an alphabet rich in
// the bytes the format cares about.
func TestWriterRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", " ", ":", "\n", "\r", "\r\n", "é", "🙂", "\x00", "data", "id", "\uFEFF"}
	text := func(n int, lineBreaks, nul bool) string {
		var b strings.Builder
		for range rng.IntN(n) {
			s := alphabet[rng.IntN(len(alphabet))]
			if (!lineBreaks && strings.ContainsAny(s, "\r\n")) || (!nul && s == "\x00") {
				continue
			}
			b.WriteString(s)
		}
		return b.String()
	}
	for range 200 {
		var evs []Event
		for range 1 + rng.IntN(4) {
			evs = append(evs, Event{Type: text(4, false, true), ID: text(4, false, false), Data: []byte(text(12, true, true))})
		}
		checkRoundTrip(t, evs)
	}
}

func TestWriterBadInput(t *testing.T) {
	tests := []struct {
		name   string
		write  func(w *Writer) error
		field  string
		offset int
		reason string
	}{
		{"LF in id", func(w *Writer) error { return w.WriteEvent(Event{ID: "a\nb", Data: []byte("x")}) }, "id", 1, "line break"},
		{"CR in id", func(w *Writer) error { return w.WriteEvent(Event{ID: "\r", Data: []byte("x")}) }, "id", 0, "line break"},
		{"NUL in id", func(w *Writer) error { return w.WriteEvent(Event{ID: "ab\x00", Data: []byte("x")}) }, "id", 2, "NUL byte"},
		{"LF in event", func(w *Writer) error { return w.WriteEvent(Event{Type: "a\n", Data: []byte("x")}) }, "event", 1, "line break"},
		{"CR in event", func(w *Writer) error { return w.WriteEvent(Event{Type: "\ra", Data: []byte("x")}) }, "event", 0, "line break"},
		{"bad UTF-8 in id", func(w *Writer) error { return w.WriteEvent(Event{ID: "é\xff", Data: []byte("x")}) }, "id", 2, "invalid UTF-8"},
		{"bad UTF-8 in event", func(w *Writer) error { return w.WriteEvent(Event{Type: "\xc3", Data: []byte("x")}) }, "event", 0, "invalid UTF-8"},
		{"bad UTF-8 in data", func(w *Writer) error { return w.WriteEvent(Event{Data: []byte("ab\xed\xa0\x80")}) }, "data", 2, "invalid UTF-8"},
		{"LF in comment", func(w *Writer) error { return w.WriteComment("a\nb") }, "comment", 1, "line break"},
		{"bad UTF-8 in comment", func(w *Writer) error { return w.WriteComment("\x80") }, "comment", 0, "invalid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf)
			err := tt.write(w)
			var fe *FieldError
			if !errors.Is(err, ErrInvalidField) || !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError wrapping ErrInvalidField", err)
			}
			if fe.Field != tt.field || fe.Offset != tt.offset || fe.Reason != tt.reason {
				t.Fatalf("err = %+v, want field %q offset %d reason %q", fe, tt.field, tt.offset, tt.reason)
			}
			if buf.Len() != 0 {
				t.Fatalf("wrote %q for bad input", buf.Bytes())
			}
			// The Writer stays usable.
			if err := w.WriteEvent(Event{Data: []byte("ok")}); err != nil || buf.String() != "data: ok\n\n" {
				t.Fatalf("after bad input: %v, wrote %q", err, buf.Bytes())
			}
		})
	}
}

// TestWriterBytes pins the exact bytes, so a change of form is seen.
func TestWriterBytes(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteEvent(Event{ID: "1", Type: "t", Data: []byte("a\r\nb")}))
	must(w.WriteComment(""))
	must(w.WriteComment("ping"))
	must(w.WriteEvent(Event{}))
	want := "id: 1\nevent: t\ndata: a\ndata: b\n\n:\n: ping\ndata: \n\n"
	if buf.String() != want {
		t.Fatalf("wrote %q, want %q", buf.String(), want)
	}
}
