package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Client sends HTTP requests and hands back response bodies that enforce the
// limits it was made with. Make one with [New]; the zero Client has no
// configuration, and its Do returns an error.
//
// A Client is safe for concurrent use by many goroutines. It keeps its own
// connection pool, so reuse one Client rather than making one per request;
// [Client.CloseIdleConnections] empties the pool.
type Client struct {
	cfg config
	err error // from the options; returned by every Do
	tr  *http.Transport
	hc  *http.Client
}

// New returns a Client with the defaults ([DefaultTimeout],
// [DefaultConnectTimeout], [DefaultLowSpeedBytesPerSecond] over
// [DefaultLowSpeedWindow], [DefaultMaxStreamBytes], [DefaultMaxRetries],
// TLS verification on, proxies from the environment) changed by opts, applied
// in order so that a later option wins. nil options are skipped.
//
// New never fails and never panics: an option with a bad value is kept as an
// [*OptionError] that every [Client.Do] returns.
func New(opts ...Option) *Client {
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	c := &Client{cfg: cfg}
	if len(cfg.errs) > 0 {
		c.err = errors.Join(cfg.errs...)
		if len(cfg.errs) == 1 {
			c.err = cfg.errs[0]
		}
		return c
	}
	c.tr = newHTTPTransport(&c.cfg)
	// The http.Client adds redirects (with GetBody replay, and credentials
	// dropped when a redirect leaves the host); every limit is ours.
	c.hc = &http.Client{Transport: c.tr, CheckRedirect: checkRedirect}
	return c
}

// newHTTPTransport builds the connection pool: http.DefaultTransport's
// settings, with our connect timeout, TLS configuration and proxy choice.
// https connections are dialled by our dialer so that the connect timeout is
// one budget for the dial and the handshake; ForceAttemptHTTP2 keeps HTTP/2
// on although custom dial functions and TLSClientConfig are set, which would
// otherwise turn it off, and the dialer offers h2 through ALPN.
func newHTTPTransport(cfg *config) *http.Transport {
	tlsCfg := cfg.tls
	if cfg.insecure {
		if tlsCfg == nil {
			tlsCfg = new(tls.Config)
		}
		tlsCfg.InsecureSkipVerify = true
	}
	d := newDialer(cfg.connectTimeout, tlsCfg)
	return &http.Transport{
		Proxy:          cfg.proxy,
		DialContext:    d.dial,
		DialTLSContext: d.dialTLS,
		// Used only for the server's handshake through a proxy's CONNECT
		// tunnel, which net/http makes itself.
		ForceAttemptHTTP2:     true,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   cfg.connectTimeout,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Do sends req and returns the response of its last attempt, with the same
// shape as [http.Client.Do], so that code written against an interface with
// that one method takes either.
//
// Do returns only 2xx responses. Their Body enforces the limits while the
// caller reads it: the stream cap ([WithMaxStreamBytes]), the low-speed rule
// ([WithLowSpeed]) and the total timeout ([WithTimeout]), each with its
// error; it returns io.EOF at the end. The caller must Close the Body, which
// releases the connection and every timer the exchange started; no goroutine
// of the Client outlives it.
//
// Any other status is returned as a [*StatusError], its body read (up to
// [MaxErrorBodyBytes]) and closed. Failed attempts are retried before Do
// returns, as [WithRetry] describes: connection failures (dial, proxy, TLS
// handshake, connect timeout) and the answers 408, 409, 429 and 5xx
// (Anthropic's 529 among them), unless the server's "x-should-retry" says
// otherwise ("false" stops the retries, "true" allows one whatever the
// status); the wait is the server's retry-after-ms or Retry-After (seconds
// or HTTP date), or with neither the retryDelay of a google.rpc.RetryInfo
// detail in a JSON error body (as Gemini answers a 429), up to
// [DefaultMaxRetryAfter], else an exponential backoff with jitter; once Do
// has returned a response, nothing is retried. Redirects are followed as
// by http.Client (at most 10, the body replayed), except that a redirect
// to another host name (a subdomain too) or from https to http drops every
// header that carries a credential, whatever its name (see below); each
// redirect counts against the same limits. The request body is closed, as by http.Client,
// even on errors;
// to retry, Do replays it through req.GetBody, or buffers a body without one
// (up to [MaxBufferedRequestBytes]; a longer one disables retries).
//
// Cancelling req's context ends Do, or a Read of the body, at once with an
// error that matches [context.Canceled]; its deadline passing gives a
// [*TimeoutError] that matches both [ErrTimeout] and
// [context.DeadlineExceeded]. Other errors: [*OptionError] (bad options),
// [*TimeoutError] (total or connect timeout), [*StalledError],
// [*StreamTooLargeError] (a declared Content-Length over the cap),
// [ErrMisuse] (a zero Client, a nil request or one without a URL), and the
// network errors of net/http, such as a *url.Error.
//
// No error and no [Event] carries a credential of the request: the value of
// a header whose name marks one (Authorization, Proxy-Authorization,
// Api-Key, X-Api-Key, X-Goog-Api-Key, Cookie, any name with "key", "token",
// "secret", "auth", ...), the URL's userinfo, or a secret query value (key,
// api-key, api_key, token, sig, ...). net/http's *url.Error is rewritten
// with the URL redacted, a proxy address net/http cannot use is printed
// without its user and password, and a credential the server echoed is
// replaced by "REDACTED" in a [StatusError]'s Body and every error text.
// Values shorter than 8 bytes are not treated as secrets.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	switch {
	case c.err != nil:
		closeRequestBody(req)
		return nil, c.err
	case c.hc == nil:
		closeRequestBody(req)
		return nil, fmt.Errorf("%w: Client not made by New", ErrMisuse)
	case req == nil:
		return nil, fmt.Errorf("%w: nil Request", ErrMisuse)
	case req.URL == nil:
		closeRequestBody(req)
		return nil, fmt.Errorf("%w: Request without a URL", ErrMisuse)
	}
	return newExchange(c, req).run()
}

// CloseIdleConnections closes the connections of the pool that are not
// carrying a request; those in use are left alone. It is safe to call at any
// time, also concurrently with Do.
func (c *Client) CloseIdleConnections() {
	if c.tr != nil {
		c.tr.CloseIdleConnections()
	}
}

func closeRequestBody(req *http.Request) {
	if req != nil && req.Body != nil {
		req.Body.Close()
	}
}
