package llmstream_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestWholeAgreesWithStream: a server that ignores "stream": true and
// answers one JSON completion gives the message the same server would
// have streamed, had it sent that message as one delta.
func TestWholeAgreesWithStream(t *testing.T) {
	messages := map[string]string{
		"text":                          `{"role":"assistant","content":"Hi"}`,
		"reasoning_content first":       `{"role":"assistant","reasoning_content":"a","reasoning":"b","content":"Hi"}`,
		"reasoning first":               `{"role":"assistant","reasoning":"b","reasoning_content":"a","content":"Hi"}`,
		"an empty reasoning first":      `{"role":"assistant","reasoning":"","reasoning_content":"a","content":"Hi"}`,
		"reasoning that is no string":   `{"role":"assistant","reasoning":{"effort":"low"},"reasoning_content":"a"}`,
		"Mistral thinking parts":        `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"reference","reference_ids":[1]},{"type":"text","text":"hmm"}]},{"type":"text","text":"Hi"}]}`,
		"a reasoning part":              `{"role":"assistant","content":[{"type":"reasoning","text":"hmm"},{"type":"text","text":"Hi"}]}`,
		"parts of other types":          `{"role":"assistant","content":[{"type":"reference","text":"[1]"},{"type":"image_url","image_url":{"url":"x"}},{"text":"Hi"}]}`,
		"a part that is not an object":  `{"role":"assistant","content":["x",{"type":"text","text":"Hi"}]}`,
		"a type that is not a string":   `{"role":"assistant","content":[{"type":7,"text":"Hi"}]}`,
		"null content and a refusal":    `{"role":"assistant","content":null,"refusal":"no"}`,
		"thinking text beside thinking": `{"role":"assistant","content":[{"type":"thinking","text":"t","thinking":"hmm"}]}`,
	}
	for name, m := range messages {
		t.Run(name, func(t *testing.T) {
			streamed, err := llmstream.ReadMessage(strings.NewReader(`data: {"choices":[{"index":0,"delta":` + m + `,"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"))
			if err != nil {
				t.Fatalf("streamed: %v", err)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"choices":[{"index":0,"message":`+m+`,"finish_reason":"stop"}]}`)
			}))
			defer srv.Close()
			whole, err := llmstream.NewClient(llmstream.WithBaseURL(srv.URL+"/v1")).Stream(t.Context(), llmstream.Request{})
			if err != nil {
				t.Fatalf("whole: %v", err)
			}
			if whole.Content != streamed.Content || whole.Reasoning != streamed.Reasoning || whole.Refusal != streamed.Refusal {
				t.Errorf("whole: content %q reasoning %q refusal %q; streamed: %q %q %q", whole.Content, whole.Reasoning, whole.Refusal, streamed.Content, streamed.Reasoning, streamed.Refusal)
			}
		})
	}
}
