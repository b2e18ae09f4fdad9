package llmstreamtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Request bodies the tests send.
const (
	chatBody      = `{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	chatBodyUsage = `{"model":"test-model","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
)

// response is what a test client got back.
type response struct {
	status  int
	header  http.Header
	body    []byte
	readErr error // the error that ended reading the body, nil at a clean end
}

// post sends body to srv.URL+path with the server's client and reads the
// whole answer.
func post(t *testing.T, srv *Server, path, body string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, readErr := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b, readErr: readErr}
}

// stream posts a chat request and decodes the stream, failing the test if
// the answer is not a 200 stream that reads cleanly.
func stream(t *testing.T, srv *Server, body string) decoded {
	t.Helper()
	r := post(t, srv, "/chat/completions", body)
	if r.status != http.StatusOK || r.readErr != nil {
		t.Fatalf("status %d, read error %v, body %s", r.status, r.readErr, r.body)
	}
	d, err := decodeStream(r.body)
	if err != nil {
		t.Fatalf("decoding the stream: %v\n%s", err, r.body)
	}
	return d
}
