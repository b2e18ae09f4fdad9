package llmstreamtest

import (
	"bytes"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestTurnModel: every dialect's stream names Turn.Model, which the
// client reads into Message.Model; a turn that names none streams the
// request's model (or, for Bedrock, none, so the client keeps the
// request's), and a request naming none gets "llmstreamtest".
func TestTurnModel(t *testing.T) {
	for d := llmstream.DialectChat; d <= llmstream.DialectBedrock; d++ {
		t.Run(d.String(), func(t *testing.T) {
			srv := NewTestServer(t, WithTurns(Turn{Text: "a", Model: "served-1 \"é\""}, Turn{Text: "b"}, Turn{Text: "c"}))
			c := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithModel("asked"))...)
			for i, want := range []string{"served-1 \"é\"", "asked", "other"} {
				r := llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}}
				if i == 2 {
					r.Model = "other"
				}
				m, err := c.Stream(t.Context(), r)
				if err != nil || m.Model != want {
					t.Errorf("turn %d: model %q, %v; want %q", i, m.Model, err, want)
				}
			}
		})
	}
	srv := NewTestServer(t, WithTurns(Turn{Text: "a"}))
	r := post(t, srv, "/chat/completions", `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if m, err := llmstream.ReadMessage(bytes.NewReader(r.body)); err != nil || m.Model != "llmstreamtest" {
		t.Errorf("no model asked: model %q, %v", m.Model, err)
	}
}
