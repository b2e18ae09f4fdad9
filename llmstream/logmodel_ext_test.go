package llmstream_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// recordHandler keeps the records logged through it.
type recordHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

// attr returns the value of the attribute key of the first record with
// message msg.
func (h *recordHandler) attr(msg, key string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if r.Message != msg {
			continue
		}
		var v string
		found := false
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == key {
				v, found = a.Value.String(), true
				return false
			}
			return true
		})
		return v, found
	}
	return "", false
}

// TestLogShowsTheModelSent: the debug log names the model the request
// was sent with, wherever it came from: the request, WithRequestDefaults
// (which wins over WithModel), WithModel.
func TestLogShowsTheModelSent(t *testing.T) {
	tests := []struct {
		name        string
		request     string
		defaults    string
		clientModel string
		want        string
	}{
		{"the request's", "r-model", "d-model", "c-model", "r-model"},
		{"WithRequestDefaults over WithModel", "", "d-model", "c-model", "d-model"},
		{"WithRequestDefaults alone", "", "d-model", "", "d-model"},
		{"WithModel", "", "", "c-model", "c-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sent string
			d := doerFunc(func(r *http.Request) (*http.Response, error) {
				var body struct{ Model string }
				b, _ := io.ReadAll(r.Body)
				json.Unmarshal(b, &body)
				sent = body.Model
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r,
					Body: io.NopCloser(strings.NewReader("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))}, nil
			})
			h := &recordHandler{}
			o := []llmstream.ClientOption{llmstream.WithHTTPClient(d), llmstream.WithLogger(slog.New(h)),
				llmstream.WithRequestDefaults(llmstream.Request{Model: tt.defaults})}
			if tt.clientModel != "" {
				o = append(o, llmstream.WithModel(tt.clientModel))
			}
			if _, err := llmstream.NewClient(o...).Stream(t.Context(), llmstream.Request{Model: tt.request}); err != nil {
				t.Fatal(err)
			}
			logged, ok := h.attr("llmstream: response", "model")
			if !ok || sent != tt.want || logged != sent {
				t.Errorf("sent model %q, logged %q (found %v); want %q both", sent, logged, ok, tt.want)
			}
		})
	}
}
