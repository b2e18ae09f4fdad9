package llmstreamtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoTestingInPrograms: a program that imports llmstreamtest (the
// offline demo agent) links neither testing nor flag, which testing
// brings with its command-line flags.
func TestNoTestingInPrograms(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range []string{"testing", "flag"} {
		if slices.Contains(deps, p) {
			t.Errorf("llmstreamtest depends on %s", p)
		}
	}
}
