package sse

import (
	"errors"
	"io"
	"testing"
)

// collect returns an emit func that records data, and the record.
func collect() (func(Event) error, *[]string) {
	var got []string
	return func(ev Event) error {
		got = append(got, string(ev.Data))
		return nil
	}, &got
}

func TestParserClose(t *testing.T) {
	emit, got := collect()
	p := NewParser()
	if err := p.Feed([]byte("id: 7\ndata: a\n\nretry: 30\ndata: unterminated\n"), emit); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close = %v, want nil", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close = %v, want nil", err)
	}
	if len(*got) != 1 || (*got)[0] != "a" {
		t.Errorf("events %q, want [a]: the unterminated event is discarded", *got)
	}
	if err := p.Feed([]byte("\n"), emit); !errors.Is(err, ErrClosed) {
		t.Errorf("Feed after Close = %v, want ErrClosed", err)
	}
	if len(*got) != 1 {
		t.Errorf("Feed after Close emitted %q", (*got)[1:])
	}
	if id := p.LastEventID(); id != "7" {
		t.Errorf("LastEventID() = %q after Close, want 7", id)
	}
	if d, ok := p.Retry(); d.Milliseconds() != 30 || !ok {
		t.Errorf("Retry() = %v, %v after Close; want 30ms, true", d, ok)
	}
}

func TestParserDone(t *testing.T) {
	emit, got := collect()
	p := NewParser()
	err := p.Feed([]byte("data: a\n\ndata: [DONE]\n\ndata: b\n\n"), emit)
	if err != io.EOF || !p.Done() {
		t.Fatalf("Feed = %v, Done = %v; want io.EOF, true", err, p.Done())
	}
	if err := p.Feed([]byte("data: c\n\n"), emit); err != io.EOF {
		t.Fatalf("Feed after done = %v, want io.EOF", err)
	}
	if len(*got) != 1 || (*got)[0] != "a" {
		t.Errorf("events %q, want [a]", *got)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close after done = %v, want nil", err)
	}
}

func TestParserEmitError(t *testing.T) {
	n := 0
	emit := func(ev Event) error {
		n++
		if string(ev.Data) == "stop" {
			return errBoom
		}
		return nil
	}
	p := NewParser()
	if err := p.Feed([]byte("data: a\n\ndata: stop\n\ndata: b\n\n"), emit); err != errBoom {
		t.Fatalf("Feed = %v, want emit's error unwrapped", err)
	}
	if err := p.Feed([]byte("data: c\n\n"), emit); err != errBoom {
		t.Fatalf("second Feed = %v, want the same error", err)
	}
	if n != 2 {
		t.Errorf("emit called %d times, want 2 (nothing after the error)", n)
	}
	if err := p.Close(); err != errBoom {
		t.Errorf("Close = %v, want emit's error", err)
	}
}

func TestParserNilEmit(t *testing.T) {
	p := NewParser()
	if err := p.Feed([]byte("id: 3\ndata: a\n\n"), nil); err != nil {
		t.Fatal(err)
	}
	if p.LastEventID() != "3" {
		t.Errorf("LastEventID() = %q, want 3", p.LastEventID())
	}
}

// TestParserSplitLineEnds names the split-CRLF cases the property tests
// also cover: a CR ending one chunk and an LF starting the next are one line
// end, and an empty chunk in between changes nothing.
func TestParserSplitLineEnds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"CR | LF", []string{"data: a\r", "\ndata: b\r\n\r\n"}, []string{"a\nb"}},
		{"CR | empty | LF", []string{"data: a\r", "", "\n\r", "\n"}, []string{"a"}},
		{"CR | CR", []string{"data: a\r", "\r"}, []string{"a"}},
		{"data CR | LF CR | LF", []string{"data: a\r", "\n\r", "\ndata: b\n\n"}, []string{"a", "b"}},
		{"BOM split", []string{"\xEF", "\xBB", "\xBFdata: a\n\n"}, []string{"a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			emit, got := collect()
			p := NewParser()
			for _, c := range tt.chunks {
				if err := p.Feed([]byte(c), emit); err != nil {
					t.Fatal(err)
				}
			}
			if len(*got) != len(tt.want) {
				t.Fatalf("events %q, want %q", *got, tt.want)
			}
			for i := range tt.want {
				if (*got)[i] != tt.want[i] {
					t.Fatalf("events %q, want %q", *got, tt.want)
				}
			}
		})
	}
}
