package transport

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// The defaults a [Client] from [New] uses when no option says otherwise.
const (
	// DefaultTimeout bounds a whole exchange, every attempt and the whole
	// response body included. See [WithTimeout].
	DefaultTimeout = 60 * time.Second

	// DefaultConnectTimeout is the one budget for the TCP dial and the TLS
	// handshake of each new connection. See [WithConnectTimeout].
	DefaultConnectTimeout = 10 * time.Second

	// DefaultLowSpeedBytesPerSecond and DefaultLowSpeedWindow make the
	// low-speed rule "under 1 byte per second averaged over 30 seconds
	// aborts". See [WithLowSpeed].
	DefaultLowSpeedBytesPerSecond int64 = 1
	DefaultLowSpeedWindow               = 30 * time.Second

	// DefaultMaxStreamBytes caps the response body of one exchange at
	// 100 MiB. See [WithMaxStreamBytes].
	DefaultMaxStreamBytes int64 = 100 << 20

	// DefaultMaxRetries is how many times a failed attempt is retried, so an
	// exchange makes at most DefaultMaxRetries+1 attempts. See [WithRetry].
	DefaultMaxRetries = 2

	// DefaultInitialBackoff and DefaultMaxBackoff bound the computed wait
	// between attempts when the server did not name one. See [WithRetry].
	DefaultInitialBackoff = 500 * time.Millisecond
	DefaultMaxBackoff     = 8 * time.Second

	// DefaultMaxRetryAfter is the longest server-requested wait
	// (retry-after-ms or Retry-After) that is honoured. See
	// [WithMaxRetryAfter].
	DefaultMaxRetryAfter = 30 * time.Second
)

// MaxBufferedRequestBytes (32 MiB) bounds, per exchange, how many bytes of a
// request body without GetBody are held in memory so that it can be sent
// again on a retry. A body of exactly this size is still buffered; a longer
// one is sent once, as it streams, and that exchange is not retried (no
// error: a failure is returned as it happened).
const MaxBufferedRequestBytes = 32 << 20

// An Option configures a [Client]. Options are values made by the With
// functions of this package; the interface is sealed so that the set stays
// known and every option prints itself with String, as "transport.WithTimeout(1m0s)".
//
// A bad value (a negative size, say) never panics and never makes [New]
// fail: it is kept and reported, as an [*OptionError], by every call to
// [Client.Do].
type Option interface {
	apply(*config)
	String() string
}

// config is the resolved configuration of a Client. New copies everything in,
// so a caller changing a *tls.Config after New does not reach a live Client.
type config struct {
	timeout        time.Duration
	connectTimeout time.Duration
	lowSpeedBytes  int64
	lowSpeedWindow time.Duration
	maxStream      int64
	tls            *tls.Config
	insecure       bool
	maxRetries     int
	initialBackoff time.Duration
	maxBackoff     time.Duration
	maxRetryAfter  time.Duration
	observer       func(Event)
	logger         *slog.Logger
	proxy          func(*http.Request) (*url.URL, error)
	errs           []error
}

func defaultConfig() config {
	return config{
		timeout:        DefaultTimeout,
		connectTimeout: DefaultConnectTimeout,
		lowSpeedBytes:  DefaultLowSpeedBytesPerSecond,
		lowSpeedWindow: DefaultLowSpeedWindow,
		maxStream:      DefaultMaxStreamBytes,
		maxRetries:     DefaultMaxRetries,
		initialBackoff: DefaultInitialBackoff,
		maxBackoff:     DefaultMaxBackoff,
		maxRetryAfter:  DefaultMaxRetryAfter,
		proxy:          http.ProxyFromEnvironment,
	}
}

// reject records that opt carries a value the Client cannot use.
func (c *config) reject(opt Option, reason string) {
	c.errs = append(c.errs, &OptionError{Option: opt.String(), Reason: reason})
}

// durationOption sets one of the time limits, which may not be negative;
// name is the function that made it.
type durationOption struct {
	name string
	d    time.Duration
}

func (o durationOption) apply(c *config) {
	if o.d < 0 {
		c.reject(o, "negative duration")
		return
	}
	switch o.name {
	case "WithTimeout":
		c.timeout = o.d
	case "WithConnectTimeout":
		c.connectTimeout = o.d
	case "WithMaxRetryAfter":
		c.maxRetryAfter = o.d
	}
}

func (o durationOption) String() string { return fmt.Sprintf("transport.%s(%v)", o.name, o.d) }

// WithTimeout bounds a whole exchange — every attempt, every wait between
// attempts and the reading of the response body — to d, measured from the
// call to [Client.Do]. The default is [DefaultTimeout]; 0 turns the total
// timeout off, which long reasoning streams need: the low-speed rule
// ([WithLowSpeed]) still ends a connection that has gone quiet. A breach is
// an error matching [ErrTimeout], from Do or from reading the body. A
// negative d is an [*OptionError].
func WithTimeout(d time.Duration) Option { return durationOption{"WithTimeout", d} }

// WithConnectTimeout gives the making of each new connection a budget of d,
// started when the TCP dial starts and shared by the dial and the TLS
// handshake that follows it: a dial that takes 9 s of 10 leaves the
// handshake 1 s. It applies per connection, so per attempt when no pooled
// connection can be reused. Through a proxy, the budget covers the dial to
// the proxy (and the handshake with an https proxy); the CONNECT that
// follows is bounded by net/http (one minute) and the server's TLS handshake
// inside the tunnel by d on its own clock.
//
// The default is [DefaultConnectTimeout]; 0 turns the budget off, leaving
// connection setup bounded by the total timeout, the low-speed rule's wait
// for headers and the request's context. A breach is a [*TimeoutError] with
// Limit [LimitConnect], matching [ErrTimeout]; it counts as a connection
// failure, so it is retried ([WithRetry]). A negative d is an
// [*OptionError].
func WithConnectTimeout(d time.Duration) Option { return durationOption{"WithConnectTimeout", d} }

type lowSpeedOption struct {
	bytesPerSecond int64
	window         time.Duration
}

// WithLowSpeed sets the low-speed rule: an exchange is aborted when, over a
// full window of time spent waiting for the server, fewer than
// bytesPerSecond×window bytes of response body arrived. Before the response
// headers, the rule is that they arrive within window of the start of each
// attempt. Time the caller spends away from reading the body does not count
// against the server, so a slow consumer is not mistaken for a dead
// connection. The default is [DefaultLowSpeedBytesPerSecond] over
// [DefaultLowSpeedWindow]; a 0 for either turns the rule off.
//
// A breach is a [*StalledError] matching [ErrStalled]; it is detected within
// about window plus a tenth of it, and is never retried. A negative value is
// an [*OptionError].
func WithLowSpeed(bytesPerSecond int64, window time.Duration) Option {
	return lowSpeedOption{bytesPerSecond, window}
}

func (o lowSpeedOption) apply(c *config) {
	if o.bytesPerSecond < 0 || o.window < 0 {
		c.reject(o, "negative rate or window")
		return
	}
	c.lowSpeedBytes, c.lowSpeedWindow = o.bytesPerSecond, o.window
}

func (o lowSpeedOption) String() string {
	return fmt.Sprintf("transport.WithLowSpeed(%d, %v)", o.bytesPerSecond, o.window)
}

type maxStreamOption int64

// WithMaxStreamBytes caps the response body of one exchange at n bytes,
// counted as handed to the caller (after any transparent gzip decoding). A
// body of exactly n bytes is read whole; at the first byte past n, Read
// returns a [*StreamTooLargeError] matching [ErrStreamTooLarge] and no byte
// past the cap is ever handed on. A body whose declared Content-Length is
// already over the cap fails in [Client.Do]. The default is
// [DefaultMaxStreamBytes]; 0 turns the cap off. A negative n is an
// [*OptionError].
func WithMaxStreamBytes(n int64) Option { return maxStreamOption(n) }

func (o maxStreamOption) apply(c *config) {
	if o < 0 {
		c.reject(o, "negative size")
		return
	}
	c.maxStream = int64(o)
}

func (o maxStreamOption) String() string {
	return fmt.Sprintf("transport.WithMaxStreamBytes(%d)", int64(o))
}

type tlsOption struct{ cfg *tls.Config }

// WithTLSConfig sets the TLS configuration for https connections, for
// example a RootCAs pool that trusts a private certificate authority or a
// client certificate. [New] uses a clone, so later changes to cfg have no
// effect. nil means the defaults: the system roots, verification on.
// Certificate verification stays on unless cfg turns it off or
// [WithInsecureSkipVerify] is given.
func WithTLSConfig(cfg *tls.Config) Option { return tlsOption{cfg} }

func (o tlsOption) apply(c *config) {
	c.tls = nil
	if o.cfg != nil {
		c.tls = o.cfg.Clone()
	}
}

func (o tlsOption) String() string {
	if o.cfg == nil {
		return "transport.WithTLSConfig(nil)"
	}
	return "transport.WithTLSConfig(&tls.Config{...})"
}

type insecureOption struct{}

// WithInsecureSkipVerify turns TLS certificate verification off: any
// certificate, for any host name, is accepted, so anyone on the path can read
// and change the exchange, API key included. It exists for tests and for
// local servers with throwaway certificates; prefer [WithTLSConfig] with the
// server's certificate in RootCAs.
func WithInsecureSkipVerify() Option { return insecureOption{} }

func (insecureOption) apply(c *config) { c.insecure = true }

func (insecureOption) String() string { return "transport.WithInsecureSkipVerify()" }

type retryOption struct {
	maxRetries              int
	initial, maxBackoffWait time.Duration
}

// WithRetry sets how failed attempts are retried. An attempt is retried only
// before any byte of a response body has been handed to the caller, and only
// when it failed to connect (dial, proxy or TLS handshake errors other than
// certificate errors, and the connect timeout) or the server answered 408,
// 409, 429 or 5xx. At most maxRetries retries follow the first attempt; 0
// turns retries off.
//
// The wait before retry n (1-based) is the server's retry-after-ms or
// Retry-After header when present (see [WithMaxRetryAfter]); otherwise it is
// drawn uniformly from [b/2, b], where b is initialBackoff×2^(n-1) capped at
// maxBackoff. The wait ends early, with the context's error, if the request
// context is done; a wait that would outlast the total timeout or the
// context's deadline is not begun, and the last attempt's error is returned
// at once.
//
// The defaults are [DefaultMaxRetries], [DefaultInitialBackoff] and
// [DefaultMaxBackoff]. Negative values, or initialBackoff above maxBackoff,
// are an [*OptionError].
func WithRetry(maxRetries int, initialBackoff, maxBackoff time.Duration) Option {
	return retryOption{maxRetries, initialBackoff, maxBackoff}
}

func (o retryOption) apply(c *config) {
	switch {
	case o.maxRetries < 0 || o.initial < 0 || o.maxBackoffWait < 0:
		c.reject(o, "negative count or duration")
		return
	case o.initial > o.maxBackoffWait:
		c.reject(o, "initial backoff above the maximum")
		return
	}
	c.maxRetries, c.initialBackoff, c.maxBackoff = o.maxRetries, o.initial, o.maxBackoffWait
}

func (o retryOption) String() string {
	return fmt.Sprintf("transport.WithRetry(%d, %v, %v)", o.maxRetries, o.initial, o.maxBackoffWait)
}

// WithMaxRetryAfter sets the longest server-requested wait that is honoured.
// When a retryable answer asks, through retry-after-ms or Retry-After
// (seconds or an HTTP date), or, with neither header, through the
// retryDelay of a google.rpc.RetryInfo in its JSON error body (Gemini's
// 429), for a longer wait than d, the exchange does not
// retry early against the server's wish: it ends with that answer's
// [*StatusError], whose Header (or Body) still carries the server's wait so that the
// caller can decide. The default is [DefaultMaxRetryAfter]; 0 honours only "retry
// now". A negative d is an [*OptionError].
func WithMaxRetryAfter(d time.Duration) Option { return durationOption{"WithMaxRetryAfter", d} }

type observerOption struct{ fn func(Event) }

// WithObserver makes the Client call fn with an [Event] at each step of every
// exchange: an attempt starting, a retry and its wait, the response status,
// and the end with the bytes handed to the caller and the duration. fn runs
// synchronously on the goroutine that called [Client.Do] or is reading or
// closing the body, so it must be quick and, as one Client serves many
// goroutines, safe for concurrent use. Events never carry a header, a
// request body or a secret query value. nil turns observation off (the
// default).
func WithObserver(fn func(Event)) Option { return observerOption{fn} }

func (o observerOption) apply(c *config) { c.observer = o.fn }

func (o observerOption) String() string {
	if o.fn == nil {
		return "transport.WithObserver(nil)"
	}
	return "transport.WithObserver(func)"
}

type loggerOption struct{ l *slog.Logger }

// WithLogger logs every [Event] of every exchange on l at debug level —
// the attempt, a retry with its status, wait and cause, the response
// status (its elapsed time is the time to the first byte), the end with
// the bytes handed on and how it ended — with the request's context, as
// attributes (method, url, attempt, status, wait, bytes, elapsed, err).
// Nothing is logged by default, and nothing a log line holds carries a
// credential: the URL and the error are redacted as every event is. It
// works beside [WithObserver]; nil turns logging off.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

func (o loggerOption) apply(c *config) { c.logger = o.l }

func (o loggerOption) String() string {
	if o.l == nil {
		return "transport.WithLogger(nil)"
	}
	return "transport.WithLogger(*slog.Logger)"
}

type proxyOption struct {
	fn func(*http.Request) (*url.URL, error)
}

// WithProxy sets the function that picks a proxy for each request, as
// [http.Transport.Proxy] does. The default is [http.ProxyFromEnvironment],
// which honours HTTP_PROXY, HTTPS_PROXY and NO_PROXY (read once per process)
// and never proxies requests to localhost. nil means no proxy.
func WithProxy(fn func(*http.Request) (*url.URL, error)) Option { return proxyOption{fn} }

func (o proxyOption) apply(c *config) { c.proxy = o.fn }

func (o proxyOption) String() string {
	if o.fn == nil {
		return "transport.WithProxy(nil)"
	}
	return "transport.WithProxy(func)"
}
