package agentcli

import (
	"bytes"
	"strings"
	"testing"
)

// TestFallbackDemo runs the offline demo with --fallback: every turn's
// stream is cut on the primary and goes on on the fallback — continued in
// place by Anthropic, started over by Gemini — and the run ends as
// without the cut.
func TestFallbackDemo(t *testing.T) {
	for _, tc := range []struct{ dialect, seam string }{
		{"anthropic", "continued on the fallback"},
		{"bedrock", "continued on the fallback"},
		{"gemini", "starting over on the fallback"},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), []string{"--workspace", demoWorkspace(t), "--offline-delay", "0", "--fallback", tc.dialect}, &stdout, &stderr, envOf(map[string]string{"NO_COLOR": "1"}))
			out := stdout.String()
			if code != 0 || !strings.Contains(out, tc.seam) || !strings.Contains(out, "done: 3 turns") {
				t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr.String(), out)
			}
			if tc.seam == "continued on the fallback" && !strings.Contains(out, "I'll start by looking at ⟨stream cut — continued on the fallback⟩what is in the workspace") {
				t.Fatalf("the first turn's text is not continued in place:\n%s", out)
			}
		})
	}
}
