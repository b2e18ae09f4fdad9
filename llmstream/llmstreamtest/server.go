package llmstreamtest

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// Server is a fake model server on a loopback port, serving scripted turns
// as SSE streams in the wire format of the path each request came to (see
// the package documentation for the paths). Create it with [NewServer] or
// [NewTestServer], or mount it with [NewHandler]; end it with
// [Server.Close].
//
// It serves POST requests with "stream": true (for Gemini, the
// streamGenerateContent path says so); anything else is answered with the
// dialect's JSON error and recorded with [ErrBadRequest].
//
// A Server is safe for concurrent use: it serves any number of requests at
// once, and its methods may be called from any goroutine.
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:<port>", with no
	// trailing slash. Either URL or URL+"/v1" works as a client's base URL,
	// since the server answers both /chat/completions and
	// /v1/chat/completions: give llmstream.WithBaseURL the URL as it is,
	// and clients that append "chat/completions" to an OpenAI-style base
	// (openai-go, go-openai) URL+"/v1".
	URL string

	cfg    config
	cfgErr error        // what is wrong with cfg (an *OptionError), nil when nothing is
	hs     *http.Server // nil for a server from NewHandler
	client *http.Client
	tls    *tls.Config       // the client side's trust of the server's certificate, for WithTLS
	tr     *transport.Client // made by ClientOptions, closed by Close

	done      chan struct{} // closed by Close: ends stalls and waits
	serveDone chan struct{} // closed when Serve has returned
	closeOnce sync.Once
	handlers  sync.WaitGroup
	conns     sync.WaitGroup // one per connection until net/http reports it closed

	respMu sync.Mutex // serializes calls of the responder

	mu       sync.Mutex // guards the fields below
	closed   bool
	inFlight map[int]string // requests being served: seq → "METHOD path"
	seq      int
	reqs     []Request
	pos      int // the next turn of cfg.turns
	failed   int // status answers already given for turns[pos]
}

// NewServer starts a server on a random port of 127.0.0.1 and returns it.
// It needs no testing.TB, so programs (the offline demo agent) can use it.
// As net/http/httptest.NewServer does, it panics if it cannot listen on
// the loopback interface — a broken machine, not a bad value. Invalid
// option values do not panic; they fail every request with an
// [*OptionError] (errors.Is [ErrInvalidOption]).
func NewServer(opts ...Option) *Server {
	s, err := newServer(opts)
	if err != nil {
		panic(err)
	}
	return s
}

// TB is the part of testing.TB that [NewTestServer] uses; *testing.T,
// *testing.B, *testing.F and testing.TB itself are TBs. It is an interface
// of this package so that a program importing llmstreamtest (the offline
// demo agent) does not link the testing and flag packages.
type TB interface {
	Helper()
	Log(args ...any)
	Fatal(args ...any)
	Errorf(format string, args ...any)
	Cleanup(func())
}

// NewTestServer starts a server as [NewServer] does and registers its
// Close with tb.Cleanup. At cleanup it also reports, with tb.Errorf, every
// request that failed because of the script rather than the client
// ([ErrNoTurn], [ErrBadTurn], [ErrInvalidOption]), so a script mistake cannot
// pass unnoticed; a test that wants such failures should use [NewServer].
func NewTestServer(tb TB, opts ...Option) *Server {
	tb.Helper()
	s, err := newServer(append(opts, reportOption{func(msg string) { tb.Log(msg) }}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		s.Close()
		for _, r := range s.Requests() {
			if errors.Is(r.Err, ErrNoTurn) || errors.Is(r.Err, ErrBadTurn) || errors.Is(r.Err, ErrInvalidOption) {
				tb.Errorf("llmstreamtest: the script failed a request: %v", r.Err)
			}
		}
	})
	return s
}

// NewHandler returns the fake server as an http.Handler only
// ([Server.ServeHTTP]): a *Server that does not listen, to mount in a
// server of your own, with Requests and Close as usual. Its URL is
// empty, its Client is a plain *http.Client, and its ClientOptions name no
// server: add llmstream.WithBaseURL with the URL you mounted it at, or
// every call fails with llmstream.ErrInvalidRequest (it never falls back
// to a provider's default URL). Everything else — the script, Requests,
// faults, Close ending stalls and waiting for the handlers — works as for
// [NewServer].
func NewHandler(opts ...Option) *Server {
	s := &Server{cfg: newConfig(opts), done: make(chan struct{}), serveDone: make(chan struct{}), client: &http.Client{}}
	s.cfgErr = s.cfg.check()
	close(s.serveDone)
	return s
}

func newServer(opts []Option) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmstreamtest: listening on 127.0.0.1: %w", err)
	}
	s := &Server{
		URL:       "http://" + ln.Addr().String(),
		cfg:       newConfig(opts),
		done:      make(chan struct{}),
		serveDone: make(chan struct{}),
	}
	s.cfgErr = s.cfg.check()
	tr := &http.Transport{}
	if s.cfg.tls {
		serverTLS, clientTLS, err := selfSigned()
		if err != nil {
			ln.Close()
			return nil, err
		}
		ln = tls.NewListener(ln, serverTLS)
		s.URL = "https://" + ln.Addr().String()
		s.tls, tr.TLSClientConfig = clientTLS, clientTLS.Clone()
	}
	s.client = &http.Client{Transport: tr}
	// A client that refuses the certificate is a test's own doing: its
	// handshake errors are not worth a log line.
	s.hs = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second, ConnState: s.connState,
		ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		defer close(s.serveDone)
		s.hs.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// ServeHTTP serves one request as the server does on its own port, for a
// server made with [NewHandler] and mounted in yours. The paths it answers
// are the same (mount it at the root, or strip your prefix).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r) }

// ClientOptions returns the options of an llmstream.Client for this
// server: its URL, a test key, and airlock's own transport with the
// server's TLS trust and fast retries (1 ms, then 10 ms), so that a
// scripted [FaultStatus] with [Fault.Attempts] is retried the way the
// default client retries a real server, without its half-second waits.
// Every call returns options around the same transport, whose idle
// connections [Server.Close] closes. Add WithDialect for a dialect other
// than chat, and for Gemini WithModel too (its URL names the model). For
// a server from [NewHandler], which has no URL, add WithBaseURL.
//
// [Server.Client] is a plain *http.Client: passed to
// llmstream.WithHTTPClient it replaces airlock's transport, so nothing is
// retried and none of its limits apply.
func (s *Server) ClientOptions() []llmstream.ClientOption {
	s.mu.Lock()
	if s.tr == nil {
		topts := []transport.Option{transport.WithRetry(2, time.Millisecond, 10*time.Millisecond)}
		if s.tls != nil {
			topts = append(topts, transport.WithTLSConfig(s.tls))
		}
		s.tr = transport.New(topts...)
	}
	tr := s.tr
	s.mu.Unlock()
	base := s.URL
	if base == "" {
		base = handlerBaseURL
	}
	return []llmstream.ClientOption{llmstream.WithBaseURL(base), llmstream.WithAPIKey("llmstreamtest-key"), llmstream.WithHTTPClient(tr)}
}

// handlerBaseURL is the base URL in the ClientOptions of a server from
// NewHandler. It is not http, so every call fails before sending and its
// error says what to add; an empty one would mean the provider's default
// URL, and the test key sent there.
const handlerBaseURL = "llmstreamtest-handler:add-WithBaseURL(the-URL-you-mounted-it-at)"

// Client returns an HTTP client for the server: plain HTTP to the loopback
// address, no proxy, no timeout of its own. Every call returns the same
// client; [Server.Close] closes its idle connections.
func (s *Server) Client() *http.Client { return s.client }

// Close shuts the server down: it stops accepting, ends stalls and event
// delays, drops every connection (a stream in progress ends with an
// error at the client), waits until every handler has returned, and closes
// the idle connections of [Server.Client]. It is safe to call more than
// once and from several goroutines; every call returns after the work is
// done. Requests arriving during Close get 503.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		// Connections first, so that a handler woken from a stall below
		// cannot end its response cleanly: the client must see a cut.
		if s.hs != nil {
			s.hs.Close()
		}
		close(s.done)
		<-s.serveDone
		s.waitHandlers()
		// net/http's connection goroutines outlive http.Server.Close, one
		// of them for up to half a second after a body over the limit.
		s.conns.Wait()
		s.client.CloseIdleConnections()
		s.mu.Lock()
		if s.tr != nil {
			s.tr.CloseIdleConnections()
		}
		s.mu.Unlock()
	})
}

// closeReportAfter is how long Close waits for the handlers before it
// says which requests are still being handled.
var closeReportAfter = 5 * time.Second

// waitHandlers waits until every handler has returned. A handler can only
// outlast Close in the caller's own responder (WithResponder), which Close
// cannot interrupt: after closeReportAfter it reports the requests still
// being handled, on the server's report function (tb.Logf for a test
// server, standard error otherwise), and goes on waiting, as httptest's
// Close does.
func (s *Server) waitHandlers() {
	finished := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(finished)
	}()
	t := time.NewTimer(closeReportAfter)
	defer t.Stop()
	select {
	case <-finished:
		return
	case <-t.C:
	}
	s.mu.Lock()
	var still []string
	for seq, what := range s.inFlight {
		still = append(still, fmt.Sprintf("request %d (%s)", seq, what))
	}
	s.mu.Unlock()
	sort.Strings(still)
	s.cfg.report(fmt.Sprintf("llmstreamtest: Close has waited %v for %s, still in the responder; it waits on", closeReportAfter, strings.Join(still, ", ")))
	<-finished
}

// connState counts connections from net/http's first report of one to its
// last; Serve reports every new one before Close can stop it.
func (s *Server) connState(_ net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.conns.Done()
	}
}

// Requests returns what the server has received so far, in [Request.Seq]
// order, including bad requests. The slice and everything in it are a deep
// copy the caller owns. A request shows up once its body has been read;
// its Err may still be set later while its turn is chosen and checked.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = r.clone()
	}
	return out
}

// serve handles one request: record it, choose its turn, answer it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		wr, _, ok := wireFor(r.URL.Path)
		if !ok {
			wr = chatWire{}
		}
		writeError(w, wr, http.StatusServiceUnavailable, errors.New("llmstreamtest: server closed"))
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	body, readErr := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.maxBody))
	req.Body = body
	wr, pathModel, served := wireFor(r.URL.Path)
	var decodeErr error
	if served {
		req.Dialect = wr.dialect()
		decodeErr = wr.decode(&req)
		req.Output = requestOutput(req.Dialect, body)
		if pathModel != "" {
			req.Model = pathModel
		}
	} else {
		wr = chatWire{}
	}

	s.mu.Lock()
	s.seq++
	req.Seq = s.seq
	idx := len(s.reqs)
	s.reqs = append(s.reqs, req.clone())
	if s.inFlight == nil {
		s.inFlight = make(map[int]string)
	}
	s.inFlight[req.Seq] = req.Method + " " + req.Path
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inFlight, req.Seq)
		s.mu.Unlock()
	}()

	status, detail, category := s.checkRequest(&req, served, readErr, decodeErr)
	if category != nil {
		s.fail(w, wr, idx, status, &RequestError{Seq: req.Seq, Detail: detail, Err: category})
		return
	}
	t, detail, category := s.turnFor(&req)
	if category != nil {
		s.fail(w, wr, idx, http.StatusInternalServerError, &RequestError{Seq: req.Seq, Detail: detail, Err: category})
		return
	}
	if t.Fault.Kind == FaultStatus {
		if _, inBody := wr.(interface{ retryInBody() }); t.Fault.RetryAfter != "" && !inBody {
			w.Header().Set("Retry-After", t.Fault.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		setErrorHeader(w.Header(), wr, t.Fault.status(), t.Fault)
		w.WriteHeader(t.Fault.status())
		w.Write(wr.errorBody(t.Fault.status(), t.Fault))
		return
	}
	rd := newRenderer(&s.cfg, wr, &req, t)
	evs, err := rd.render()
	if err != nil {
		s.fail(w, wr, idx, http.StatusInternalServerError, &RequestError{Seq: req.Seq, Detail: err.Error(), Err: ErrBadTurn})
		return
	}
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), ctx: r.Context(), done: s.done, delay: s.cfg.delay}
	sw.stream(rd, evs)
}

// checkRequest returns the status, detail and category of what is wrong
// with the request, a nil category when nothing is.
func (s *Server) checkRequest(req *Request, served bool, readErr, decodeErr error) (int, string, error) {
	var tooBig *http.MaxBytesError
	switch {
	case s.cfgErr != nil:
		return http.StatusInternalServerError, "", s.cfgErr
	case req.Method != http.MethodPost:
		return http.StatusMethodNotAllowed, "method " + req.Method + ", want POST", ErrBadRequest
	case !served:
		return http.StatusNotFound, fmt.Sprintf("path %q, want %s", req.Path, allPaths()), ErrBadRequest
	case errors.As(readErr, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("body is over the limit of %d bytes", tooBig.Limit), ErrBadRequest
	case readErr != nil:
		return http.StatusBadRequest, "reading the body: " + readErr.Error(), ErrBadRequest
	case decodeErr != nil:
		return http.StatusBadRequest, "body is not a " + req.Dialect.String() + " request: " + decodeErr.Error(), ErrBadRequest
	case !req.Stream:
		return http.StatusBadRequest, `"stream" is not true; the server serves only streaming requests`, ErrBadRequest
	}
	return 0, "", nil
}

// turnFor returns the turn that answers req, or the detail and category of
// why there is none.
func (s *Server) turnFor(req *Request) (Turn, string, error) {
	if f := s.cfg.responder; f != nil {
		s.respMu.Lock()
		defer s.respMu.Unlock()
		t := f(req.clone()).clone()
		if msg := t.check(); msg != "" {
			return Turn{}, msg, ErrBadTurn
		}
		return t, "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos >= len(s.cfg.turns) {
		if len(s.cfg.turns) == 0 {
			return Turn{}, "no script: give WithTurns or WithResponder", ErrNoTurn
		}
		return Turn{}, fmt.Sprintf("all %d scripted turns are used", len(s.cfg.turns)), ErrNoTurn
	}
	t := s.cfg.turns[s.pos]
	if msg := t.check(); msg != "" {
		// A bad turn is used up like any other, so the script moves on.
		s.pos++
		return Turn{}, msg, ErrBadTurn
	}
	if t.Fault.Kind == FaultStatus && t.Fault.Attempts > 0 {
		if s.failed < t.Fault.Attempts {
			s.failed++
			return t, "", nil
		}
		// The failures are done; this attempt gets the stream.
		s.failed = 0
		t.Fault = Fault{}
	}
	s.pos++
	return t, "", nil
}

// fail records err on request idx and answers it in the request's
// dialect.
func (s *Server) fail(w http.ResponseWriter, wr wire, idx, status int, err *RequestError) {
	s.mu.Lock()
	s.reqs[idx].Err = err
	s.mu.Unlock()
	if !errors.Is(err, ErrBadRequest) {
		// A script mistake is not a server that may recover: a retrying
		// client (airlock's transport, openai-go, anthropic-sdk-go) gives
		// up at once instead of retrying into the same failure.
		w.Header().Set("X-Should-Retry", "false")
	}
	writeError(w, wr, status, err)
}

// writeError answers with status and the dialect's JSON error.
func writeError(w http.ResponseWriter, wr wire, status int, err error) {
	if status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	typ := ""
	if _, chat := wr.(chatWire); chat {
		typ = "invalid_request_error"
		if status >= 500 {
			typ = "server_error"
		}
	}
	w.Header().Set("Content-Type", "application/json")
	setErrorHeader(w.Header(), wr, status, Fault{Message: err.Error(), Type: typ})
	w.WriteHeader(status)
	w.Write(wr.errorBody(status, Fault{Message: err.Error(), Type: typ}))
}

// setErrorHeader sets the headers of an HTTP error answer that the wire
// names its error type in (Bedrock's x-amzn-ErrorType).
func setErrorHeader(h http.Header, wr wire, status int, f Fault) {
	if eh, ok := wr.(interface{ errorHeader(http.Header, int, Fault) }); ok {
		eh.errorHeader(h, status, f)
	}
}
