package bench

// peers_sse.go: SSE-only peers. Each parses one whole stream into events
// and reports how many it dispatched and their data bytes (without the
// trailing "\n" some decoders keep), so both can be checked.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"net/http"

	"github.com/airlock-go/airlock/sse"
	anthssestream "github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	oaissestream "github.com/openai/openai-go/v3/packages/ssestream"
	goopenai "github.com/sashabaranov/go-openai"
)

// SSEPeers lists the SSE peers in report order; the first is the floor
// every report divides by.
var SSEPeers = []SSEPeer{
	{Name: "limit-indexbyte", About: "bytes.IndexByte('\\n') over the bytes, counting blank lines: the memory-bandwidth floor, no SSE parsing", Run: indexByteFloor},
	{Name: "bufio-scanner", About: "bufio.Scanner lines (16 MiB max), data lines joined; not conformant (no lone CR, no UTF-8 check)", Run: scanLines},
	{Name: "openai-go", About: "openai-go/v3 packages/ssestream Decoder on an in-memory *http.Response", Run: openAIGoSSE},
	{Name: "anthropic-go", About: "anthropic-sdk-go/v2 packages/ssestream Decoder on an in-memory *http.Response", Run: anthropicSSE},
	{Name: "go-openai-raw", About: "go-openai ChatCompletionStream.RecvRaw over an in-memory RoundTripper (chat streams only: it takes every non-data line for an error body)", Dialects: []string{"chat"}, Run: goOpenAIRaw},
	{Name: "airlock", About: "airlock sse.Reader (full WHATWG rules, UTF-8 checked; done sentinel off, 16 MiB limit)", Run: airlockSSE},
}

// indexByteFloor finds every line end with bytes.IndexByte and counts an
// event at each blank line: what reading the bytes once costs.
func indexByteFloor(data []byte) (SSEResult, error) {
	r := SSEResult{PayloadBytes: -1}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return r, nil
		}
		i += j + 1
		if i < len(data) && (data[i] == '\n' || (data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n')) {
			r.Events++
		}
	}
}

var dataPrefix = []byte("data:")

// sseData yields the data of each event sc reads: the values of its "data:"
// lines joined by "\n", at the blank line that ends it; other fields are
// skipped (the dialects' event names repeat their JSON's type) and an
// unterminated last event is dropped. The slice is reused: it is valid
// until the next one. When the loop ends, sc.Err() tells a read error from
// the end of the input. This is the SSE reader the hand-written pipeline
// baselines share; like [scanLines], it is not conformant (no lone CR, no
// UTF-8 check).
func sseData(sc *bufio.Scanner) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		var data []byte
		pending := false
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) > 0 {
				if v, ok := bytes.CutPrefix(line, dataPrefix); ok {
					v, _ = bytes.CutPrefix(v, []byte(" "))
					if pending {
						data = append(data, '\n')
					} else {
						data = data[:0]
					}
					data = append(data, v...)
					pending = true
				}
				continue
			}
			if pending {
				pending = false
				if !yield(data) {
					return
				}
			}
		}
	}
}

// scanLines is the SSE reader people write first: bufio.Scanner lines,
// data fields joined, an event at each blank line.
func scanLines(data []byte) (SSEResult, error) {
	var r SSEResult
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), BigBuf)
	pending, n := false, 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if pending {
				r.Events++
				r.PayloadBytes += n
				pending, n = false, 0
			}
			continue
		}
		if v, ok := bytes.CutPrefix(line, dataPrefix); ok {
			v, _ = bytes.CutPrefix(v, []byte(" "))
			if pending {
				n++ // the "\n" that joins data lines
			}
			n += len(v)
			pending = true
		}
	}
	return r, sc.Err()
}

// openAIGoSSE drives the decoder openai-go's NewStreaming wraps.
func openAIGoSSE(data []byte) (SSEResult, error) {
	var r SSEResult
	dec := oaissestream.NewDecoder(HTTPResponse(data))
	for dec.Next() {
		r.Events++
		r.PayloadBytes += len(dec.Event().Data) - 1 // it keeps a trailing "\n"
	}
	dec.Close()
	return r, dec.Err()
}

// anthropicSSE drives the decoder anthropic-sdk-go's NewStreaming wraps.
func anthropicSSE(data []byte) (SSEResult, error) {
	var r SSEResult
	dec := anthssestream.NewDecoder(HTTPResponse(data))
	for dec.Next() {
		r.Events++
		r.PayloadBytes += len(dec.Event().Data) - 1 // it keeps a trailing "\n"
	}
	dec.Close()
	return r, dec.Err()
}

// goOpenAIRaw reads the events' data with go-openai's stream reader,
// without decoding their JSON.
func goOpenAIRaw(data []byte) (SSEResult, error) {
	var r SSEResult
	client := newGoOpenAI(&http.Client{Transport: MemTransport{data}})
	stream, err := client.CreateChatCompletionStream(context.Background(), goOpenAIRequest("hello"))
	if err != nil {
		return r, err
	}
	defer stream.Close()
	for {
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) { // [DONE], consumed and reported as io.EOF
			r.Events++
			r.PayloadBytes += len("[DONE]")
			return r, nil
		}
		if err != nil {
			return r, err
		}
		r.Events++
		r.PayloadBytes += len(raw)
	}
}

func newGoOpenAI(hc goopenai.HTTPDoer) *goopenai.Client {
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = "http://in-memory.invalid/v1"
	cfg.HTTPClient = hc
	return goopenai.NewClientWithConfig(cfg)
}

func goOpenAIRequest(content string) goopenai.ChatCompletionRequest {
	return goopenai.ChatCompletionRequest{
		Model:         "gpt-4o",
		Messages:      []goopenai.ChatCompletionMessage{{Role: "user", Content: content}},
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
	}
}

// airlockSSE reads the events with airlock's pull reader.
func airlockSSE(data []byte) (SSEResult, error) {
	var r SSEResult
	rd := sse.NewReader(bytes.NewReader(data), sse.WithDoneSentinel(""), sse.WithMaxEventSize(BigBuf))
	for {
		// NextRef, the loop for a caller that handles every event: no
		// copy of the Event per call (llmstream reads this way too).
		ev, err := rd.NextRef()
		if errors.Is(err, io.EOF) {
			return r, nil
		}
		if err != nil {
			return r, err
		}
		r.Events++
		r.PayloadBytes += len(ev.Data)
	}
}
