package transport_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/transport"
)

// newServer starts a loopback HTTP server (httptest listens on 127.0.0.1)
// and closes it when the test ends. Handlers that wait must also return when
// their request's context is done, so that Close does not hang.
func newServer(tb testing.TB, h http.HandlerFunc) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv
}

// newPipeServer starts an HTTP server on an in-memory network, for a test
// inside a testing/synctest bubble, where the clock is fake and moves only
// when every goroutine of the bubble waits: a goroutine waiting on a real
// socket would keep it still. Call it inside the bubble, and make the
// Client with newPipeClient; the server closes when the test ends.
func newPipeServer(tb testing.TB, h http.HandlerFunc) (*httptest.Server, *transport.PipeListener) {
	tb.Helper()
	l := transport.NewPipeListener()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close() // a loopback socket, never used
	srv.Listener = l
	srv.Start()
	tb.Cleanup(srv.Close)
	return srv, l
}

// newPipeClient is newClient over the in-memory network of l.
func newPipeClient(tb testing.TB, l *transport.PipeListener, opts ...transport.Option) *transport.Client {
	tb.Helper()
	c := newClient(tb, opts...)
	transport.UseDial(c, l.DialContext)
	return c
}

// newClient makes a Client whose idle connections are closed when the test
// ends, so that goleak sees no connection goroutines left.
func newClient(tb testing.TB, opts ...transport.Option) *transport.Client {
	tb.Helper()
	c := transport.New(opts...)
	tb.Cleanup(c.CloseIdleConnections)
	return c
}

// recorder collects the events of an observer.
type recorder struct {
	mu     sync.Mutex
	events []transport.Event
}

func (r *recorder) observe(e transport.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []transport.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]transport.Event(nil), r.events...)
}

// kinds returns the kinds of the recorded events, in order, as one string
// such as "attempt retry attempt response end".
func (r *recorder) kinds() string {
	var b strings.Builder
	for i, e := range r.all() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.Kind.String())
	}
	return b.String()
}

// last returns the last recorded event of kind k.
func (r *recorder) last(tb testing.TB, k transport.EventKind) transport.Event {
	tb.Helper()
	events := r.all()
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Kind == k {
			return events[i]
		}
	}
	tb.Fatalf("no %v event in %q", k, r.kinds())
	return transport.Event{}
}

// counter counts requests a handler saw, safely across handler goroutines.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// trackedServer is a server on an in-memory network (see newPipeServer)
// that counts its connections' state changes, to observe connection reuse
// and release from the outside.
type trackedServer struct {
	url    string
	pipe   *transport.PipeListener
	mu     sync.Mutex
	states map[http.ConnState]int
}

func newTrackedServer(tb testing.TB) *trackedServer {
	tb.Helper()
	ts := &trackedServer{states: map[http.ConnState]int{}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		ts.mu.Lock()
		ts.states[s]++
		ts.mu.Unlock()
	}
	ts.pipe = transport.NewPipeListener()
	srv.Listener.Close() // a loopback socket, never used
	srv.Listener = ts.pipe
	srv.Start()
	tb.Cleanup(srv.Close)
	ts.url = srv.URL
	return ts
}

func (ts *trackedServer) count(s http.ConnState) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.states[s]
}
