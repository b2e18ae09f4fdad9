package agentcli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// signingDoer stands for contrib/aws's signer: it marks each request and
// sends it through next.
type signingDoer struct {
	next  llmstream.Doer
	calls int
}

func (d *signingDoer) Do(r *http.Request) (*http.Response, error) {
	d.calls++
	r.Header.Set("X-Signed", "yes")
	return d.next.Do(r)
}

// TestWithDoer: in real mode every request goes through the wrapped Doer
// (over the demo's transport); offline it is never asked for; its error
// stops the run before any request.
func TestWithDoer(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "Hi."}))
	var signer *signingDoer
	wraps := 0
	wrap := WithDoer(func(_ context.Context, next llmstream.Doer) (llmstream.Doer, error) {
		wraps++
		signer = &signingDoer{next: next}
		return signer, nil
	})
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", demoWorkspace(t), "--base-url", srv.URL, "-e", "hi"}, &stdout, &stderr, envOf(nil), wrap)
	if code != exitOK || wraps != 1 || signer.calls != 1 || srv.Requests()[0].Header.Get("X-Signed") != "yes" {
		t.Fatalf("exit %d, %d wraps, %d calls through it; stderr %q", code, wraps, signer.calls, stderr.String())
	}

	wraps = 0
	code = run(t.Context(), []string{"--workspace", demoWorkspace(t), "--offline-delay", "0"}, &stdout, &stderr, envOf(nil), wrap)
	if code != exitOK || wraps != 0 {
		t.Errorf("offline: exit %d, %d wraps; want the wrap unused", code, wraps)
	}

	stderr.Reset()
	failing := WithDoer(func(context.Context, llmstream.Doer) (llmstream.Doer, error) {
		return nil, errors.New("no credentials")
	})
	code = run(t.Context(), []string{"--workspace", demoWorkspace(t), "--base-url", srv.URL, "-e", "hi"}, &stdout, &stderr, envOf(nil), failing)
	if code != exitFailed || !strings.Contains(stderr.String(), "agent: no credentials") || len(srv.Requests()) != 1 {
		t.Errorf("failing wrap: exit %d, stderr %q, %d requests", code, stderr.String(), len(srv.Requests()))
	}
}
