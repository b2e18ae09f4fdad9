package otel

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures [NewModel], [WrapTools], [Run] and [Resume]. Options are values
// with a String method, so they can be compared and printed. A nil Option
// is ignored. An option that does not apply to a function is ignored by it.
type Option interface {
	String() string
	apply(*config)
}

// config is what the options set.
type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	dialect        llmstream.Dialect
	provider       string // "" means the dialect's
	model          string
	address        string
	port           int
	content        bool
	agentName      string
}

// newConfig applies opts over what m (nil for none) tells of itself.
func newConfig(m any, opts []Option) config {
	var c config
	// What m says of itself, as an *llmstream.Client does (a wrapper with
	// these methods is read alike); options win over it.
	if m, ok := m.(interface{ Dialect() llmstream.Dialect }); ok {
		c.dialect = m.Dialect()
	}
	if m, ok := m.(interface{ ProviderName() string }); ok {
		c.provider = m.ProviderName()
	}
	if m, ok := m.(interface{ Model() string }); ok {
		c.model = m.Model()
	}
	if m, ok := m.(interface{ BaseURL() string }); ok {
		serverOption{m.BaseURL()}.apply(&c)
	}
	for _, o := range opts {
		if o != nil {
			o.apply(&c)
		}
	}
	c.tracerProvider = cmp.Or(c.tracerProvider, otel.GetTracerProvider())
	c.meterProvider = cmp.Or(c.meterProvider, otel.GetMeterProvider())
	c.provider = cmp.Or(c.provider, c.dialect.ProviderName()) // chat names OpenAI's
	return c
}

// WithTracerProvider sets where spans go; the default is OpenTelemetry's
// global provider at construction time.
func WithTracerProvider(p trace.TracerProvider) Option { return tracerProviderOption{p} }

type tracerProviderOption struct{ p trace.TracerProvider }

func (o tracerProviderOption) apply(c *config) { c.tracerProvider = o.p }
func (o tracerProviderOption) String() string  { return fmt.Sprintf("otel.WithTracerProvider(%T)", o.p) }

// WithMeterProvider sets where the metrics go; the default is
// OpenTelemetry's global provider at construction time.
func WithMeterProvider(p metric.MeterProvider) Option { return meterProviderOption{p} }

type meterProviderOption struct{ p metric.MeterProvider }

func (o meterProviderOption) apply(c *config) { c.meterProvider = o.p }
func (o meterProviderOption) String() string  { return fmt.Sprintf("otel.WithMeterProvider(%T)", o.p) }

// WithDialect says which [llmstream.Dialect] the wrapped model speaks,
// for a Streamer that does not say it itself ([NewModel] reads an
// *llmstream.Client's): it chooses gen_ai.provider.name when the Streamer
// names none ([llmstream.Dialect.ProviderName]), the operation
// ("generate_content" for Gemini, else "chat") and how message contents
// are written. The default is the Streamer's dialect, else
// llmstream.DialectChat.
func WithDialect(d llmstream.Dialect) Option { return dialectOption{d} }

type dialectOption struct{ d llmstream.Dialect }

func (o dialectOption) apply(c *config) { c.dialect = o.d }
func (o dialectOption) String() string  { return fmt.Sprintf("otel.WithDialect(%v)", o.d) }

// WithProviderName sets gen_ai.provider.name, for a server that speaks a
// dialect but is not its provider: "groq", "deepseek", "mistral_ai",
// "x_ai", "azure.ai.openai", ... (the conventions list the well-known
// values). Empty means the Streamer's own (an *llmstream.Client's
// [llmstream.Client.ProviderName]), else the dialect's provider.
func WithProviderName(name string) Option { return providerOption{name} }

type providerOption struct{ name string }

func (o providerOption) apply(c *config) { c.provider = o.name }
func (o providerOption) String() string  { return fmt.Sprintf("otel.WithProviderName(%q)", o.name) }

// WithModelName is the model a request goes to when it names none, for a
// Streamer that does not say it ([NewModel] reads an *llmstream.Client's
// [llmstream.Client.Model]): it names the span and fills
// gen_ai.request.model. A request's own Model wins.
func WithModelName(model string) Option { return modelOption{model} }

type modelOption struct{ model string }

func (o modelOption) apply(c *config) { c.model = o.model }
func (o modelOption) String() string  { return fmt.Sprintf("otel.WithModelName(%q)", o.model) }

// WithServerURL sets server.address and server.port from the base URL the
// client talks to (the port from the scheme when the URL has none), for a
// Streamer that does not say it ([NewModel] reads an *llmstream.Client's
// [llmstream.Client.BaseURL]). Only
// the host and port are kept: user information, path and query (where a
// key might sit) are never recorded. A URL that does not parse, or has no
// host, sets nothing.
func WithServerURL(baseURL string) Option { return serverOption{baseURL} }

type serverOption struct{ url string }

func (o serverOption) apply(c *config) {
	u, err := url.Parse(o.url)
	if err != nil || u.Hostname() == "" {
		return
	}
	c.address = u.Hostname()
	c.port = 0
	if p, err := strconv.Atoi(u.Port()); err == nil {
		c.port = p
	} else if u.Scheme == "https" {
		c.port = 443
	} else if u.Scheme == "http" {
		c.port = 80
	}
}

// String prints only the host and port, for the reason WithServerURL gives.
func (o serverOption) String() string {
	var c config
	o.apply(&c)
	return fmt.Sprintf("otel.WithServerURL(%s)", net.JoinHostPort(c.address, strconv.Itoa(c.port)))
}

// WithContent turns the recording of message contents on or off; the
// default is off. On, a model span carries gen_ai.input.messages,
// gen_ai.system_instructions and gen_ai.output.messages, a tool span
// gen_ai.tool.call.arguments and gen_ai.tool.call.result, and an error's
// text becomes the span's status description (off, the description is
// the error.type alone, since an error may quote content). Contents may
// hold personal data; turn this on only where the trace store may keep it.
// No credential is recorded either way (see the package documentation).
func WithContent(on bool) Option { return contentOption{on} }

type contentOption struct{ on bool }

func (o contentOption) apply(c *config) { c.content = o.on }
func (o contentOption) String() string  { return fmt.Sprintf("otel.WithContent(%t)", o.on) }

// WithAgentName sets gen_ai.agent.name on the invoke_agent span of [Run]
// and names it "invoke_agent {name}".
func WithAgentName(name string) Option { return agentNameOption{name} }

type agentNameOption struct{ name string }

func (o agentNameOption) apply(c *config) { c.agentName = o.name }
func (o agentNameOption) String() string  { return fmt.Sprintf("otel.WithAgentName(%q)", o.name) }
