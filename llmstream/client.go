package llmstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
	"github.com/airlock-go/airlock/transport"
)

// DefaultBaseURL is the base URL a [Client] uses when none is set.
const DefaultBaseURL = "https://api.openai.com/v1"

// Doer sends one HTTP request: *transport.Client and *http.Client both are.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Client streams chat completions from an OpenAI-compatible server and
// returns each response as one materialized [Message]. It is safe for
// concurrent use; its configuration is fixed at construction.
//
// The zero Client is not usable: its calls return an error matching
// [ErrMisuse]. Make one with [NewClient].
type Client struct {
	cfg      config
	endpoint string
	err      error // a configuration error, returned by every call
}

// NewClient returns a Client. With no options it talks to [DefaultBaseURL]
// through a [transport.New] client with its defaults. A bad option value
// (an unparsable base URL) is not reported here but by every call, as an
// error matching [ErrInvalidRequest].
func NewClient(opts ...Option) *Client {
	c := &Client{cfg: newConfig(opts)}
	c.cfg.header = c.cfg.header.Clone()
	if c.cfg.httpClient == nil {
		c.cfg.httpClient = transport.New()
	}
	c.endpoint, c.err = endpoint(c.cfg.baseURL)
	return c
}

// endpoint normalizes a base URL to the chat-completions URL: trailing
// slashes are dropped, "/chat/completions" is appended unless present, and
// a URL with no path gets "/v1" first (Ollama, vLLM and llama.cpp serve
// the OpenAI API under /v1).
func endpoint(base string) (string, error) {
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: base URL %q is not an http or https URL", ErrInvalidRequest, redact.URL(base))
	}
	p := strings.TrimRight(u.EscapedPath(), "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
	case p == "":
		p = "/v1/chat/completions"
	default:
		p += "/chat/completions"
	}
	// Work on the escaped form so an escaped slash in a path stays one.
	if u.Path, err = url.PathUnescape(p); err != nil {
		return "", fmt.Errorf("%w: base URL %q has a bad path", ErrInvalidRequest, redact.URL(base))
	}
	u.RawPath = p
	return u.String(), nil
}

// Request is one chat-completions request. Zero fields are not sent.
type Request struct {
	// Model overrides the client's model for this request. With neither,
	// no "model" is sent (single-model servers such as llama.cpp accept
	// that).
	Model string
	// Messages is the conversation so far.
	Messages []Message
	// Tools are the tools the model may call; sent only when non-empty.
	Tools []Tool
	// ToolChoice is "auto", "none", "required", or an object naming a
	// function; sent as is.
	ToolChoice any
	// ParallelToolCalls allows or forbids several calls in one turn.
	ParallelToolCalls *bool
	// Temperature, TopP, MaxTokens, MaxCompletionTokens, Stop, Seed and
	// ReasoningEffort are the common sampling fields.
	Temperature         *float64
	TopP                *float64
	MaxTokens           *int
	MaxCompletionTokens *int
	Stop                []string
	Seed                *int64
	ReasoningEffort     string
	// Extra members are merged into the request object, for server-specific
	// parameters; they may not replace the members above.
	Extra map[string]any
}

type wireRequest struct {
	Model               string         `json:"model,omitempty"`
	Messages            []Message      `json:"messages"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	Tools               []Tool         `json:"tools,omitempty"`
	ToolChoice          any            `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool          `json:"parallel_tool_calls,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	TopP                *float64       `json:"top_p,omitempty"`
	MaxTokens           *int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int           `json:"max_completion_tokens,omitempty"`
	Stop                []string       `json:"stop,omitempty"`
	Seed                *int64         `json:"seed,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// body encodes the request JSON.
func (c *Client) body(r *Request) ([]byte, error) {
	w := wireRequest{
		Model: r.Model, Messages: r.Messages, Stream: true, Tools: r.Tools,
		ToolChoice: r.ToolChoice, ParallelToolCalls: r.ParallelToolCalls,
		Temperature: r.Temperature, TopP: r.TopP, MaxTokens: r.MaxTokens,
		MaxCompletionTokens: r.MaxCompletionTokens, Stop: r.Stop, Seed: r.Seed,
		ReasoningEffort: r.ReasoningEffort,
	}
	if w.Model == "" {
		w.Model = c.cfg.model
	}
	if w.Messages == nil {
		w.Messages = []Message{}
	}
	if !c.cfg.noUsage {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	b, err := json.Marshal(w)
	if err != nil || len(r.Extra) == 0 {
		return b, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	for k, v := range r.Extra {
		if _, taken := members[k]; taken || k == "model" || k == "stream" {
			return nil, fmt.Errorf("Request.Extra member %q would replace a request field", k)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("Request.Extra member %q: %w", k, err)
		}
		members[k] = raw
	}
	return json.Marshal(members)
}

// Stream sends the request and reads the streamed response into one
// message; see [Bridge.Message] for what the message holds and the errors.
//
// An HTTP error answer becomes an [*APIError] with the status and the
// provider's message when the body is a known error shape, else the
// [*transport.StatusError] itself. Transport failures (transport.ErrTimeout,
// transport.ErrStalled, ...) and context cancellation are in the chain of
// the error returned. A request that cannot be built is an error matching
// [ErrInvalidRequest], and nothing is sent. The response body is always
// closed.
func (c *Client) Stream(ctx context.Context, r Request) (Message, error) {
	return c.stream(ctx, &r, c.cfg.onDelta)
}

// Complete sends messages and tools and returns the assistant's message. It
// makes *Client an agentloop.Model.
func (c *Client) Complete(ctx context.Context, messages []Message, tools []Tool) (Message, error) {
	return c.stream(ctx, &Request{Messages: messages, Tools: tools}, c.cfg.onDelta)
}

// CompleteStream is [Client.Complete] with a callback for this call's
// deltas, used instead of the client's [WithOnDelta] (see it for the rules).
// It makes *Client an agentloop.StreamingModel.
func (c *Client) CompleteStream(ctx context.Context, messages []Message, tools []Tool, onDelta func(Delta) error) (Message, error) {
	return c.stream(ctx, &Request{Messages: messages, Tools: tools}, onDelta)
}

func (c *Client) stream(ctx context.Context, r *Request, onDelta func(Delta) error) (Message, error) {
	switch {
	case c.cfg.httpClient == nil:
		return Message{}, fmt.Errorf("%w: Client not made by NewClient", ErrMisuse)
	case c.err != nil:
		return Message{}, c.err
	}
	body, err := c.body(r)
	if err != nil {
		return Message{}, c.redact(fmt.Errorf("%w: %w", ErrInvalidRequest, err))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var idle *time.Timer
	if d := c.cfg.idleTimeout; d > 0 {
		// Started before the request: waiting for the headers counts too.
		idle = time.AfterFunc(d, func() { cancel(ErrIdleTimeout) })
		defer idle.Stop()
	}
	// The transport redacts what the request's headers show to be
	// credentials; the context tells it of the rest (every WithHeader value).
	req, err := http.NewRequestWithContext(redact.NewContext(ctx, c.cfg.secrets), http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return Message{}, c.redact(err)
	}
	for k, v := range c.cfg.header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if c.cfg.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.apiKey)
	}
	resp, err := c.cfg.httpClient.Do(req)
	if err != nil {
		return Message{}, c.mapError(ctx, err, false)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// A transport.Client never returns such an answer; another Doer does.
		return Message{}, c.mapError(ctx, transport.ReadStatusError(req, resp), false)
	}

	cfg := c.cfg
	cfg.onDelta = onDelta
	b := newBridge(cfg)
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt {
	case "text/event-stream":
	case "application/json":
		// The server ignored "stream": true and sent one whole completion.
		msg, err := b.whole(resp.Body, maxWholeBytes)
		if err != nil {
			return msg, c.mapError(ctx, err, true)
		}
		return msg, nil
	default:
		return Message{}, c.mapError(ctx, c.notStream(resp), false)
	}
	var after func()
	if idle != nil {
		after = func() {
			if b.progressed {
				idle.Reset(c.cfg.idleTimeout)
			}
		}
	}
	msg, err := b.consume(b.newReader(resp.Body), after)
	if err != nil {
		return msg, c.mapError(ctx, err, true)
	}
	return msg, nil
}

// notStream is the error for a 2xx answer that is neither an event stream
// nor a JSON completion, with the start of its body for a hint.
func (c *Client) notStream(resp *http.Response) error {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, redact.ExcerptBytes))
	return &ContentTypeError{
		StatusCode:  resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		URL:         redact.URL(c.endpoint),
		Excerpt:     redact.Excerpt(head, redact.ExcerptBytes, c.cfg.secrets),
	}
}

// mapError puts the idle timeout in front of the cancellation it caused
// (which, once the stream had begun, is an [ErrInterrupted]), turns an
// HTTP error body into an APIError, and keeps every credential the request
// carried out of the error, whatever Doer sent it.
func (c *Client) mapError(ctx context.Context, err error, streaming bool) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrIdleTimeout) {
		if !errors.Is(err, ErrIdleTimeout) {
			err = fmt.Errorf("%w (%w)", cause, err)
		}
		if streaming {
			err = interrupted(err) // the Bridge marked every other break
		}
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		se.Body = c.cfg.secrets.Bytes(se.Body) // a Doer of the caller's may have built it
		if e, ok := parseProviderError(se.Body, se.StatusCode); ok {
			e.Err = err
			err = e
		}
	}
	var api *APIError
	if errors.As(err, &api) {
		api.redact(c.cfg.secrets)
	}
	return c.redact(err)
}

// redact keeps the client's credentials out of err's text.
func (c *Client) redact(err error) error { return redact.Error(err, c.cfg.secrets) }
