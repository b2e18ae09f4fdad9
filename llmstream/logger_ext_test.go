package llmstream_test

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// syncBuffer is a bytes.Buffer a logger may write from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestLogger(t *testing.T) {
	var out syncBuffer
	l := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{Text: "hi", Usage: &llmstream.Usage{PromptTokens: 3, CompletionTokens: 2}, Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 503, Attempts: 1, RetryAfter: "0"}},
	))
	c := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"?key="+leakSecret), llmstream.WithAPIKey(leakSecret), llmstream.WithModel("m1"), llmstream.WithLogger(l))
	if _, err := c.Stream(t.Context(), llmstream.Request{}); err != nil {
		t.Fatal(err)
	}
	log := out.String()
	for _, want := range []string{
		`msg="transport: attempt" method=POST url="` + srv.URL + `/v1/chat/completions?key=REDACTED" attempt=1`,
		`msg="transport: retry"`, "status=503", `msg="transport: response"`, `msg="transport: end"`,
		`msg="llmstream: response" dialect=chat model=m1`, "stop=end_turn", "prompt_tokens=3", "completion_tokens=2", "tool_calls=0",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, leakSecret) || strings.Contains(log, url.QueryEscape(leakSecret)) {
		t.Errorf("the log shows the key:\n%s", log)
	}

	// An error is logged with its redacted text.
	out = syncBuffer{}
	echo := echoServer(t)
	llmstream.NewClient(llmstream.WithBaseURL(echo.URL+"/"+url.PathEscape("text body")+"/v1"), llmstream.WithAPIKey(leakSecret), llmstream.WithLogger(l)).Stream(t.Context(), llmstream.Request{})
	if log := out.String(); !strings.Contains(log, "err=") || strings.Contains(log, leakSecret) {
		t.Errorf("error log:\n%s", log)
	}
}

// TestNoLoggingByDefault: without WithLogger nothing reaches slog's default
// logger.
func TestNoLoggingByDefault(t *testing.T) {
	var out syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hi"}))
	if _, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL)).Stream(t.Context(), llmstream.Request{}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "" {
		t.Errorf("logged without a logger:\n%s", out.String())
	}
}
