package llmstream

import (
	"os"
	"strings"
	"testing"
)

// TestResponsesParagraphDeltaReachesTheBridgeCallback: the blank line that
// joins two reasoning summary parts reaches the Bridge's own callback, as
// the rest of the reasoning does, also when the config has none: a
// Client's per-request Request.OnDelta is the Bridge's, not the config's.
// (The decoder once asked the config, so those deltas spelled the
// reasoning without its paragraph breaks.)
func TestResponsesParagraphDeltaReachesTheBridgeCallback(t *testing.T) {
	data, err := os.ReadFile("testdata/providers/responses_reasoning_tools.sse")
	if err != nil {
		t.Fatal(err)
	}
	var reasoning strings.Builder
	onDelta := func(d Delta) error {
		if d.Kind == DeltaReasoning {
			reasoning.WriteString(d.Text)
		}
		return nil
	}
	b := &Bridge{cfg: &config{dialect: DialectResponses}, onDelta: onDelta}
	m, err := b.Consume(b.newReader(strings.NewReader(string(data))))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Reasoning, "\n\n") {
		t.Fatalf("the fixture's reasoning has no second part: %q", m.Reasoning)
	}
	if reasoning.String() != m.Reasoning {
		t.Errorf("reasoning deltas spell %q, the message has %q", reasoning.String(), m.Reasoning)
	}
}
