//go:build !(linux || darwin)

package agentcli

import "os"

// terminalColumns cannot ask the terminal here; the caller assumes
// defaultColumns.
func terminalColumns(*os.File) int { return 0 }

// isTTY cannot ask here: every character device is taken for a terminal.
func isTTY(*os.File) bool { return true }
