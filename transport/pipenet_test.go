package transport

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
)

// pipeListener is a network in memory for tests that run in a
// testing/synctest bubble. Its DialContext hands Accept one end of a
// net.Pipe. A goroutine waiting on a socket is not durably blocked (the
// kernel could wake it), so in a bubble over the loopback network the fake
// clock would never move; a goroutine waiting on a pipe waits on channels of
// the bubble, which synctest can see. Make it, and the server and the Client
// that use it, inside the bubble.
type pipeListener struct {
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

// pipeAddr is the address a pipeListener says it listens on: a loopback
// address, so that URLs built from it look like httptest's and TLS accepts
// httptest's certificate for it. Nothing listens there.
var pipeAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 443}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr }

// DialContext connects to the listener, whatever addr says. It fails as a
// TCP dial does: refused once the listener is closed, an i/o timeout (a
// net.Error whose Timeout is true) when ctx's deadline passes first.
func (l *pipeListener) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		client.Close()
		server.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	case <-ctx.Done():
		client.Close()
		server.Close()
		err := ctx.Err()
		if errors.Is(err, context.DeadlineExceeded) {
			err = os.ErrDeadlineExceeded
		}
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
}

// useDial makes c's TCP connections with dial: the same dialer and connect
// budget as New's, over another network.
func (c *Client) useDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) {
	d := newDialer(c.cfg.connectTimeout, c.tr.TLSClientConfig)
	d.dialContext = dial
	c.tr.DialContext, c.tr.DialTLSContext = d.dial, d.dialTLS
}
