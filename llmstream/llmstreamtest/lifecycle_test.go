package llmstreamtest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
)

// TestClientOptionsRetry: the options keep airlock's transport, which
// retries a scripted 429; Client, a plain *http.Client, does not.
func TestClientOptionsRetry(t *testing.T) {
	turn := Turn{Text: "after two failures", Fault: Fault{Kind: FaultStatus, Status: 429, Attempts: 2}}
	srv := NewTestServer(t, WithTurns(turn))
	m, err := llmstream.NewClient(srv.ClientOptions()...).Stream(t.Context(), llmstream.Request{})
	if err != nil || m.Content != "after two failures" || len(srv.Requests()) != 3 {
		t.Fatalf("with ClientOptions: %q, %v, %d requests", m.Content, err, len(srv.Requests()))
	}
	plain := NewTestServer(t, WithTurns(turn))
	_, err = llmstream.NewClient(llmstream.WithBaseURL(plain.URL), llmstream.WithHTTPClient(plain.Client())).Stream(t.Context(), llmstream.Request{})
	var api *llmstream.APIError
	if !errors.As(err, &api) || api.StatusCode != 429 || len(plain.Requests()) != 1 {
		t.Errorf("with Client: %v after %d requests; want the 429 at once", err, len(plain.Requests()))
	}
}

// TestExhaustedScriptIsNotRetried: a request past the script fails once,
// naming the script, and a retrying client does not ask again.
func TestExhaustedScriptIsNotRetried(t *testing.T) {
	srv := NewServer(WithTurns(Turn{Text: "only one"}))
	defer srv.Close()
	c := llmstream.NewClient(srv.ClientOptions()...)
	if _, err := c.Stream(t.Context(), llmstream.Request{}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Stream(t.Context(), llmstream.Request{})
	if err == nil || !strings.Contains(err.Error(), "all 1 scripted turns are used") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; the exhausted script was retried", n)
	}
}

func TestTLS(t *testing.T) {
	srv := NewTestServer(t, WithTLS(), WithTurns(Turn{Text: "secure"}, Turn{Text: "again"}))
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") {
		t.Fatalf("URL %q", srv.URL)
	}
	m, err := llmstream.NewClient(srv.ClientOptions()...).Stream(t.Context(), llmstream.Request{})
	if err != nil || m.Content != "secure" {
		t.Fatalf("ClientOptions over TLS: %q, %v", m.Content, err)
	}
	r := post(t, srv, "/v1/chat/completions", chatBody) // srv.Client() trusts it too
	if r.status != 200 {
		t.Errorf("Client over TLS: status %d", r.status)
	}
	_, err = llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, 0, 0)))).Stream(t.Context(), llmstream.Request{})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a client that does not trust the certificate: %v", err)
	}
}

func TestHandler(t *testing.T) {
	h := NewHandler(WithTurns(Turn{Text: "mounted"}))
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/llm/", http.StripPrefix("/llm", h))
	outer := httptest.NewServer(mux)
	defer outer.Close()
	m, err := llmstream.NewClient(llmstream.WithBaseURL(outer.URL+"/llm/v1"), llmstream.WithHTTPClient(outer.Client())).Stream(t.Context(), llmstream.Request{})
	if err != nil || m.Content != "mounted" {
		t.Fatalf("through a mounted handler: %q, %v", m.Content, err)
	}
	if reqs := h.Requests(); len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" {
		t.Errorf("requests %+v", reqs)
	}
	if h.URL != "" {
		t.Errorf("URL %q for a handler", h.URL)
	}
}

// TestHandlerClientOptions: a handler has no URL of its own, so the
// options it hands out must fail every call at once rather than fall back
// to the default base URL, which would send the test key to
// api.openai.com; with the URL it is mounted at added, they work.
func TestHandlerClientOptions(t *testing.T) {
	h := NewHandler(WithTurns(Turn{Text: "mounted"}))
	defer h.Close()
	var dialed []string
	spy := doerFunc(func(r *http.Request) (*http.Response, error) {
		dialed = append(dialed, r.URL.String())
		return nil, errors.New("the spy sends nothing")
	})
	_, err := llmstream.NewClient(append(h.ClientOptions(), llmstream.WithHTTPClient(spy))...).Stream(t.Context(), llmstream.Request{})
	if !errors.Is(err, llmstream.ErrInvalidRequest) || !strings.Contains(err.Error(), "WithBaseURL") || len(dialed) != 0 {
		t.Errorf("ClientOptions of a handler: err %v, requests sent to %q", err, dialed)
	}
	outer := httptest.NewServer(h)
	defer outer.Close()
	m, err := llmstream.NewClient(append(h.ClientOptions(), llmstream.WithBaseURL(outer.URL))...).Stream(t.Context(), llmstream.Request{})
	if err != nil || m.Content != "mounted" {
		t.Errorf("ClientOptions with the mounted URL: %q, %v", m.Content, err)
	}
}

// TestCloseReportsAStuckResponder: Close says which request it waits for.
func TestCloseReportsAStuckResponder(t *testing.T) {
	defer func(d time.Duration) { closeReportAfter = d }(closeReportAfter)
	closeReportAfter = 50 * time.Millisecond
	release, entered := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var reports []string
	srv := NewServer(WithResponder(func(Request) Turn {
		close(entered)
		<-release
		return Turn{Text: "late"}
	}), reportOption{func(msg string) { mu.Lock(); reports = append(reports, msg); mu.Unlock() }})
	go func() {
		// Close cuts the connection: the client's error is expected.
		if resp, err := srv.Client().Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(anthropicBody)); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	deadline := time.After(10 * time.Second)
	for {
		mu.Lock()
		n := len(reports)
		mu.Unlock()
		if n > 0 {
			break
		}
		select {
		case <-closed:
			t.Fatal("Close returned while the responder still ran")
		case <-deadline:
			t.Fatal("Close reported nothing")
		case <-time.After(10 * time.Millisecond):
		}
	}
	close(release)
	<-closed
	if !strings.Contains(reports[0], "request 1 (POST /v1/messages), still in the responder") {
		t.Errorf("report %q", reports[0])
	}
}

// doerFunc adapts a function to llmstream.Doer.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
