package bench

// corpus.go: what every dialect's corpus is — the raw text/event-stream
// bytes of one recorded response, what an SSE parser must find in them, and
// the message a correct client must assemble from them.

import (
	"bytes"
	"fmt"
)

// Corpus is one generated response stream and what a correct reader must
// get out of it.
type Corpus struct {
	// Name is unique across dialects: it names the benchmark (corpus=Name).
	Name string
	// Dialect is the Name of the [Dialect] the stream is written in.
	Dialect string
	// About says in a line what the stream holds, for the report.
	About string
	// Data is the text/event-stream bytes.
	Data []byte

	// Events is the number of events an SSE parser dispatches, the chat
	// dialect's final "data: [DONE]" included.
	Events int
	// PayloadBytes is the sum of the events' data lengths.
	PayloadBytes int

	// Want is the message a client must assemble, byte for byte.
	Want Message
}

// Message is the assembled assistant message in the neutral form every
// peer's result is converted to before it is compared.
type Message struct {
	Role    string
	Content string
	// Reasoning is the reasoning text (Anthropic's thinking; the Responses
	// reasoning summary, its parts separated by a blank line).
	Reasoning string
	// Signature is the provider's opaque signature on the reasoning
	// (Anthropic's thinking signature, the Responses reasoning item's
	// encrypted_content), which the next request must carry back
	// unchanged.
	Signature    string
	FinishReason string
	ToolCalls    []ToolCall
}

// ToolCall is one complete tool call.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // the JSON text as the model produced it
}

// sseWriter frames payloads as SSE events and counts what a parser must
// find.
type sseWriter struct {
	buf     bytes.Buffer
	events  int
	payload int
	crlf    bool // end lines with "\r\n", as Gemini does, not "\n"
}

// event writes "event: name\n" (when name is not empty) and
// "data: payload\n\n", or the same with "\r\n" line ends.
func (w *sseWriter) event(name string, payload []byte) {
	nl := "\n"
	if w.crlf {
		nl = "\r\n"
	}
	if name != "" {
		w.buf.WriteString("event: ")
		w.buf.WriteString(name)
		w.buf.WriteString(nl)
	}
	w.buf.WriteString("data: ")
	w.buf.Write(payload)
	w.buf.WriteString(nl)
	w.buf.WriteString(nl)
	w.events++
	w.payload += len(payload)
}

func (w *sseWriter) corpus(name, dialect, about string, want Message) *Corpus {
	return &Corpus{Name: name, Dialect: dialect, About: about, Data: w.buf.Bytes(), Events: w.events, PayloadBytes: w.payload, Want: want}
}

// CheckMessage reports the first way m differs from the corpus's expected
// message, byte for byte, or nil.
func CheckMessage(c *Corpus, m Message) error {
	w := c.Want
	for _, f := range []struct{ what, got, want string }{
		{"role", m.Role, w.Role},
		{"finish reason", m.FinishReason, w.FinishReason},
		{"content", m.Content, w.Content},
		{"reasoning", m.Reasoning, w.Reasoning},
		{"signature", m.Signature, w.Signature},
	} {
		if f.got != f.want {
			return fmt.Errorf("%s: %s differs (%d bytes, want %d) at byte %d", c.Name, f.what, len(f.got), len(f.want), firstDiff(f.got, f.want))
		}
	}
	if len(m.ToolCalls) != len(w.ToolCalls) {
		return fmt.Errorf("%s: %d tool calls, want %d", c.Name, len(m.ToolCalls), len(w.ToolCalls))
	}
	for i, g := range m.ToolCalls {
		x := w.ToolCalls[i]
		if g.ID != x.ID || g.Name != x.Name {
			return fmt.Errorf("%s: tool call %d is %s %s, want %s %s", c.Name, i, g.ID, g.Name, x.ID, x.Name)
		}
		if g.Arguments != x.Arguments {
			return fmt.Errorf("%s: tool call %d arguments differ (%d bytes, want %d) at byte %d", c.Name, i, len(g.Arguments), len(x.Arguments), firstDiff(g.Arguments, x.Arguments))
		}
	}
	return nil
}

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
