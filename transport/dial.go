package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"time"
)

// dialer makes the connections of one Client. The connect timeout is one
// budget, started when the dial starts, that the TCP dial and the TLS
// handshake after it share: a dial that took 9 s of a 10 s budget leaves the
// handshake 1 s. net/http's own TLSHandshakeTimeout would start a second,
// separate clock after the dial, so https connections are made here, through
// http.Transport.DialTLSContext, with one context deadline over both steps.
//
// Through a proxy, net/http dials the proxy with dial (inside the budget) and
// then does the CONNECT and the server's TLS handshake itself; those steps
// keep net/http's bounds (one minute for CONNECT, TLSHandshakeTimeout set to
// the connect timeout for the handshake).
type dialer struct {
	budget time.Duration // 0: no budget of our own
	// tls is the configuration for the handshakes made here, with ALPN
	// offering h2 and http/1.1 unless the caller chose protocols.
	tls *tls.Config
	// dialContext makes the TCP connection; a net.Dialer's, replaced in
	// tests to stand for a slow network.
	dialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

func newDialer(budget time.Duration, tlsCfg *tls.Config) *dialer {
	cfg := new(tls.Config)
	if tlsCfg != nil {
		cfg = tlsCfg.Clone()
	}
	if len(cfg.NextProtos) == 0 {
		// With a dial function of our own, the transport no longer adds
		// ALPN; without "h2" offered here the server would never pick
		// HTTP/2.
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	nd := &net.Dialer{KeepAlive: 30 * time.Second}
	return &dialer{budget: budget, tls: cfg, dialContext: nd.DialContext}
}

// withBudget bounds ctx by the connect budget, starting now.
func (d *dialer) withBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	if d.budget <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d.budget)
}

// dial makes a plain TCP connection (to an http server or to a proxy) within
// the budget.
func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := d.withBudget(ctx)
	defer cancel()
	return d.dialContext(ctx, network, addr)
}

// dialTLS makes a TCP connection and completes its TLS handshake, both
// within the one budget. It returns the *tls.Conn, from which the transport
// reads the negotiated protocol to choose HTTP/2 or HTTP/1.1.
func (d *dialer) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := d.withBudget(ctx)
	defer cancel()
	raw, err := d.dialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := d.tls.Clone()
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			raw.Close()
			return nil, err
		}
		cfg.ServerName = host
	}
	conn := tls.Client(raw, cfg)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// net/http's dial context carries no deadline of its own, so
			// this is the budget. Say so as a net timeout does (Timeout
			// true, os.ErrDeadlineExceeded), rather than with
			// context.DeadlineExceeded, which callers take to mean that
			// their own context expired.
			return nil, &net.OpError{Op: "TLS handshake", Net: network, Addr: raw.RemoteAddr(), Err: os.ErrDeadlineExceeded}
		}
		return nil, err
	}
	return conn, nil
}
