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

// Do sends req and returns the response of its last attempt, with the shape
// of [http.Client.Do]. Only 2xx responses are returned, their Body enforcing
// the limits of the options ([WithTimeout], [WithLowSpeed],
// [WithMaxStreamBytes]) as it is read; the caller must Close it, which
// releases the connection and every timer. Any other status is a
// [*StatusError]; attempts are retried only before Do returns
// ([WithRetry]). Each option's doc names the error its breach returns;
// cancelling req's context ends Do or a Read at once. The README's
// transport section gives redirects, body replay and redaction.
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
