package bench

// hold_peers.go: the clients whose cost per held stream is measured — the
// net/http floor, the SDKs, and airlock — each verified on every stream.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"
)

// HoldFunc opens stream id, calls ready once (as soon as the stream's opening
// content has arrived), consumes the stream to its end and returns the
// assembled message. One HoldFunc is called from N goroutines at once.
type HoldFunc func(ctx context.Context, id string, ready func()) (Message, error)

// HoldPeer is a client that can stream a chat completion. New builds its
// client once for a server at baseURL (no trailing slash).
type HoldPeer struct {
	Name  string
	About string
	New   func(baseURL string) HoldFunc
}

// HoldPeers lists the held-stream peers in report order; the first is the
// floor cmd/streams subtracts.
var HoldPeers = []HoldPeer{
	{Name: "nethttp-floor", About: "not a chat client: the same POST with http.DefaultClient, the body read 512 bytes at a time and verified whole (FNV-64a): what net/http alone costs", New: HoldFloor},
	{Name: "go-openai", About: "go-openai CreateChatCompletionStream + Recv, accumulated by index (its default http.Client)", New: HoldGoOpenAI},
	{Name: "openai-go", About: "openai-go Chat.Completions.NewStreaming + ChatCompletionAccumulator (its default http.Client)", New: HoldOpenAIGo},
	{Name: "airlock", About: "airlock transport.New().Do + llmstream.ReadMessage (its own transport); ready when WithOnDelta has seen the opening text", New: HoldAirlock},
}

// readyAt calls fn once the accumulated content reaches n bytes.
type readyAt struct {
	n  int
	fn func()
}

func (r *readyAt) check(contentLen int) {
	if r.fn != nil && contentLen >= r.n {
		fn := r.fn
		r.fn = nil
		fn()
	}
}

// HoldRequest builds the POST that opens stream id (for the peers that send
// their own *http.Request).
func HoldRequest(ctx context.Context, baseURL, id string) (*http.Request, error) {
	body, err := json.Marshal(map[string]any{
		"model":    "gpt-4o",
		"stream":   true,
		"messages": []map[string]string{{"role": "user", "content": id}},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer sk-test")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	return req, nil
}

// HoldFloor is the net/http floor, not a chat client: the same request with
// http.DefaultClient, the body read 512 bytes at a time (the buffer escapes
// to the heap through the io.Reader call: 512 B per stream). It verifies the
// raw bytes instead of assembling a message: it counts events, hashes the
// whole body (FNV-64a) and compares it with the bytes the server must have
// sent for that many tick chunks.
func HoldFloor(baseURL string) HoldFunc {
	return func(ctx context.Context, id string, ready func()) (Message, error) {
		req, err := HoldRequest(ctx, baseURL, id)
		if err != nil {
			return Message{}, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return Message{}, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return Message{}, fmt.Errorf("status %s", resp.Status)
		}
		body := &readyReader{r: resp.Body, left: len(holdOpeningBytes(id)), fn: ready}
		var buf [512]byte
		h, size, events, prev := fnvOffset, 0, 0, byte(0)
		for {
			n, err := body.Read(buf[:])
			for _, c := range buf[:n] {
				h = (h ^ uint64(c)) * fnvPrime
				if c == '\n' && prev == '\n' {
					events++
				}
				prev = c
			}
			size += n
			if err == io.EOF {
				break
			}
			if err != nil {
				return Message{}, err
			}
		}
		ticks := events - 1 - len(holdOpening(id)) - 3 // role, opening, ticks, finish, usage, [DONE]
		if ticks < 0 {
			return Message{}, fmt.Errorf("%d events", events)
		}
		want := holdStreamBytes(id, ticks)
		wh := fnvOffset
		for _, c := range want {
			wh = (wh ^ uint64(c)) * fnvPrime
		}
		if wh != h || size != len(want) {
			return Message{}, fmt.Errorf("body differs from the expected %d bytes (%d ticks): got %d bytes", len(want), ticks, size)
		}
		return HoldWant(id, ticks), nil
	}
}

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// HoldOpenAIGo uses openai-go's streaming client with its default settings
// (http.DefaultClient) except retries, which are off.
func HoldOpenAIGo(baseURL string) HoldFunc {
	client := openai.NewClient(
		option.WithBaseURL(baseURL+"/v1/"),
		option.WithAPIKey("sk-test"),
		option.WithMaxRetries(0),
	)
	return func(ctx context.Context, id string, ready func()) (Message, error) {
		params := openai.ChatCompletionNewParams{
			Model:    "gpt-4o",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(id)},
		}
		r := readyAt{holdOpeningLen(id), ready}
		return openAIGoAccumulate(client.Chat.Completions.NewStreaming(ctx, params), r.check)
	}
}

// HoldGoOpenAI uses go-openai's streaming client (DefaultConfig: a zero
// http.Client, so http.DefaultTransport).
func HoldGoOpenAI(baseURL string) HoldFunc {
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = baseURL + "/v1"
	client := goopenai.NewClientWithConfig(cfg)
	return func(ctx context.Context, id string, ready func()) (Message, error) {
		req := goopenai.ChatCompletionRequest{
			Model:    "gpt-4o",
			Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: id}},
		}
		r := readyAt{holdOpeningLen(id), ready}
		return goOpenAIRecv(ctx, client, req, r.check)
	}
}

// HoldAirlock holds a stream with airlock's own transport and reader; the
// delta callback tells when the opening text is in.
func HoldAirlock(baseURL string) HoldFunc {
	t := transport.New()
	return func(ctx context.Context, id string, ready func()) (Message, error) {
		req, err := HoldRequest(ctx, baseURL, id)
		if err != nil {
			return Message{}, err
		}
		resp, err := t.Do(req)
		if err != nil {
			return Message{}, err
		}
		defer resp.Body.Close()
		r := readyAt{n: holdOpeningLen(id), fn: ready}
		text := 0
		return airlockRead(resp.Body, llmstream.DialectChat, llmstream.WithOnDelta(func(d llmstream.Delta) error {
			if d.Kind == llmstream.DeltaText {
				text += len(d.Text)
				r.check(text)
			}
			return nil
		}))
	}
}

// readyReader calls fn once left bytes have been read through it: the
// floor, which decodes nothing, is open when its opening bytes are in.
type readyReader struct {
	r    io.Reader
	left int
	fn   func()
}

func (h *readyReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if h.fn != nil {
		h.left -= n
		if h.left <= 0 {
			fn := h.fn
			h.fn = nil
			fn()
		}
	}
	return n, err
}
