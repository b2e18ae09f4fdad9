package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// slowHandshakeListener delays the first Read of every accepted connection,
// which is where a TLS server waits for the ClientHello, so the server's
// half of the handshake starts late. The wait ends early when the
// connection is closed, so that the server's Close does not wait it out.
type slowHandshakeListener struct {
	net.Listener
	delay time.Duration
}

func (l slowHandshakeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &slowConn{Conn: c, delay: l.delay, closed: make(chan struct{})}, nil
}

type slowConn struct {
	net.Conn
	delay     time.Duration
	first     sync.Once
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *slowConn) Read(p []byte) (int, error) {
	c.first.Do(func() {
		t := time.NewTimer(c.delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.closed:
		}
	})
	return c.Conn.Read(p)
}

func (c *slowConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// newSlowTLSServer starts an HTTPS server, HTTP/2 enabled, whose handshakes
// begin handshakeDelay late. With pipe nil it listens on the loopback
// network; with a pipeListener, on that, for a test inside a
// testing/synctest bubble, where the delays pass on the bubble's fake clock.
func newSlowTLSServer(tb testing.TB, handshakeDelay time.Duration, pipe *pipeListener) (*httptest.Server, *tls.Config) {
	tb.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	if pipe != nil {
		srv.Listener.Close() // a loopback socket, never used
		srv.Listener = pipe
	}
	srv.Listener = slowHandshakeListener{srv.Listener, handshakeDelay}
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the timed-out handshakes
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return srv, &tls.Config{RootCAs: pool}
}

// slowDial stands for a network whose TCP connect takes delay: it waits, as
// a real dial would, no longer than ctx allows, then dials with dial (which
// fails with an i/o timeout once ctx is done).
func slowDial(delay time.Duration, dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return dial(ctx, network, addr)
	}
}

// TestDialerBudgetShared checks that the dial and the TLS handshake share
// one connect budget: two steps that each fit in it but together do not
// must time out, exactly when the budget runs out. It runs on the fake clock
// of a synctest bubble, so every time is exact.
func TestDialerBudgetShared(t *testing.T) {
	const budget = time.Second
	tests := []struct {
		name           string
		dialDelay      time.Duration
		handshakeDelay time.Duration
		wantTimeout    bool
	}{
		{"fast dial and handshake", 0, 0, false},
		{"slow dial, below the budget", 200 * time.Millisecond, 0, false},
		{"slow handshake, below the budget", 0, 200 * time.Millisecond, false},
		{"together one under the budget", 500 * time.Millisecond, 500*time.Millisecond - time.Nanosecond, false},
		{"each below the budget, together above", 600 * time.Millisecond, 600 * time.Millisecond, true},
		{"together one over the budget", 500 * time.Millisecond, 500*time.Millisecond + time.Nanosecond, true},
		{"dial alone above the budget", 3 * time.Second, 0, true},
		{"handshake alone above the budget", 0, 3 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pipe := newPipeListener()
				srv, tlsCfg := newSlowTLSServer(t, tt.handshakeDelay, pipe)
				d := newDialer(budget, tlsCfg)
				d.dialContext = slowDial(tt.dialDelay, pipe.DialContext)
				start := time.Now()
				conn, err := d.dialTLS(context.Background(), "tcp", srv.Listener.Addr().String())
				elapsed := time.Since(start)
				if !tt.wantTimeout {
					if err != nil {
						t.Fatalf("err = %v after %v, want a connection", err, elapsed)
					}
					defer conn.Close()
					if p := conn.(*tls.Conn).ConnectionState().NegotiatedProtocol; p != "h2" {
						t.Errorf("ALPN negotiated %q, want h2", p)
					}
					if want := tt.dialDelay + tt.handshakeDelay; elapsed != want {
						t.Errorf("connected after %v, want %v", elapsed, want)
					}
					return
				}
				if conn != nil {
					conn.Close()
				}
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					t.Fatalf("err = %v, want a net timeout", err)
				}
				if elapsed != budget {
					t.Errorf("timed out after %v, want %v", elapsed, budget)
				}
			})
		})
	}
}

func TestDialerALPN(t *testing.T) {
	srv, tlsCfg := newSlowTLSServer(t, 0, nil)
	h1Only := tlsCfg.Clone()
	h1Only.NextProtos = []string{"http/1.1"}
	tests := []struct {
		name string
		cfg  *tls.Config
		want string
	}{
		{"h2 offered by default", tlsCfg, "HTTP/2.0"},
		{"the caller's protocols kept", h1Only, "HTTP/1.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(WithTLSConfig(tt.cfg))
			defer c.CloseIdleConnections()
			req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(got) != tt.want || resp.Proto != tt.want {
				t.Errorf("served over %q (client %s, err %v), want %s", got, resp.Proto, err, tt.want)
			}
		})
	}
}

// TestDoConnectBudget checks the budget end to end: a handshake that starts
// late but within the connect timeout succeeds; one that would end past it
// is a connect timeout, retried like any connection failure. It runs on the
// fake clock of a synctest bubble, so every time is exact.
func TestDoConnectBudget(t *testing.T) {
	const budget = time.Second
	const backoff = time.Millisecond
	tests := []struct {
		name           string
		handshakeDelay time.Duration
		wantAttempts   int // 0 for success
	}{
		{"well below", 200 * time.Millisecond, 0},
		{"one under", budget - time.Nanosecond, 0},
		{"one over", budget + time.Nanosecond, 2},
		{"above", 3 * time.Second, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pipe := newPipeListener()
				srv, tlsCfg := newSlowTLSServer(t, tt.handshakeDelay, pipe)
				attempts := 0
				c := New(WithTLSConfig(tlsCfg), WithConnectTimeout(budget), WithRetry(1, backoff, backoff),
					WithObserver(func(e Event) {
						if e.Kind == EventAttempt {
							attempts++
						}
					}))
				c.useDial(pipe.DialContext)
				defer c.CloseIdleConnections()
				req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				resp, err := c.Do(req)
				elapsed := time.Since(start)
				if tt.wantAttempts == 0 {
					if err != nil {
						t.Fatalf("err = %v after %v", err, elapsed)
					}
					resp.Body.Close()
					if resp.ProtoMajor != 2 {
						t.Errorf("proto %s, want HTTP/2", resp.Proto)
					}
					if elapsed != tt.handshakeDelay {
						t.Errorf("answered after %v, want %v", elapsed, tt.handshakeDelay)
					}
					return
				}
				var te *TimeoutError
				if !errors.As(err, &te) || te.Limit != LimitConnect || te.After != budget || !errors.Is(err, ErrTimeout) {
					t.Fatalf("err = %v, want the connect timeout", err)
				}
				if attempts != tt.wantAttempts {
					t.Errorf("%d attempts, want %d", attempts, tt.wantAttempts)
				}
				// Each attempt takes the whole budget; the backoff between
				// them is jittered, at most its bound.
				tries := time.Duration(tt.wantAttempts)
				if lo, hi := budget*tries, budget*tries+backoff*(tries-1); elapsed < lo || elapsed > hi {
					t.Errorf("took %v, want between %v and %v", elapsed, lo, hi)
				}
			})
		})
	}
}
