package llmstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
	"github.com/airlock-go/airlock/transport"
)

// DefaultBaseURL is the base URL a chat [Client] uses when none is set.
// The other dialects have their own: [DefaultAnthropicBaseURL],
// [DefaultResponsesBaseURL], [DefaultGeminiBaseURL], and
// [DefaultBedrockBaseURL] (us-east-1; [BedrockBaseURL] gives another
// region's); [WithVertex] makes Vertex AI's from its location.
const DefaultBaseURL = "https://api.openai.com/v1"

// Doer sends one HTTP request: *transport.Client and *http.Client both are.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Client streams responses from a model server in its [Dialect] and
// returns each as one materialized [Message]. It is safe for concurrent
// use; its configuration is fixed at construction.
//
// The zero Client is not usable: its calls return an error matching
// [ErrMisuse]. Make one with [NewClient].
type Client struct {
	// cfg holds the credentials; behind a pointer, so that %v, %+v and
	// %#v print a Client in an unexported field, where fmt cannot call
	// String, as an address and not the key.
	cfg   *config
	proto protocol
	base  *url.URL // normalized: no trailing slash, the dialect's version path
	err   error    // a configuration error, returned by every call
}

// String describes the client for a log without its credentials: the
// dialect, the base URL redacted and the default model, e.g.
// `llmstream.Client(chat https://api.openai.com/v1 model="gpt-4o")`. It
// and GoString have value receivers so that a Client printed in any verb,
// by pointer, by value or as an exported field, never shows its key or
// headers. fmt cannot call them for an unexported field: there %v, %+v
// and %#v show only addresses, while a verb that does not fit a struct
// (%s, %d) makes fmt print the fields behind them, key included.
func (c Client) String() string {
	if c.cfg == nil {
		return "llmstream.Client(zero)"
	}
	base := ""
	if c.base != nil {
		base = redact.URL(c.base.String())
	}
	return fmt.Sprintf("llmstream.Client(%v %s model=%q)", c.cfg.dialect, base, c.cfg.model)
}

// GoString is String, for the %#v verb.
func (c Client) GoString() string { return c.String() }

// Dialect is the dialect the Client speaks ([DialectChat] when none was
// set); 0 for a zero Client.
func (c *Client) Dialect() Dialect {
	if c.cfg == nil {
		return 0
	}
	return c.cfg.dialect.normal()
}

// Model is the model a request that names none goes to ([WithModel]);
// "" when none was set.
func (c *Client) Model() string {
	if c.cfg == nil {
		return ""
	}
	return c.cfg.model
}

// BaseURL is the base URL the Client sends to, normalized (the dialect's
// or Vertex's default when none was set, no trailing slash, the version
// path added to a URL with none), cleaned so that it may be logged or
// recorded: user information and fragment dropped, and "REDACTED" in
// place of the value of a query parameter named like a credential ("key",
// "token", "sig", ...) and of every credential the Client carries (its
// key, header values, [WithSecrets] values) wherever it appears. ""
// when the Client cannot send (a zero Client, an unusable base URL).
func (c *Client) BaseURL() string {
	if c.cfg == nil || c.base == nil {
		return ""
	}
	return c.cfg.secrets.String(redact.URL(c.base.String()))
}

// ProviderName is the name the OpenTelemetry GenAI conventions give the
// provider the Client talks to (gen_ai.provider.name): "openai" for the
// chat and Responses dialects, "anthropic", "gcp.gemini", "aws.bedrock",
// and "gcp.vertex_ai" for either dialect at Vertex AI ([WithVertex]). A
// chat server that is not OpenAI's still says "openai": the Client knows
// the API, not who serves it. "" for a zero Client, an unknown dialect,
// or a Vertex AI setting that fails.
func (c *Client) ProviderName() string {
	if c.proto == nil {
		return ""
	}
	return c.proto.providerName()
}

// errZeroClient is what every call of a Client not made by NewClient returns.
var errZeroClient = fmt.Errorf("%w: Client not made by NewClient", ErrMisuse)

// NewClient returns a Client. With no options it speaks [DialectChat] to
// [DefaultBaseURL] through a [transport.New] client with its defaults. A
// bad option value (an unparsable base URL, an unknown dialect, defaults
// with messages, a bad sse option) is not reported here but by every call,
// before anything is sent, as an [*OptionError] (errors.Is
// [ErrInvalidOption]).
func NewClient(opts ...ClientOption) *Client {
	cfg := newClientConfig(opts)
	c := &Client{cfg: &cfg}
	c.cfg.header = c.cfg.header.Clone()
	if c.cfg.httpClient == nil {
		c.cfg.httpClient = transport.New(transport.WithLogger(c.cfg.logger))
	}
	switch {
	case c.cfg.dialect >= dialectEnd:
		c.err = unknownDialect(c.cfg.dialect)
		return c
	case c.cfg.defaults != nil && (c.cfg.defaults.Messages != nil || c.cfg.defaults.OnDelta != nil):
		c.err = &OptionError{Option: requestDefaultsOption{}.String(), Reason: "defaults with Messages or OnDelta", legacy: ErrInvalidRequest}
		return c
	}
	if c.err = c.cfg.checkSSEOptions(); c.err != nil {
		return c
	}
	c.proto = c.cfg.dialect.protocol()
	if v := c.cfg.vertex; v != nil {
		if c.proto, c.err = v.protocol(c.cfg.dialect, c.proto); c.err != nil {
			return c
		}
	}
	c.base, c.err = normalizeBase(c.cfg.baseURL, c.proto)
	return c
}

// normalizeBase parses a base URL: trailing slashes are dropped, and a URL
// with no path gets the dialect's version path (Ollama, vLLM and
// llama.cpp serve the OpenAI API under /v1).
func normalizeBase(base string, p protocol) (*url.URL, error) {
	if base == "" {
		base = p.defaultBase()
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &OptionError{Option: baseURLOption(base).String(), Reason: "not an http or https URL", legacy: ErrInvalidRequest}
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if path == "" {
		path = p.emptyPath()
	}
	if err := setPath(u, path); err != nil {
		return nil, &OptionError{Option: baseURLOption(base).String(), Reason: "a bad path", legacy: ErrInvalidRequest}
	}
	return u, nil
}

// setPath sets u's path from its escaped form, so that an escaped slash in
// a path stays one.
func setPath(u *url.URL, escaped string) error {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = p, escaped
	return nil
}

// withSuffix returns base with suffix appended to its path unless the path
// already ends with it.
func withSuffix(base *url.URL, suffix string) string {
	u := *base
	if p := u.EscapedPath(); !strings.HasSuffix(p, suffix) {
		setPath(&u, p+suffix) // the suffixes need no escaping
	}
	return u.String()
}

// Stream sends the request and reads the streamed response into one
// message; see [Bridge.Message] for what the message holds and the errors.
// The request's unset fields come from [WithRequestDefaults]; its deltas
// go to r.OnDelta, else to the client's [WithOnDelta].
//
// An HTTP error answer becomes an [*APIError] with the status and the
// provider's message when the body is a known error shape, else the
// [*transport.StatusError] itself. A 2xx answer that is not an event
// stream is a [*ContentTypeError]. Transport failures (transport.ErrTimeout,
// transport.ErrStalled, ...) and context cancellation are in the chain of
// the error returned; a stream that broke once it had begun also matches
// [ErrInterrupted]. A request that cannot be built is an error matching
// [ErrInvalidRequest], and nothing is sent. The response body is always
// closed.
func (c *Client) Stream(ctx context.Context, r Request) (Message, error) {
	return c.stream(ctx, &r)
}

func (c *Client) stream(ctx context.Context, r *Request) (Message, error) {
	if c.cfg == nil {
		return Message{}, errZeroClient
	}
	c.resolve(r)
	asTool, err := c.outputAsTool(r)
	if err != nil {
		return Message{}, err
	}
	var msg Message
	if l := c.cfg.logger; l != nil && l.Enabled(ctx, slog.LevelDebug) {
		msg, err = c.sendLogged(ctx, l, r)
	} else {
		msg, _, err = c.send(ctx, r)
	}
	if asTool != "" {
		outputAnswer(asTool, &msg)
	}
	return msg, err
}

// outputAsTool checks r's Output and, for [OutputSchema.AsTool], rewrites
// r to carry it as a forced tool call whose argument deltas reach OnDelta
// as text; it returns that tool's name, "" when there is none.
func (c *Client) outputAsTool(r *Request) (string, error) {
	if r.Output == nil {
		return "", nil
	}
	if err := r.Output.check(r); err != nil || !r.Output.AsTool {
		return "", err
	}
	name := r.Output.name()
	outputTool(r)
	r.OnDelta = outputDeltas(name, r.OnDelta)
	return name, nil
}

// resolve fills r's unset fields from the client's defaults, OnDelta from
// [WithOnDelta], once, so that what is logged is what is sent. r is the caller's copy (Stream's
// argument) or a Request made for the call: it may be written. Its own
// frame holds the copy withDefaults makes, which a held stream's stack
// under stream would otherwise keep.
//
//go:noinline
func (c *Client) resolve(r *Request) {
	*r = r.withDefaults(c.cfg.defaults, c.cfg.model)
	if r.OnDelta == nil {
		r.OnDelta = c.cfg.onDelta
	}
}

// sendLogged is send with its end logged.
//
//go:noinline
func (c *Client) sendLogged(ctx context.Context, l *slog.Logger, r *Request) (Message, error) {
	start := time.Now()
	msg, events, err := c.send(ctx, r)
	c.logEnd(ctx, l, r, start, msg, events, err)
	return msg, err
}

// logEnd logs one request at its end.
func (c *Client) logEnd(ctx context.Context, l *slog.Logger, r *Request, start time.Time, m Message, events int, err error) {
	attrs := []slog.Attr{slog.String("dialect", c.cfg.dialect.String()), slog.String("model", r.Model),
		slog.Duration("elapsed", time.Since(start)), slog.Int("events", events)}
	if c.base != nil {
		attrs = append(attrs, slog.String("base_url", redact.URL(c.base.String())))
	}
	if m.StopReason != 0 {
		attrs = append(attrs, slog.String("stop", m.StopReason.String()))
	}
	if u := m.Usage; u != nil {
		attrs = append(attrs, slog.Int("prompt_tokens", u.PromptTokens), slog.Int("completion_tokens", u.CompletionTokens))
	}
	attrs = append(attrs, slog.Int("tool_calls", len(m.ToolCalls)))
	if err != nil {
		attrs = append(attrs, slog.String("err", err.Error())) // already redacted
	}
	l.LogAttrs(ctx, slog.LevelDebug, "llmstream: response", attrs...)
}

// send makes one request and reads its answer; it also says how many
// events it read. A held stream spends its life parked in the read loop
// under send, so what send keeps on the stack is small; the request's
// building and the HTTP exchange are in open, whose frame is gone by then.
func (c *Client) send(ctx context.Context, r *Request) (Message, int, error) {
	switch {
	case c.cfg.httpClient == nil:
		return Message{}, 0, errZeroClient
	case c.err != nil:
		return Message{}, 0, c.err
	}
	var idle *time.Timer
	if d := c.cfg.idleTimeout; d > 0 {
		// A context of our own only for the idle timeout: a held stream
		// pays for every derived context (its Done channel, its children).
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		// Started before the request: waiting for the headers counts too.
		idle = time.AfterFunc(d, func() { cancel(ErrIdleTimeout) })
		defer idle.Stop()
	}
	b, body, err := c.open(ctx, r)
	if err != nil {
		return Message{}, 0, err
	}
	defer body.Close()
	if b.msg == nil { // a stream, not a whole completion
		// Between events: the idle timer, and the context, so that a
		// stream of events that cost much to decode (or a body that does
		// not watch the context) ends at the deadline.
		after := func() {
			if idle != nil && b.progressed {
				idle.Reset(c.cfg.idleTimeout)
			}
			if err := ctx.Err(); err != nil {
				b.fail(interrupted(context.Cause(ctx)))
			}
		}
		b.run(b.newReader(body), after)
	}
	msg, err := b.Message()
	if err != nil {
		return msg, b.events, c.mapError(ctx, err, true, c.cfg.secrets)
	}
	return msg, b.events, nil
}

// open sends r, its defaults already applied, and checks the answer's
// headers. It returns the Bridge for the answer and the body to read it
// from, which the caller closes; when the server ignored "stream": true
// and sent one whole JSON completion, the Bridge holds it already. Its
// error is final (mapped, redacted), and then nothing is left open.
//
//go:noinline
func (c *Client) open(ctx context.Context, r *Request) (*Bridge, io.ReadCloser, error) {
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return nil, nil, redact.Error(err, c.cfg.secrets)
	}
	resp, err := c.cfg.httpClient.Do(req)
	if err != nil {
		return nil, nil, c.mapError(ctx, err, false, c.cfg.secrets)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// A transport.Client never returns such an answer; another Doer does.
		sent := sentRequest(req, resp)
		err := transport.ReadStatusError(sent, resp)
		resp.Body.Close()
		// The secrets of the request as sent too: a token the Doer added.
		return nil, nil, c.mapError(ctx, err, false, c.cfg.secrets.With(redact.FromRequest(sent)))
	}
	b := &Bridge{cfg: c.cfg, onDelta: r.OnDelta}
	b.requested = r.Model // the message's model when the stream names none
	wr, whole := c.proto.(wholeReader)
	stream := "text/event-stream"
	if f, ok := c.proto.(framedProtocol); ok {
		stream = f.mediaType()
	}
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); {
	case mt == stream:
	case mt == "application/json" && whole:
		wr.readWhole(sink{b}, resp.Body, maxWholeBytes)
		b.events = 1
	default:
		secrets := c.cfg.secrets.With(redact.FromRequest(sentRequest(req, resp)))
		err := c.notStream(resp, secrets)
		resp.Body.Close()
		return nil, nil, c.mapError(ctx, err, false, secrets)
	}
	return b, resp.Body, nil
}

// newRequest builds the HTTP request for r in the client's dialect. The
// transport redacts what the request's headers show to be credentials; the
// context tells it of the rest (every WithHeader value).
func (c *Client) newRequest(ctx context.Context, r *Request) (*http.Request, error) {
	if err := r.ToolChoice.check(); err != nil {
		return nil, err
	}
	body, err := c.proto.encode(r, c.cfg)
	if err == nil {
		body, err = mergeExtra(body, r.Extra)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	endpoint, err := c.proto.endpoint(c.base, r.Model)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(redact.NewContext(ctx, c.cfg.secrets), http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range c.cfg.header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	c.proto.header(req.Header, c.cfg.apiKey)
	return req, nil
}

// mergeExtra adds the members of extra to the JSON object body; a member
// the dialect wrote itself may not be replaced.
func mergeExtra(body []byte, extra map[string]any) ([]byte, error) {
	if len(extra) == 0 {
		return body, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, err
	}
	for k, v := range extra {
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

// notStream is the error for a 2xx answer that is neither an event stream
// nor a JSON completion, with the start of its body for a hint.
func (c *Client) notStream(resp *http.Response, secrets *redact.Set) error {
	// Read past what the excerpt shows, so that it can end with "…"; a
	// credential cut at the end of what was read shows none of itself.
	const limit = 2 * redact.ExcerptBytes
	head, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil || len(head) == limit {
		head = secrets.Head(head)
	}
	u := ""
	if resp.Request != nil && resp.Request.URL != nil {
		u = redact.URL(resp.Request.URL.String())
	}
	return &ContentTypeError{
		StatusCode:  resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		URL:         u,
		Excerpt:     redact.Excerpt(head, redact.ExcerptBytes, secrets),
	}
}

// idleTimeoutError is the error of a stream the idle timeout ended. Its
// text names the timeout once, with its limit; what the Doer made of the
// cancellation ("transport: context canceled: ...", which would read as the
// caller's) stays in the chain.
type idleTimeoutError struct {
	limit time.Duration
	err   error
}

func (e *idleTimeoutError) Error() string   { return fmt.Sprintf("%v (%v)", ErrIdleTimeout, e.limit) }
func (e *idleTimeoutError) Unwrap() []error { return []error{ErrIdleTimeout, e.err} }

// mapError puts the idle timeout in front of the cancellation it caused
// (which, once the stream had begun, is an [ErrInterrupted]), turns an
// HTTP error body into an APIError, and keeps every credential of secrets
// (the client's, and those of the request as sent) out of the error,
// whatever Doer sent it.
func (c *Client) mapError(ctx context.Context, err error, streaming bool, secrets *redact.Set) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrIdleTimeout) {
		err = &idleTimeoutError{limit: c.cfg.idleTimeout, err: err}
		if streaming {
			err = interrupted(err) // the Bridge marked every other break
		}
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		// A Doer of the caller's may have built it.
		if se.Truncated {
			se.Body = secrets.Head(se.Body)
		} else {
			se.Body = secrets.Bytes(se.Body)
		}
		e, ok := c.proto.parseError(se.Body, se.StatusCode)
		if hp, is := c.proto.(headerErrorParser); is {
			e, ok = hp.parseErrorHeader(se.Body, se.StatusCode, se.Header)
		}
		if ok {
			e.Err = err
			err = e
		}
	}
	var api *APIError
	if errors.As(err, &api) {
		api.redact(secrets)
	}
	return redact.Error(err, secrets)
}

// sentRequest is the request as it was sent for resp: the Doer's own, with
// whatever credential its transport added (golang.org/x/oauth2 sets the
// Authorization of a token it refreshes), when the response says so.
func sentRequest(req *http.Request, resp *http.Response) *http.Request {
	if resp.Request != nil {
		return resp.Request
	}
	return req
}
