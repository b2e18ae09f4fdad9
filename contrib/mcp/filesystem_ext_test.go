package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/agentloop"
	mcp "github.com/airlock-go/airlock/contrib/mcp"
)

// filesystemPackage is the npm package of the reference filesystem server,
// at the version ci.sh installs (it reads the version from here).
const filesystemPackage = "@modelcontextprotocol/server-filesystem@2026.8.31"

// filesystemCommand returns the command that starts the reference
// filesystem server on dir: $AIRLOCK_MCP_FILESYSTEM (the installed
// mcp-server-filesystem; .ci/run sets it and ci.sh installs it there),
// else npx, which fetches the package. Without either the test skips,
// but under CI=true it fails, so a green CI run proves the server ran.
func filesystemCommand(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	if bin := os.Getenv("AIRLOCK_MCP_FILESYSTEM"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("AIRLOCK_MCP_FILESYSTEM names no installed server (contrib/mcp/ci.sh installs it): %v", err)
		}
		return exec.Command(bin, dir)
	}
	if npx, err := exec.LookPath("npx"); err == nil {
		return exec.Command(npx, "-y", filesystemPackage, dir)
	}
	missing := "no MCP filesystem server: set AIRLOCK_MCP_FILESYSTEM to an installed mcp-server-filesystem " +
		"(npm install --prefix DIR " + filesystemPackage + "; DIR/node_modules/.bin/mcp-server-filesystem) or install npx"
	if os.Getenv("CI") == "true" {
		t.Fatal(missing + " (CI=true: the test must run)")
	}
	t.Skip(missing)
	return nil
}

// TestFilesystemServer runs a real MCP server no one here wrote over
// stdio: its tools are listed, and list_directory and read_text_file run
// through a Loop, a missing file answered as a recoverable failure.
func TestFilesystemServer(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello from airlock\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // npx may fetch the package
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "airlock-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: filesystemCommand(t, dir)}, nil)
	if err != nil {
		t.Fatalf("starting the filesystem server: %v", err)
	}
	defer cs.Close()

	tools, err := mcp.Tools(ctx, cs, mcp.WithPrefix("fs_"))
	if err != nil {
		t.Fatal(err)
	}
	approval := map[string]bool{}
	for _, tool := range tools {
		approval[tool.Name] = tool.NeedsApproval
		if !strings.Contains(string(tool.Parameters), `"type":"object"`) || tool.Description == "" {
			t.Errorf("%s: description %q, schema %s", tool.Name, tool.Description, tool.Parameters)
		}
	}
	for name, want := range map[string]bool{"fs_list_directory": false, "fs_read_text_file": false, "fs_write_file": true, "fs_move_file": true} {
		if got, ok := approval[name]; !ok || got != want {
			t.Errorf("%s: listed %v, NeedsApproval %v; want listed, %v (from its annotations)", name, ok, got, want)
		}
	}

	notes := filepath.Join(dir, "notes.txt")
	loop := agentloop.Loop{
		Model: scriptedModel(
			[]call{{"fs_list_directory", `{"path":` + quote(dir) + `}`}},
			[]call{{"fs_read_text_file", `{"path":` + quote(notes) + `}`}},
			[]call{{"fs_read_text_file", `{"path":` + quote(filepath.Join(dir, "missing.txt")) + `}`}},
		),
		Tools:       tools,
		ToolTimeout: time.Minute,
	}
	res, err := loop.Run(ctx, userSays("what is in my notes?"))
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range res.Messages {
		roles = append(roles, m.Role)
	}
	wantRoles := []string{"user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"}
	if !slices.Equal(roles, wantRoles) {
		t.Fatalf("roles %v, want %v", roles, wantRoles)
	}
	out := toolOutputs(res)
	if lines := strings.Split(out[0], "\n"); !slices.Contains(lines, "[FILE] notes.txt") || !slices.Contains(lines, "[DIR] sub") {
		t.Errorf("list_directory: %q", out[0])
	}
	if out[1] != "hello from airlock\n" {
		t.Errorf("read_text_file: %q", out[1])
	}
	if !strings.HasPrefix(out[2], `error: mcp: server "secure-filesystem-server": tool "read_text_file": the tool reported an error: `) ||
		!strings.Contains(out[2], "missing.txt") {
		t.Errorf("missing file: %q", out[2])
	}
	for i, m := range res.Messages[2:7:7] {
		if m.Role == "tool" && m.ToolCallID != res.Messages[i+1].ToolCalls[0].ID {
			t.Errorf("message %d answers %q, want %q", i+2, m.ToolCallID, res.Messages[i+1].ToolCalls[0].ID)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
