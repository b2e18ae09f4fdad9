package agentcli

import (
	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// The demo's parts that another front end reuses: examples/web serves the
// same agent to a browser, with the same tools and the same offline model.

// DefaultMaxFileBytes is the largest file the workspace tools read or
// search scan, unless told otherwise.
const DefaultMaxFileBytes = defaultMaxFileBytes

// WorkspaceTools returns the demo's tools over the directory dir
// (list_files, read_file_safe, search, and with allowWrite write_file,
// which needs approval), reading files of at most maxFileBytes, and the
// function that closes the directory once the tools are no longer used.
// The tools are safe for concurrent use.
func WorkspaceTools(dir string, maxFileBytes int, allowWrite bool) ([]agentloop.Tool, func() error, error) {
	w, err := openWorkspace(dir, maxFileBytes, allowWrite)
	if err != nil {
		return nil, nil, err
	}
	return w.tools(), w.Close, nil
}

// ScriptedTurn is the offline model, for [llmstreamtest.WithResponder]:
// it lists the workspace, reads the files that tell most about it, asks to
// save notes when write_file is offered (once per conversation), and sums
// up what it read. It keeps no state.
func ScriptedTurn(req llmstreamtest.Request) llmstreamtest.Turn { return scriptedTurn(req) }
