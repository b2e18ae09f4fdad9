package transport_test

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
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// newTLSServer starts a loopback HTTPS server with httptest's self-signed
// certificate, speaking HTTP/2 when the client offers it.
func newTLSServer(tb testing.TB, hits *counter) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.next()
		io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	// The refused handshakes would otherwise be logged as noise.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	return srv
}

func trustOnly(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
}

func TestTLS(t *testing.T) {
	var hits counter
	srv := newTLSServer(t, &hits)
	tests := []struct {
		name      string
		opts      []transport.Option
		wantProto string // "" when the handshake must be refused
	}{
		{"self-signed refused by default", nil, ""},
		{"accepted with its certificate", []transport.Option{transport.WithTLSConfig(trustOnly(srv))}, "HTTP/2.0"},
		{"accepted with verification off", []transport.Option{transport.WithInsecureSkipVerify()}, "HTTP/2.0"},
		{"nil config keeps verification", []transport.Option{transport.WithTLSConfig(nil)}, ""},
		{"a config without roots still verifies", []transport.Option{transport.WithTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12})}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hits.get()
			c := newClient(t, append(tt.opts, fastRetry)...)
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
			if tt.wantProto == "" {
				var certErr *tls.CertificateVerificationError
				if !errors.As(err, &certErr) {
					t.Fatalf("err = %v, want a certificate verification error", err)
				}
				if hits.get() != before {
					t.Error("the request reached the handler")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != tt.wantProto || resp.ProtoMajor != 2 {
				t.Errorf("served over %q (client %s), want %s", got, resp.Proto, tt.wantProto)
			}
		})
	}
}

func TestTLSConfigCopiedIn(t *testing.T) {
	var hits counter
	srv := newTLSServer(t, &hits)
	cfg := trustOnly(srv)
	c := newClient(t, transport.WithTLSConfig(cfg))
	cfg.RootCAs = x509.NewCertPool() // a later change must not reach the Client
	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// silentListener accepts connections on l and never answers, so a TLS
// handshake with it can only time out. It counts the connections.
func silentListener(tb testing.TB, l *transport.PipeListener) (accepted *counter) {
	tb.Helper()
	accepted = &counter{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.next()
			conns = append(conns, c)
		}
	}()
	tb.Cleanup(func() {
		l.Close()
		<-done
	})
	return accepted
}

// TestConnectTimeoutOnHandshake runs on the fake clock of a synctest bubble,
// so each attempt must take exactly the connect timeout.
func TestConnectTimeoutOnHandshake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const connect = 100 * time.Millisecond
		const backoff = time.Millisecond
		l := transport.NewPipeListener()
		accepted := silentListener(t, l)
		rec := &recorder{}
		c := newPipeClient(t, l, transport.WithConnectTimeout(connect), transport.WithRetry(1, backoff, backoff),
			transport.WithObserver(rec.observe))
		start := time.Now()
		_, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, "https://"+l.Addr().String()+"/", nil))
		elapsed := time.Since(start)
		var te *transport.TimeoutError
		if !errors.Is(err, transport.ErrTimeout) || !errors.As(err, &te) || te.Limit != transport.LimitConnect || te.After != connect {
			t.Fatalf("err = %v, want the connect timeout", err)
		}
		if !strings.Contains(err.Error(), "connect timeout (100ms) expired") {
			t.Errorf("Error() = %q", err)
		}
		if got := rec.kinds(); got != "attempt retry attempt end" {
			t.Errorf("events = %q; a connect timeout is retried", got)
		}
		if accepted.get() != 2 {
			t.Errorf("connections = %d, want 2", accepted.get())
		}
		// Two whole attempts and the jittered backoff between them.
		if elapsed < 2*connect || elapsed > 2*connect+backoff {
			t.Errorf("took %v for two attempts of %v", elapsed, connect)
		}
	})
}
