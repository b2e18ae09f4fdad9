package llmstream

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/internal/jsonscan"
	"github.com/airlock-go/airlock/sse"
)

// chunkOfSize is one text event whose "data: " line is exactly n bytes.
func chunkOfSize(t *testing.T, n int) []byte {
	t.Helper()
	head, tail := `data: {"choices":[{"index":0,"delta":{"content":"`, `"},"finish_reason":"stop"}]}`
	pad := n - len(head) - len(tail)
	if pad < 0 {
		t.Fatalf("size %d too small", n)
	}
	return []byte(head + strings.Repeat("x", pad) + tail + "\n\n")
}

// The bridge reads events of up to DefaultMaxEventSize bytes (the pending
// line, as the sse package counts it): at the limit, one below, one above.
func TestDefaultMaxEventSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		tooBig bool
	}{
		{"one below", DefaultMaxEventSize - 1, false},
		{"at", DefaultMaxEventSize, false},
		{"one above", DefaultMaxEventSize + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMessage(bytes.NewReader(chunkOfSize(t, tc.size)))
			if got := errors.Is(err, sse.ErrEventTooLarge); got != tc.tooBig {
				t.Fatalf("err = %v, want too large: %v", err, tc.tooBig)
			}
			if !tc.tooBig && len(m.Content) != tc.size-len(`data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}`) {
				t.Errorf("content of %d bytes", len(m.Content))
			}
		})
	}
}

// A whole JSON completion may be as long as the limit (maxWholeBytes in
// production; a small one here): at the limit, one below, one above.
func TestWholeCompletionSize(t *testing.T) {
	head, tail := `{"choices":[{"index":0,"message":{"role":"assistant","content":"`, `"},"finish_reason":"stop"}]}`
	body := func(n int) []byte {
		return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
	}
	const limit = 4096
	for _, tc := range []struct {
		name   string
		size   int
		tooBig bool
	}{
		{"one below", limit - 1, false},
		{"at", limit, false},
		{"one above", limit + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBridge()
			chatProtocol{}.readWhole(sink{b}, bytes.NewReader(body(tc.size)), limit)
			m, err := b.Message()
			if got := errors.Is(err, sse.ErrEventTooLarge); got != tc.tooBig {
				t.Fatalf("err = %v, want too large: %v", err, tc.tooBig)
			}
			if !tc.tooBig && len(m.Content) != tc.size-len(head)-len(tail) {
				t.Errorf("content of %d bytes", len(m.Content))
			}
		})
	}
}

// A whole call in one event (Gemini, Ollama, vLLM) may carry up to
// toolcall's 1 MiB of arguments: the bridge's SSE limit must let it through.
func TestWholeLargeCallInOneEvent(t *testing.T) {
	args := `{"text":"` + strings.Repeat("x", 1<<20-11) + `"}`
	body := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c","type":"function","function":{"name":"write","arguments":` + fmt.Sprintf("%q", args) + `}}]},"finish_reason":"stop"}]}` + "\n\n"
	m, err := ReadMessage(strings.NewReader(body))
	if err != nil || len(m.ToolCalls) != 1 || len(m.ToolCalls[0].Function.Arguments) != 1<<20 {
		t.Fatalf("err = %v, %d calls", err, len(m.ToolCalls))
	}
}

// The decoder accepts JSON nested jsonscan.MaxDepth deep, as encoding/json does,
// wherever the nesting sits: at the limit, one below, one above. Past it the
// event is an EventError for errDepth and nothing of it is applied.
func TestMaxJSONDepth(t *testing.T) {
	paths := []struct {
		name, head, tail string
		containers       int // objects and arrays open in head
	}{
		{"ignored member", `{"x":`, `}`, 1},
		{"content part", `{"choices":[{"index":0,"delta":{"content":[{"text":"late","x":`, `}]}}]}`, 6},
		{"tool call extra", `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"},"x":`, `}]}}]}`, 6},
	}
	for _, p := range paths {
		for _, tc := range []struct {
			name  string
			depth int
			bad   bool
		}{
			{"one below", jsonscan.MaxDepth - 1, false},
			{"at", jsonscan.MaxDepth, false},
			{"one above", jsonscan.MaxDepth + 1, true},
		} {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				n := tc.depth - p.containers
				data := p.head + strings.Repeat("[", n) + strings.Repeat("]", n) + p.tail
				b := NewBridge()
				if err := b.Handle(sse.Event{Data: []byte(content("early"))}); err != nil {
					t.Fatal(err)
				}
				err := b.Handle(sse.Event{Data: []byte(data)})
				if got := errors.Is(err, ErrBadEvent) && errors.Is(err, jsonscan.ErrDepth); got != tc.bad {
					t.Fatalf("err = %.200v, want a depth error: %v", err, tc.bad)
				}
				if !tc.bad {
					return
				}
				var ee *EventError
				if !errors.As(err, &ee) || len(ee.Data) != len(data) {
					t.Errorf("err = %.200v, want an EventError with the whole data", err)
				}
				m, _ := b.Message()
				if m.Content != "early" || len(m.ToolCalls) != 0 {
					t.Errorf("content %q, %d calls; the bad event was applied", m.Content, len(m.ToolCalls))
				}
			})
		}
	}
}

// EventError prints at most maxErrorExcerpt bytes of the data, cut before a
// rune that would not fit whole: at the limit, one below, one above.
func TestEventErrorExcerpt(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want string // the excerpt at the end of the text
	}{
		{"one below", strings.Repeat("a", maxErrorExcerpt-1), strings.Repeat("a", maxErrorExcerpt-1)},
		{"at", strings.Repeat("a", maxErrorExcerpt), strings.Repeat("a", maxErrorExcerpt)},
		{"one above", strings.Repeat("a", maxErrorExcerpt+1), strings.Repeat("a", maxErrorExcerpt) + "…"},
		{"a rune across the limit", strings.Repeat("a", maxErrorExcerpt-1) + "é", strings.Repeat("a", maxErrorExcerpt-1) + "…"},
		{"a line end and an escape", `a\n` + "\n\x1b[2J", `a\n [2J`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&EventError{Data: []byte(tc.data), Err: jsonscan.ErrSyntax}).Error()
			if !strings.HasSuffix(got, ": "+tc.want) {
				t.Errorf("Error() = %q, want it to end with %q", got, tc.want)
			}
		})
	}
}
