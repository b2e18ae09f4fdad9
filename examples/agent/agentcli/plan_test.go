package agentcli

import (
	"bytes"
	"strings"
	"testing"
)

// TestOfflinePlan: --output plan makes the offline run end with a typed
// plan, each step printed as its member completes, in order; the turns
// before it still show their text.
func TestOfflinePlan(t *testing.T) {
	dir := demoWorkspace(t)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", dir, "--offline-delay", "0", "--output", "plan"}, &stdout, &stderr, envOf(nil))
	if code != exitOK || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	out := stdout.String()
	last := -1
	for _, step := range []string{"step 0: study ", "step 1: study ", "step 4: write the change", "step 5: run the tests"} {
		i := strings.Index(out, step)
		if i <= last {
			t.Fatalf("%q missing or out of order in\n%s", step, out)
		}
		last = i
	}
	if !strings.Contains(out, "I'll start by looking") || strings.Contains(out, `"steps"`) {
		t.Errorf("the earlier turns' text should show and the plan's JSON should not:\n%s", out)
	}
	code = run(t.Context(), []string{"--workspace", dir, "--output", "poem"}, &stdout, &stderr, envOf(nil))
	if code == exitOK || !strings.Contains(stderr.String(), "plan") {
		t.Errorf("--output poem: exit %d, %q", code, stderr.String())
	}
}
