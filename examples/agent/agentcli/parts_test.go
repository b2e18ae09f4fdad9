package agentcli

import (
	"slices"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// TestParts: the exported parts are the demo's own: the same tools, the
// same first turn of the offline model.
func TestParts(t *testing.T) {
	for _, allow := range []bool{false, true} {
		tools, closeTools, err := WorkspaceTools(t.TempDir(), DefaultMaxFileBytes, allow)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		want := []string{"list_files", "read_file_safe", "search"}
		if allow {
			want = append(want, "write_file")
		}
		if !slices.Equal(names, want) {
			t.Errorf("allowWrite %v: tools %v, want %v", allow, names, want)
		}
		if err := closeTools(); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := WorkspaceTools("/does/not/exist", DefaultMaxFileBytes, false); err == nil {
		t.Error("a missing workspace: no error")
	}
	turn := ScriptedTurn(llmstreamtest.Request{Messages: []llmstream.Message{{Role: "user", Content: "What is this?"}}})
	if len(turn.ToolCalls) != 1 || turn.ToolCalls[0].Name != "list_files" {
		t.Errorf("the first turn: %+v", turn)
	}
}
