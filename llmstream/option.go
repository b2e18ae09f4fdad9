package llmstream

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// Option configures a [Bridge], [ReadMessage] or a [Client]. Options are
// values with a String method, so they print readably; they compose with
// [Options]. Options that only concern the HTTP exchange (base URL, API key,
// model, headers, HTTP client, usage, idle timeout) are ignored by
// [NewBridge] and [ReadMessage].
type Option interface {
	apply(*config)
	fmt.Stringer
}

// config is the settings every constructor copies in.
type config struct {
	onDelta  func(Delta) error
	sseOpts  []sse.Option
	toolOpts []toolcall.Option

	baseURL     string
	apiKey      string
	model       string
	header      http.Header
	httpClient  Doer
	noUsage     bool
	idleTimeout time.Duration

	secretValues []string    // WithSecrets
	secrets      *redact.Set // all of the above, made by newConfig
}

// secretSet is every credential the configuration sends or names secret:
// the API key, every header value, the [WithSecrets] values, and the
// secret query values and password of the base URL.
func (c *config) secretSet() *redact.Set {
	vals := append([]string{c.apiKey}, c.secretValues...)
	for _, vs := range c.header {
		vals = append(vals, vs...)
	}
	s := redact.New(vals...)
	if u, err := url.Parse(c.baseURL); err == nil {
		s = s.With(redact.FromRequest(&http.Request{URL: u, Header: http.Header{}}))
	}
	return s
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	c.secrets = c.secretSet()
	return c
}

// Options is a list of options that is itself an Option, applied in order;
// nil entries are ignored.
type Options []Option

func (o Options) apply(c *config) {
	for _, opt := range o {
		if opt != nil {
			opt.apply(c)
		}
	}
}

// String lists the options.
func (o Options) String() string { return fmt.Sprint([]Option(o)) }

type onDeltaOption func(Delta) error

// WithOnDelta calls fn with each piece of the response as it arrives: text,
// reasoning, refusal, and tool-call progress. fn runs on the goroutine that
// reads the stream, so a slow fn slows the stream. A non-nil return stops
// reading at once; the stream then fails with an error that matches both
// [ErrAborted] and fn's error. A Delta may be kept after fn returns.
func WithOnDelta(fn func(Delta) error) Option { return onDeltaOption(fn) }

func (o onDeltaOption) apply(c *config) { c.onDelta = o }
func (o onDeltaOption) String() string  { return "llmstream.WithOnDelta(func)" }

type sseOption []sse.Option

// WithSSEOptions passes options to the SSE reader, for example
// sse.WithMaxEventSize to accept events larger than [DefaultMaxEventSize]
// (4 MiB, the limit llmstream reads with, above the sse package's own
// default).
// The bridge sets its own unknown-field handler (to catch llama.cpp's
// "error:" lines) after these.
func WithSSEOptions(opts ...sse.Option) Option {
	return sseOption(append([]sse.Option(nil), opts...))
}

func (o sseOption) apply(c *config) { c.sseOpts = append(c.sseOpts, o...) }
func (o sseOption) String() string  { return fmt.Sprintf("llmstream.WithSSEOptions%v", []sse.Option(o)) }

type toolCallOption []toolcall.Option

// WithToolCallOptions passes options to the tool-call assembler, for
// example toolcall.WithMaxCalls.
func WithToolCallOptions(opts ...toolcall.Option) Option {
	return toolCallOption(append([]toolcall.Option(nil), opts...))
}

func (o toolCallOption) apply(c *config) { c.toolOpts = append(c.toolOpts, o...) }
func (o toolCallOption) String() string {
	return fmt.Sprintf("llmstream.WithToolCallOptions%v", []toolcall.Option(o))
}

type baseURLOption string

// WithBaseURL sets the server's base URL, for example
// "http://localhost:11434/v1"; default [DefaultBaseURL]. Trailing slashes
// are dropped, "/chat/completions" is appended unless the URL already ends
// with it, and a URL with no path gets "/v1" first. A URL that is not http
// or https is reported by every call.
func WithBaseURL(url string) Option { return baseURLOption(url) }

func (o baseURLOption) apply(c *config) { c.baseURL = string(o) }
func (o baseURLOption) String() string {
	return fmt.Sprintf("llmstream.WithBaseURL(%q)", redact.URL(string(o)))
}

type apiKeyOption string

// WithAPIKey sets the key sent as "Authorization: Bearer <key>". The key
// never appears in an error or in the option's String. Servers that want
// another header (Azure's "api-key") take it through [WithHeader].
func WithAPIKey(key string) Option { return apiKeyOption(key) }

func (o apiKeyOption) apply(c *config) { c.apiKey = string(o) }
func (o apiKeyOption) String() string  { return "llmstream.WithAPIKey(<redacted>)" }

type modelOption string

// WithModel sets the model requested when a [Request] names none.
func WithModel(model string) Option { return modelOption(model) }

func (o modelOption) apply(c *config) { c.model = string(o) }
func (o modelOption) String() string  { return fmt.Sprintf("llmstream.WithModel(%q)", string(o)) }

type headerOption struct{ key, value string }

// WithHeader adds a header to every request. Its value never appears in an
// error or in the option's String.
func WithHeader(key, value string) Option { return headerOption{key, value} }

func (o headerOption) apply(c *config) {
	if c.header == nil {
		c.header = make(http.Header)
	}
	c.header.Add(o.key, o.value)
}
func (o headerOption) String() string {
	return fmt.Sprintf("llmstream.WithHeader(%q, <redacted>)", o.key)
}

type httpClientOption struct{ d Doer }

// WithHTTPClient sets what sends the requests: a [*transport.Client]
// configured with its own options, an *http.Client, or any [Doer]. Default:
// transport.New() with its defaults (60 s total timeout, stall detection,
// 100 MiB cap, TLS verified). An *http.Client brings none of those limits:
// the stream is then bounded only by its own Timeout and the context.
func WithHTTPClient(d Doer) Option { return httpClientOption{d} }

func (o httpClientOption) apply(c *config) { c.httpClient = o.d }
func (o httpClientOption) String() string  { return fmt.Sprintf("llmstream.WithHTTPClient(%T)", o.d) }

type includeUsageOption bool

// WithIncludeUsage sets whether requests ask for a usage chunk with
// "stream_options": {"include_usage": true}; default true. Turn it off for
// servers that reject stream_options.
func WithIncludeUsage(on bool) Option { return includeUsageOption(on) }

func (o includeUsageOption) apply(c *config) { c.noUsage = !bool(o) }
func (o includeUsageOption) String() string {
	return fmt.Sprintf("llmstream.WithIncludeUsage(%t)", bool(o))
}

type idleTimeoutOption time.Duration

// WithIdleTimeout ends a stream with [ErrIdleTimeout] when no event that
// carries content, reasoning, a tool-call fragment or a finish reason
// arrives for d. Keep-alive comments and empty chunks do not count, so a
// server that keeps a dead generation "alive" is still caught. 0, the
// default, turns it off; the transport's own limits still apply.
func WithIdleTimeout(d time.Duration) Option { return idleTimeoutOption(d) }

func (o idleTimeoutOption) apply(c *config) { c.idleTimeout = time.Duration(o) }
func (o idleTimeoutOption) String() string {
	return fmt.Sprintf("llmstream.WithIdleTimeout(%v)", time.Duration(o))
}

type secretsOption []string

// WithSecrets names more values that must never appear in an error: the
// credentials that your own HTTP client ([WithHTTPClient]) or a proxy adds
// to requests, which a [Client] cannot see. A [Client] already keeps out the
// API key, every [WithHeader] value and the secret query values of the base
// URL; a [Bridge] fed by your own HTTP code keeps out only these. Each
// value (and its JSON- and URL-escaped forms) is replaced by "REDACTED" in
// error texts and in the fields of [*APIError], [*EventError] and
// transport.StatusError. Values shorter than 8 bytes are ignored: blanking
// them would garble messages and hide nothing worth hiding.
func WithSecrets(values ...string) Option { return secretsOption(append([]string(nil), values...)) }

func (o secretsOption) apply(c *config) { c.secretValues = append(c.secretValues, o...) }
func (o secretsOption) String() string {
	return fmt.Sprintf("llmstream.WithSecrets(<%d redacted>)", len(o))
}
