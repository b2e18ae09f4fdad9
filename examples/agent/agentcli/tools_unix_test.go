//go:build unix

package agentcli

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A FIFO with no writer would block a plain open forever; read_file_safe
// must refuse it at once.
func TestReadFileSafeFIFO(t *testing.T) {
	ws, dir, _ := newWorkspace(t, nil, 64, false)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := callTool(t, ws.readFile, `{"path":"fifo"}`)
	checkToolResult(t, got, err, "", "fifo is not a regular file (p---------); refused")
	got, err = callTool(t, ws.search, `{"pattern":"x"}`)
	checkToolResult(t, got, err, "no line contains \"x\"\n", "")
	got, err = callTool(t, ws.listFiles, `{}`)
	checkToolResult(t, got, err, "fifo (p---------)\n", "")
}
