package llmstream

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

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
			m, err := NewBridge().whole(bytes.NewReader(body(tc.size)), limit)
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
