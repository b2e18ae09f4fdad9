package llmstreamtest

import (
	"fmt"
	"os"
	"time"
)

// Defaults of the server's options.
const (
	// DefaultSeed seeds the chunking when [WithSeed] is not given.
	DefaultSeed uint64 = 1
	// DefaultMaxRequestBytes is the request-body limit when
	// [WithMaxRequestBytes] is not given: 8 MiB.
	DefaultMaxRequestBytes int64 = 8 << 20
)

// Option configures a [Server]. Options are values with a String method,
// so they can be compared and printed; build them with the With functions.
// An Option is immutable once built and may be shared by servers running
// at once. A nil Option is ignored.
type Option interface {
	apply(*config)
	String() string
}

// Options is a list of options that is itself an [Option], applied in
// order; nil entries are ignored.
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

type config struct {
	tls        bool
	report     func(string) // where Close reports a handler that will not end
	turns      []Turn
	responder  func(Request) Turn
	flavor     Flavor
	seed       uint64
	interleave bool
	streamArgs bool // WithStreamedArguments (Gemini)
	delay      time.Duration
	maxBody    int64
}

func newConfig(opts []Option) config {
	c := config{flavor: OpenAI, seed: DefaultSeed, maxBody: DefaultMaxRequestBytes, report: func(msg string) { fmt.Fprintln(os.Stderr, msg) }}
	Options(opts).apply(&c)
	return c
}

// check returns what is wrong with the configuration, nil when nothing is.
func (c *config) check() error {
	switch {
	case c.flavor >= flavorEnd:
		return &OptionError{Option: flavorOption(c.flavor).String(), Reason: "the flavor is unknown"}
	case c.maxBody < 0:
		return &OptionError{Option: maxBodyOption(c.maxBody).String(), Reason: "the size must not be negative"}
	}
	return nil
}

type turnsOption []Turn

// WithTurns scripts the turns served in order: request n that reaches the
// script gets turns[n-1] (a [FaultStatus] with [Fault.Attempts] holds its
// turn for more requests). A request past the last turn fails with
// [ErrNoTurn]. The turns are copied. WithTurns and [WithResponder] replace
// each other; the last one given wins.
func WithTurns(turns ...Turn) Option {
	out := make(turnsOption, len(turns))
	for i, t := range turns {
		out[i] = t.clone()
	}
	return out
}

func (o turnsOption) apply(c *config) {
	c.turns = []Turn(o)
	c.responder = nil
}

func (o turnsOption) String() string { return fmt.Sprintf("llmstreamtest.WithTurns(%d turns)", len(o)) }

type responderOption struct{ f func(Request) Turn }

// WithResponder scripts the server with a function that chooses the turn
// for each request, for a fake model that reacts to what it is sent (the
// tool results in [Request.Messages], say). The server calls f from one
// goroutine at a time, in arrival order, with a copy of the request that f
// may keep; f may call [Server.Requests]. A nil f means no script: every
// request fails with [ErrNoTurn]. WithResponder and [WithTurns] replace
// each other; the last one given wins.
func WithResponder(f func(Request) Turn) Option { return responderOption{f} }

func (o responderOption) apply(c *config) {
	c.responder = o.f
	c.turns = nil
}

func (o responderOption) String() string {
	if o.f == nil {
		return "llmstreamtest.WithResponder(nil)"
	}
	return "llmstreamtest.WithResponder(func)"
}

type flavorOption Flavor

// WithFlavor selects whose chunks the chat dialect imitates; the default
// and the zero value are [OpenAI]. The other dialects have one shape each.
// An unknown value fails every request with an [*OptionError] (errors.Is
// [ErrInvalidOption]).
func WithFlavor(f Flavor) Option { return flavorOption(f) }

func (o flavorOption) apply(c *config) {
	c.flavor = Flavor(o)
	if c.flavor == 0 {
		c.flavor = OpenAI
	}
}

func (o flavorOption) String() string { return "llmstreamtest.WithFlavor(" + Flavor(o).String() + ")" }

type seedOption uint64

// WithSeed seeds the random choices of the chunking (argument fragment
// sizes, interleaving, OpenAI's obfuscation padding); the default is
// [DefaultSeed]. The same seed, turn and request number give the same bytes.
func WithSeed(seed uint64) Option { return seedOption(seed) }

func (o seedOption) apply(c *config) { c.seed = uint64(o) }

func (o seedOption) String() string { return fmt.Sprintf("llmstreamtest.WithSeed(%d)", uint64(o)) }

type interleaveOption bool

// WithInterleavedCalls mixes, when on, the fragments of a turn's parallel
// tool calls across their indexes, as some servers do, in the chat and
// Responses dialects: the calls are still announced in index order (a
// Responses output item is added only after those before it), each
// header before its own arguments. The default is off (one call after
// another). Anthropic's
// blocks come one after another, and flavours and dialects that send
// whole calls ([Ollama], [Gemini], native Gemini) are not affected.
func WithInterleavedCalls(on bool) Option { return interleaveOption(on) }

func (o interleaveOption) apply(c *config) { c.interleave = bool(o) }

func (o interleaveOption) String() string {
	return fmt.Sprintf("llmstreamtest.WithInterleavedCalls(%t)", bool(o))
}

type delayOption time.Duration

// WithEventDelay waits d between events, so a human watching a demo sees
// the text arrive; the default 0, and any d <= 0, means no wait. A wait
// ends early when the client goes away or the server closes.
func WithEventDelay(d time.Duration) Option { return delayOption(d) }

func (o delayOption) apply(c *config) { c.delay = time.Duration(o) }

func (o delayOption) String() string {
	return "llmstreamtest.WithEventDelay(" + time.Duration(o).String() + ")"
}

type maxBodyOption int64

// WithMaxRequestBytes limits the size of a request body, in bytes, per
// request; the default is [DefaultMaxRequestBytes] and 0 means that
// default. A body of exactly n bytes is read; a longer one fails the
// request with [ErrBadRequest] and status 413. Negative n fails every
// request with an [*OptionError] (errors.Is [ErrInvalidOption]).
func WithMaxRequestBytes(n int64) Option { return maxBodyOption(n) }

func (o maxBodyOption) apply(c *config) {
	c.maxBody = int64(o)
	if c.maxBody == 0 {
		c.maxBody = DefaultMaxRequestBytes
	}
}

func (o maxBodyOption) String() string {
	return fmt.Sprintf("llmstreamtest.WithMaxRequestBytes(%d)", int64(o))
}

type tlsOption struct{}

// WithTLS serves HTTPS with a certificate made for the server at start,
// valid for 127.0.0.1, as httptest.NewTLSServer does: [Server.URL] starts
// with "https://", and [Server.Client] and [Server.ClientOptions] trust the
// certificate (nothing else does). Ignored by [NewHandler].
func WithTLS() Option { return tlsOption{} }

func (tlsOption) apply(c *config) { c.tls = true }
func (tlsOption) String() string  { return "llmstreamtest.WithTLS()" }

// reportOption sends Close's report elsewhere; NewTestServer uses it.
type reportOption struct{ f func(string) }

func (o reportOption) apply(c *config) { c.report = o.f }
func (reportOption) String() string    { return "llmstreamtest.report" }
