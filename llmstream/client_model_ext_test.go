package llmstream_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestClientModel: a Client's message names the model the server named,
// in a stream or in a whole JSON completion, with the client's
// credentials masked; a server naming none (or naming it with something
// that is not a string) leaves the model the request went to: its own,
// else the request defaults', else the client's; nothing asked, nothing
// named: "".
func TestClientModel(t *testing.T) {
	const key = "sk-model-test-0123456789"
	stream := func(model string) string {
		m := ""
		if model != "" {
			m = `"model":` + model + `,`
		}
		return "data: {" + m + `"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	}
	whole := func(model string) string {
		return `{"model":` + model + `,"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`
	}
	tests := []struct {
		name, body, mediaType string
		opts                  []llmstream.ClientOption
		asked, want           string
	}{
		{"streamed", stream(`"gpt-4o-2024-08-06"`), "text/event-stream", nil, "gpt-4o", "gpt-4o-2024-08-06"},
		{"streamed, the key echoed", stream(`"proxy/` + key + `"`), "text/event-stream", nil, "gpt-4o", "proxy/REDACTED"},
		{"streamed none: the request's", stream(""), "text/event-stream", []llmstream.ClientOption{llmstream.WithModel("dflt")}, "asked", "asked"},
		{"streamed none: the defaults'", stream(""), "text/event-stream", []llmstream.ClientOption{llmstream.WithModel("dflt"),
			llmstream.WithRequestDefaults(llmstream.Request{Model: "from-defaults"})}, "", "from-defaults"},
		{"streamed none: the client's", stream(""), "text/event-stream", []llmstream.ClientOption{llmstream.WithModel("dflt")}, "", "dflt"},
		{"streamed a number: the client's", stream("7"), "text/event-stream", []llmstream.ClientOption{llmstream.WithModel("dflt")}, "", "dflt"},
		{"nothing asked, nothing named", stream(""), "text/event-stream", nil, "", ""},
		{"whole", whole(`"gpt-4o-2024-08-06"`), "application/json", nil, "gpt-4o", "gpt-4o-2024-08-06"},
		{"whole, not a string", whole(`{"id":"x"}`), "application/json", nil, "gpt-4o", "gpt-4o"},
		{"whole, null", whole(`null`), "application/json", nil, "gpt-4o", "gpt-4o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.mediaType)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c := llmstream.NewClient(append([]llmstream.ClientOption{llmstream.WithBaseURL(srv.URL + "/v1"), llmstream.WithAPIKey(key)}, tt.opts...)...)
			m, err := c.Stream(t.Context(), llmstream.Request{Model: tt.asked})
			if err != nil || m.Content != "hi" || m.Model != tt.want {
				t.Errorf("got %q from model %q, %v; want %q", m.Content, m.Model, err, tt.want)
			}
		})
	}
}
