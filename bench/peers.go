package bench

// peers.go: what a peer is, the check of an SSE peer's result, the
// in-memory HTTP response the SDKs decode, and airlock's message in the
// neutral form.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/airlock-go/airlock/llmstream"
)

// SSEPeer parses a whole stream held in memory into events, without
// decoding their JSON.
type SSEPeer struct {
	Name  string
	About string
	// Dialects are the dialects whose corpora the peer reads; nil means
	// every one (a generic SSE parser).
	Dialects []string
	Run      func(data []byte) (SSEResult, error)
}

// Reads reports whether the peer is measured on c.
func (p SSEPeer) Reads(c *Corpus) bool {
	return p.Dialects == nil || slices.Contains(p.Dialects, c.Dialect)
}

// SSEResult is what an SSE peer found: the events it dispatched and the
// sum of their data lengths (-1 when the peer does not look at data).
type SSEResult struct {
	Events       int
	PayloadBytes int
}

// CheckSSE reports how r differs from what c holds, or nil.
func CheckSSE(c *Corpus, r SSEResult) error {
	if r.Events != c.Events {
		return fmt.Errorf("%s: %d events, want %d", c.Name, r.Events, c.Events)
	}
	if r.PayloadBytes >= 0 && r.PayloadBytes != c.PayloadBytes {
		return fmt.Errorf("%s: %d bytes of data, want %d", c.Name, r.PayloadBytes, c.PayloadBytes)
	}
	return nil
}

// PipelinePeer decodes a whole stream into one assembled message: SSE,
// the JSON of every event, and the accumulation.
type PipelinePeer struct {
	Name  string
	About string
	// New prepares the peer for one corpus (a client, say) and returns
	// what decodes it once; the benchmark times only that.
	New func(data []byte) func() (Message, error)
}

// each makes a PipelinePeer's New for a peer that needs no preparation.
func each(decode func(data []byte) (Message, error)) func([]byte) func() (Message, error) {
	return func(data []byte) func() (Message, error) {
		return func() (Message, error) { return decode(data) }
	}
}

// BigBuf is the event or line size limit given to the peers that take one:
// above every corpus's largest event, so that no peer fails on a limit.
const BigBuf = 16 << 20

// HTTPResponse is data as the streaming *http.Response an SDK decodes.
func HTTPResponse(data []byte) *http.Response {
	h := http.Header{}
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(data)),
		ContentLength: -1,
	}
}

// MemTransport is an http.RoundTripper that answers every request with
// Data, for the clients that take only an HTTP client.
type MemTransport struct{ Data []byte }

// RoundTrip drains the request body and answers with Data.
func (m MemTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	resp := HTTPResponse(m.Data)
	resp.Request = req
	return resp, nil
}

// airlockRead decodes r with llmstream.ReadMessage in dialect d.
func airlockRead(r io.Reader, d llmstream.Dialect, opts ...llmstream.BridgeOption) (Message, error) {
	m, err := llmstream.ReadMessage(r, append(opts, llmstream.WithDialect(d))...)
	if err != nil {
		return Message{}, err
	}
	return fromAirlock(m)
}

// fromAirlock is m in the neutral form, the signature taken from the
// blocks kept in its continuity state: a thinking block's signature
// (Anthropic), a reasoning item's encrypted_content (Responses), a part's
// thoughtSignature (Gemini, on any block).
func fromAirlock(m llmstream.Message) (Message, error) {
	out := Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, FinishReason: m.FinishReason}
	if len(m.ToolCalls) > 0 {
		out.ToolCalls = make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			out.ToolCalls[i] = ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		}
	}
	if m.Continuity != nil {
		for _, b := range m.Continuity.Blocks {
			if b.Signature != "" {
				out.Signature += b.Signature
				continue
			}
			if b.Type != "thinking" && b.Type != "reasoning" {
				continue
			}
			var t struct {
				Signature        string `json:"signature"`
				EncryptedContent string `json:"encrypted_content"`
			}
			if err := json.Unmarshal(b.Raw, &t); err != nil {
				return Message{}, fmt.Errorf("airlock: %s block %s: %w", b.Type, b.Raw, err)
			}
			out.Signature += t.Signature + t.EncryptedContent
		}
	}
	return out, nil
}
