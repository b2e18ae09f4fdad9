package llmstream_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
)

// TestOptionErrors: every option value a Client cannot use fails every
// call with an *OptionError naming the option, matching ErrInvalidOption
// (and the sentinel it matched before), and nothing reaches the server.
func TestOptionErrors(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "never sent"}))
	base := llmstream.WithBaseURL(srv.URL)
	tests := []struct {
		name   string
		opts   []llmstream.ClientOption
		option string // the start of OptionError.Option
		also   error  // the older sentinel, or the other package's
	}{
		{"unknown dialect", []llmstream.ClientOption{base, llmstream.WithDialect(llmstream.Dialect(99))}, "llmstream.WithDialect(", llmstream.ErrMisuse},
		{"base URL not http", []llmstream.ClientOption{llmstream.WithBaseURL("ftp://example.com/v1")}, `llmstream.WithBaseURL("ftp://example.com/v1")`, llmstream.ErrInvalidRequest},
		{"base URL with its key redacted", []llmstream.ClientOption{llmstream.WithBaseURL("ftp://example.com/v1?key=sk-secret-1234")}, `llmstream.WithBaseURL("ftp://example.com/v1?key=REDACTED")`, llmstream.ErrInvalidRequest},
		{"defaults with messages", []llmstream.ClientOption{base, llmstream.WithRequestDefaults(llmstream.Request{Messages: []llmstream.Message{{Role: "user"}}})}, "llmstream.WithRequestDefaults(", llmstream.ErrInvalidRequest},
		{"Vertex, chat dialect", []llmstream.ClientOption{base, llmstream.WithVertex("p", "l"), llmstream.WithModel("m")}, `llmstream.WithVertex("p", "l")`, llmstream.ErrMisuse},
		{"Vertex, empty project", []llmstream.ClientOption{base, llmstream.WithDialect(llmstream.DialectGemini), llmstream.WithVertex("", "l"), llmstream.WithModel("m")}, `llmstream.WithVertex("", "l")`, llmstream.ErrInvalidRequest},
		{"sse option", []llmstream.ClientOption{base, llmstream.WithSSEOptions(sse.WithMaxEventSize(-1))}, "llmstream.WithSSEOptions[sse.WithMaxEventSize(-1)]", sse.ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llmstream.NewClient(tt.opts...)
			for range 2 { // every call, not only the first
				_, err := c.Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "x"}}})
				var oe *llmstream.OptionError
				if !errors.Is(err, llmstream.ErrInvalidOption) || !errors.As(err, &oe) || !errors.Is(err, tt.also) {
					t.Fatalf("err = %v, want an *OptionError matching ErrInvalidOption and %v", err, tt.also)
				}
				if !strings.HasPrefix(oe.Option, tt.option) || oe.Reason == "" || !strings.HasPrefix(err.Error(), "llmstream: invalid option "+oe.Option+": ") {
					t.Errorf("option %q, reason %q, text %q; want the option %q named", oe.Option, oe.Reason, err, tt.option)
				}
				if strings.Contains(err.Error(), "sk-secret-1234") {
					t.Errorf("the key is in %q", err)
				}
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// TestOptionErrorBridge: a Bridge with an unknown dialect fails its first
// event with the same *OptionError; one given a bad sse option reads a
// body with sse's own error.
func TestOptionErrorBridge(t *testing.T) {
	b := llmstream.NewBridge(llmstream.WithDialect(llmstream.Dialect(99)))
	err := b.Handle(sse.Event{Data: []byte(`{}`)})
	var oe *llmstream.OptionError
	if !errors.Is(err, llmstream.ErrInvalidOption) || !errors.As(err, &oe) || !strings.HasPrefix(oe.Option, "llmstream.WithDialect(") {
		t.Errorf("Bridge: %v, want an *OptionError naming WithDialect", err)
	}
	for _, body := range []string{"", ": a comment alone\n\n"} { // no event to fail
		_, err = llmstream.ReadMessage(strings.NewReader(body), llmstream.WithDialect(llmstream.Dialect(99)))
		if !errors.Is(err, llmstream.ErrInvalidOption) {
			t.Errorf("ReadMessage(%q) with an unknown dialect: %v, want ErrInvalidOption", body, err)
		}
	}
	if _, err := llmstream.NewBridge(llmstream.WithDialect(llmstream.Dialect(99))).Message(); !errors.Is(err, llmstream.ErrInvalidOption) {
		t.Errorf("Message of a Bridge with an unknown dialect and no event: %v, want ErrInvalidOption", err)
	}
	var so *sse.OptionError
	if _, err := llmstream.NewClient(llmstream.WithSSEOptions(sse.WithMaxEventSize(-5))).Stream(t.Context(), llmstream.Request{}); !errors.As(err, &so) {
		t.Errorf("a bad sse option through a Client: %v, want sse's *OptionError in the chain", err)
	}
	_, err = llmstream.ReadMessage(strings.NewReader("data: [DONE]\n\n"), llmstream.WithSSEOptions(sse.WithMaxEventSize(-1)))
	if !errors.Is(err, sse.ErrInvalidOption) {
		t.Errorf("ReadMessage: %v, want sse.ErrInvalidOption", err)
	}
}
