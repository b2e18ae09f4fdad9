package llmstream

import (
	"errors"
	"strings"
	"testing"
)

// The enum check at its edges: any case of the four levels passes, a level
// with a space or a prefix of one is refused as an ErrInvalidRequest
// naming it, nothing sent; a ThinkingBudget wins over an effort, even one
// Gemini would refuse, since the effort is then not sent.
func TestGeminiEffortEdges_review2(t *testing.T) {
	for effort, ok := range map[string]bool{
		"Medium": true, "mInImAl": true, "none": true, "HIGH": true,
		" low": false, "lo": false, "highest": false, "medium\x00": false,
	} {
		sent := false
		c := NewClient(WithDialect(DialectGemini), WithModel("m"), WithHTTPClient(countingDoer{&sent}))
		_, err := c.Stream(t.Context(), Request{ReasoningEffort: effort, Messages: []Message{{Role: "user", Content: "hi"}}})
		refused := errors.Is(err, ErrInvalidRequest)
		if refused == ok || refused && (sent || !strings.Contains(err.Error(), "reasoning effort")) {
			t.Errorf("%q: err %v, sent %v; want refused %v", effort, err, sent, !ok)
		}
	}
	budget := 64
	body, err := geminiProtocol{}.encode(&Request{ReasoningEffort: "xhigh", ThinkingBudget: &budget}, &config{})
	if err != nil || !strings.Contains(string(body), `"thinkingBudget":64`) || strings.Contains(string(body), "thinkingLevel") {
		t.Fatalf("budget and a bad effort: %s, %v", body, err)
	}
}
