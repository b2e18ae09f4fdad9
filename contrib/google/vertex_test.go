package google

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
)

// vertexGemini is Vertex AI's Gemini path; llmstreamtest serves the same
// wire at the Gemini API's path.
var vertexGemini = regexp.MustCompile(`^/v1/projects/my-project/locations/us-central1/publishers/google/models/([^/:]+):streamGenerateContent$`)

// TestVertexThroughDoer: the README's client — Gemini with WithVertex, the
// Doer over airlock's transport — streams a tool call, every request at
// Vertex's path with the OAuth token and no API key.
func TestVertexThroughDoer(t *testing.T) {
	fake := llmstreamtest.NewHandler(llmstreamtest.WithTurns(llmstreamtest.Turn{
		Text: "Reading it.", ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}}))
	defer fake.Close()
	var auth, apiKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := vertexGemini.FindStringSubmatch(r.URL.Path)
		if m == nil || r.URL.Query().Get("alt") != "sse" {
			http.Error(w, "not Vertex's Gemini path: "+r.URL.String(), http.StatusNotFound)
			return
		}
		auth, apiKey = r.Header.Get("Authorization"), r.Header.Get("X-Goog-Api-Key")
		r.URL.Path = "/v1beta/models/" + m[1] + ":streamGenerateContent"
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	tr := transport.New()
	defer tr.CloseIdleConnections()
	client := llmstream.NewClient(
		llmstream.WithDialect(llmstream.DialectGemini),
		llmstream.WithVertex("my-project", "us-central1"),
		llmstream.WithBaseURL(srv.URL),
		llmstream.WithModel("gemini-2.5-flash"),
		llmstream.WithHTTPClient(New(&fakeSource{ttl: time.Hour}, tr)),
	)
	m, err := client.Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "module?"}}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "Reading it." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Arguments != `{"path":"go.mod"}` {
		t.Errorf("message %+v", m)
	}
	if !strings.HasPrefix(auth, "Bearer ya29.token-") || apiKey != "" {
		t.Errorf("Authorization %q, x-goog-api-key %q; want the OAuth token alone", auth, apiKey)
	}
}
