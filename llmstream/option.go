package llmstream

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/airlock-go/airlock/internal/redact"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// ClientOption configures a [Client]. Options are values with a String
// method, so they print readably. Those that also configure a [Bridge] are
// [Option]s.
type ClientOption interface {
	applyToClient(*config)
	fmt.Stringer
}

// BridgeOption configures a [Bridge] or [ReadMessage]. Every BridgeOption
// is an [Option]; an option that only concerns the HTTP exchange (base
// URL, key, headers, HTTP client) is a [ClientOption] alone, so passing one
// to [NewBridge] does not compile.
type BridgeOption interface {
	applyToBridge(*config)
	fmt.Stringer
}

// Option configures a [Client], a [Bridge] and [ReadMessage] alike: the
// dialect, the delta callback, the SSE and tool-call limits, secrets.
type Option interface {
	ClientOption
	BridgeOption
}

// config is the settings every constructor copies in.
type config struct {
	dialect  Dialect
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
	defaults    *Request // WithRequestDefaults; nil for none
	logger      *slog.Logger
	vertex      *vertexTarget // WithVertex; nil for none

	secretValues []string    // WithSecrets
	secrets      *redact.Set // all of the credentials above, made by the constructors
}

// newClientConfig applies opts in order, skipping nil ones.
func newClientConfig(opts []ClientOption) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o.applyToClient(&c)
		}
	}
	c.secrets = c.secretSet()
	return c
}

// newBridgeConfig applies opts in order, skipping nil ones.
func newBridgeConfig(opts []BridgeOption) config {
	var c config
	for _, o := range opts {
		if o != nil {
			o.applyToBridge(&c)
		}
	}
	c.secrets = c.secretSet()
	return c
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

// plainConfigs are the configs of Bridges made with no option but
// WithDialect and WithOnDelta, one per dialect, shared: a held stream
// then keeps no config of its own.
var plainConfigs = func() (cs [dialectEnd]*config) {
	for d := range cs {
		c := &config{dialect: Dialect(d)}
		c.secrets = c.secretSet()
		cs[d] = c
	}
	return cs
}()

// plain returns the shared config equal to c but for its onDelta (which
// a Bridge keeps itself), or nil when c has options of its own.
func (c *config) plain() *config {
	if c.dialect >= dialectEnd || len(c.sseOpts) > 0 || len(c.toolOpts) > 0 || len(c.secretValues) > 0 {
		return nil
	}
	return plainConfigs[c.dialect]
}

// Options is a list of options that is itself an Option, applied in order;
// nil entries are ignored.
type Options []Option

func (o Options) applyToClient(c *config) {
	for _, opt := range o {
		if opt != nil {
			opt.applyToClient(c)
		}
	}
}

func (o Options) applyToBridge(c *config) {
	for _, opt := range o {
		if opt != nil {
			opt.applyToBridge(c)
		}
	}
}

// String lists the options.
func (o Options) String() string { return fmt.Sprint([]Option(o)) }

type dialectOption Dialect

// WithDialect chooses the wire protocol: [DialectChat] (the default),
// [DialectAnthropic], [DialectResponses], [DialectGemini] or
// [DialectBedrock]; Gemini and Claude on Vertex AI are [DialectGemini] and
// [DialectAnthropic] with [WithVertex]. A value that is none of these fails
// every call of a Client and every event of a Bridge with an
// [*OptionError] (errors.Is [ErrInvalidOption]).
func WithDialect(d Dialect) Option { return dialectOption(d) }

func (o dialectOption) applyToClient(c *config) { c.dialect = Dialect(o) }
func (o dialectOption) applyToBridge(c *config) { c.dialect = Dialect(o) }
func (o dialectOption) String() string {
	return fmt.Sprintf("llmstream.WithDialect(%v)", Dialect(o))
}

type onDeltaOption func(Delta) error

// WithOnDelta calls fn with each piece of the response as it arrives: text,
// reasoning, refusal, and tool-call progress. fn runs on the goroutine that
// reads the stream, so a slow fn slows the stream. A non-nil return stops
// reading at once; the stream then fails with an error that matches both
// [ErrAborted] and fn's error. A Delta may be kept after fn returns. A
// request's own [Request.OnDelta] is used instead, for that request; a
// [Failover] calls that one with seams too ([DeltaRestart], [DeltaResume]).
func WithOnDelta(fn func(Delta) error) Option { return onDeltaOption(fn) }

func (o onDeltaOption) applyToClient(c *config) { c.onDelta = o }
func (o onDeltaOption) applyToBridge(c *config) { c.onDelta = o }
func (o onDeltaOption) String() string          { return "llmstream.WithOnDelta(func)" }

type sseOption []sse.Option

// WithSSEOptions passes options to the SSE reader, for example
// sse.WithMaxEventSize to accept events larger than [DefaultMaxEventSize]
// (4 MiB, the limit llmstream reads with, above the sse package's own
// default). The dialect sets the done sentinel first and the bridge its
// own unknown-field handler (to catch llama.cpp's "error:" lines) after
// these. A bad value fails every call of a Client before anything is sent
// with an [*OptionError] that matches both [ErrInvalidOption] and
// sse.ErrInvalidOption (a Bridge's [Bridge.Consume] and [ReadMessage]
// return sse's own error).
func WithSSEOptions(opts ...sse.Option) Option {
	return sseOption(append([]sse.Option(nil), opts...))
}

func (o sseOption) applyToClient(c *config) { c.sseOpts = append(c.sseOpts, o...) }
func (o sseOption) applyToBridge(c *config) { c.sseOpts = append(c.sseOpts, o...) }
func (o sseOption) String() string          { return fmt.Sprintf("llmstream.WithSSEOptions%v", []sse.Option(o)) }

type toolCallOption []toolcall.Option

// WithToolCallOptions passes options to the tool-call assembler, for
// example toolcall.WithMaxCalls.
func WithToolCallOptions(opts ...toolcall.Option) Option {
	return toolCallOption(append([]toolcall.Option(nil), opts...))
}

func (o toolCallOption) applyToClient(c *config) { c.toolOpts = append(c.toolOpts, o...) }
func (o toolCallOption) applyToBridge(c *config) { c.toolOpts = append(c.toolOpts, o...) }
func (o toolCallOption) String() string {
	return fmt.Sprintf("llmstream.WithToolCallOptions%v", []toolcall.Option(o))
}

type secretsOption []string

// WithSecrets names more values that must never appear in an error: the
// credentials that your own HTTP client ([WithHTTPClient]) or a proxy adds
// to requests, which a [Client] cannot see. A [Client] already keeps out the
// API key, every [WithHeader] value and the secret query values of the base
// URL, and from the error of an HTTP error answer or a page that is not an
// event stream, the credentials your HTTP client added under a name that
// says so (Authorization, ...: the response carries the request as sent);
// a [Bridge] fed by your own HTTP code keeps out only these. Each
// value (and its JSON- and URL-escaped forms) is replaced by "REDACTED" in
// error texts and in the fields of [*APIError], [*EventError] and
// transport.StatusError. Values shorter than 8 bytes are ignored: blanking
// them would garble messages and hide nothing worth hiding.
func WithSecrets(values ...string) Option { return secretsOption(append([]string(nil), values...)) }

func (o secretsOption) applyToClient(c *config) { c.secretValues = append(c.secretValues, o...) }
func (o secretsOption) applyToBridge(c *config) { c.secretValues = append(c.secretValues, o...) }
func (o secretsOption) String() string {
	return fmt.Sprintf("llmstream.WithSecrets(<%d redacted>)", len(o))
}

type baseURLOption string

// WithBaseURL sets the server's base URL, for example
// "http://localhost:11434/v1"; default [DefaultBaseURL] (or the dialect's
// own, such as "https://api.anthropic.com/v1"). Trailing slashes are
// dropped, the dialect's path ("/chat/completions", "/messages", ...) is
// appended unless the URL already ends with it, and a URL with no path
// gets the dialect's version path first ("/v1", "/v1beta" for Gemini). A
// URL that is not http or https is reported by every call as an
// [*OptionError] (errors.Is [ErrInvalidOption]).
func WithBaseURL(url string) ClientOption { return baseURLOption(url) }

func (o baseURLOption) applyToClient(c *config) { c.baseURL = string(o) }
func (o baseURLOption) String() string {
	return fmt.Sprintf("llmstream.WithBaseURL(%q)", redact.URL(string(o)))
}

type apiKeyOption string

// WithAPIKey sets the key, sent the dialect's way ("Authorization: Bearer
// <key>" for chat, Responses and Bedrock, "x-api-key" for Anthropic,
// "x-goog-api-key" for Gemini; on Vertex AI, [WithVertex], the key is an
// OAuth access token sent as "Authorization: Bearer"). The key never appears in the option's
// String, nor in an error unless it is shorter than 8 bytes, too short to
// be told from ordinary words ("ollama"), which error texts leave alone
// (see [WithSecrets]). Servers that want another header (Azure's "api-key")
// take it through [WithHeader].
func WithAPIKey(key string) ClientOption { return apiKeyOption(key) }

func (o apiKeyOption) applyToClient(c *config) { c.apiKey = string(o) }
func (o apiKeyOption) String() string          { return "llmstream.WithAPIKey(<redacted>)" }

type modelOption string

// WithModel sets the model requested when a [Request] names none.
func WithModel(model string) ClientOption { return modelOption(model) }

func (o modelOption) applyToClient(c *config) { c.model = string(o) }
func (o modelOption) String() string          { return fmt.Sprintf("llmstream.WithModel(%q)", string(o)) }

type headerOption struct{ key, value string }

// WithHeader adds a header to every request. Its value never appears in the
// option's String, nor in an error unless it is shorter than 8 bytes (see
// [WithAPIKey]).
func WithHeader(key, value string) ClientOption { return headerOption{key, value} }

func (o headerOption) applyToClient(c *config) {
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
// 100 MiB cap, TLS verified, retries before the first byte, no credential
// header sent on by a redirect to another host). An *http.Client brings
// none of those: the stream is then bounded only by its own Timeout and
// the context, and a redirect to another host receives every header but
// Authorization and cookies (an Anthropic or Gemini key among them) unless
// its CheckRedirect drops them.
func WithHTTPClient(d Doer) ClientOption { return httpClientOption{d} }

func (o httpClientOption) applyToClient(c *config) { c.httpClient = o.d }
func (o httpClientOption) String() string {
	return fmt.Sprintf("llmstream.WithHTTPClient(%T)", o.d)
}

type includeUsageOption bool

// WithIncludeUsage sets whether chat requests ask for a usage chunk with
// "stream_options": {"include_usage": true}; default true. Turn it off for
// servers that reject stream_options. The other dialects always report
// usage.
func WithIncludeUsage(on bool) ClientOption { return includeUsageOption(on) }

func (o includeUsageOption) applyToClient(c *config) { c.noUsage = !bool(o) }
func (o includeUsageOption) String() string {
	return fmt.Sprintf("llmstream.WithIncludeUsage(%t)", bool(o))
}

type idleTimeoutOption time.Duration

// WithIdleTimeout ends a stream with [ErrIdleTimeout] when no event that
// carries content, reasoning, a tool-call fragment or a finish reason
// arrives for d. Keep-alive comments, pings and empty chunks do not count,
// so a server that keeps a dead generation "alive" is still caught. 0, the
// default, turns it off; the transport's own limits still apply.
func WithIdleTimeout(d time.Duration) ClientOption { return idleTimeoutOption(d) }

func (o idleTimeoutOption) applyToClient(c *config) { c.idleTimeout = time.Duration(o) }
func (o idleTimeoutOption) String() string {
	return fmt.Sprintf("llmstream.WithIdleTimeout(%v)", time.Duration(o))
}

type requestDefaultsOption struct{ r Request }

// WithRequestDefaults sets the generation settings every request starts
// from: each field of defaults that is set (model, max tokens,
// temperature, top-p, stop sequences, tool choice, parallel tool calls,
// reasoning settings, tools, Extra members) applies to a request that
// leaves it unset; a request's own value wins. Messages and OnDelta of
// defaults are not allowed: every call reports such defaults with an
// [*OptionError] (errors.Is [ErrInvalidOption]).
func WithRequestDefaults(defaults Request) ClientOption {
	return requestDefaultsOption{defaults.clone()}
}

func (o requestDefaultsOption) applyToClient(c *config) {
	d := o.r.clone()
	c.defaults = &d
}
func (o requestDefaultsOption) String() string {
	return "llmstream.WithRequestDefaults(...)"
}

type loggerOption struct{ l *slog.Logger }

// WithLogger logs every request of the Client on l at debug level, one
// line ("llmstream: response") when it ends: the dialect, model and base
// URL, the time it took, the events read, the stop reason, the token
// usage, the number of tool calls and the error. When the Client makes its
// own transport (no [WithHTTPClient]) every step of the HTTP exchange is
// logged too — each attempt, a retry with its status, wait and cause, the
// response status with the time to the first byte, the end — see
// transport.WithLogger, which a transport given with WithHTTPClient needs
// for the same lines. Nothing is logged by default, and no log line carries
// a credential: URLs and errors are redacted as the errors the Client
// returns are.
func WithLogger(l *slog.Logger) ClientOption { return loggerOption{l} }

func (o loggerOption) applyToClient(c *config) { c.logger = o.l }
func (o loggerOption) String() string {
	if o.l == nil {
		return "llmstream.WithLogger(nil)"
	}
	return "llmstream.WithLogger(*slog.Logger)"
}
