package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// memServers is a connectFunc that serves every --mcp value with a server
// written here, over the SDK's in-memory transports, and records the
// commands it was asked to start.
type memServers struct {
	t     *testing.T
	tools []string // the server's tool names; "read_*" ones are read-only

	mu       sync.Mutex
	commands [][]string
	greeted  []string
}

func (m *memServers) connect(ctx context.Context, words []string) (*sdk.ClientSession, error) {
	m.mu.Lock()
	m.commands = append(m.commands, words)
	m.mu.Unlock()
	srv := sdk.NewServer(&sdk.Implementation{Name: "test-server", Version: "v0"}, nil)
	for _, name := range m.tools {
		ann := &sdk.ToolAnnotations{ReadOnlyHint: strings.HasPrefix(name, "read_")}
		srv.AddTool(&sdk.Tool{Name: name, Description: "the " + name + " tool", Annotations: ann,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}}}`)},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var in struct{ Who string }
				_ = json.Unmarshal(req.Params.Arguments, &in)
				m.mu.Lock()
				m.greeted = append(m.greeted, name+" "+in.Who)
				m.mu.Unlock()
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " says hello to " + in.Who}}}, nil
			})
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	m.t.Cleanup(func() {
		ss.Close()
		ss.Wait()
	})
	return sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
}

// workspace is a small directory for the demo's own tools.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Widget\n\nWidget counts widgets.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMCPToolsBesideTheDemos: two --mcp servers' tools are offered beside
// the demo's own, prefixed; a read-only one runs on the model's call and
// its answer goes back; one that is not read-only is put to the person
// (denied here: no terminal) and never reaches its server.
func TestMCPToolsBesideTheDemos(t *testing.T) {
	servers := &memServers{t: t, tools: []string{"read_greeting", "wave"}}
	model := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{
			{ID: "c1", Name: "fs_read_greeting", Arguments: `{"who":"airlock"}`},
			{ID: "c2", Name: "mcp2_wave", Arguments: `{"who":"everyone"}`},
			{ID: "c3", Name: "read_file_safe", Arguments: `{"path":"README.md"}`},
		}},
		llmstreamtest.Turn{Text: "Greeted."},
	))
	var stdout, stderr bytes.Buffer
	args := []string{"--workspace", workspace(t), "--base-url", model.URL, "--api-key", "sk-test-1",
		"--mcp", "fs=mcp-server-one --root .", "--mcp", "mcp-server-two"}
	code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr, nil, servers.connect)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr.String(), stdout.String())
	}
	if want := [][]string{{"mcp-server-one", "--root", "."}, {"mcp-server-two"}}; !slices.EqualFunc(servers.commands, want, slices.Equal) {
		t.Errorf("servers started %q, want %q", servers.commands, want)
	}
	reqs := model.Requests()
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Function.Name)
	}
	if want := []string{"list_files", "read_file_safe", "search", "fs_read_greeting", "fs_wave", "mcp2_read_greeting", "mcp2_wave"}; !slices.Equal(offered, want) {
		t.Errorf("tools offered %q, want %q", offered, want)
	}
	if want := []string{"read_greeting airlock"}; !slices.Equal(servers.greeted, want) {
		t.Errorf("server calls %q, want %q", servers.greeted, want)
	}
	answers := map[string]string{}
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			answers[m.ToolCallID] = m.Content
		}
	}
	if answers["c1"] != "read_greeting says hello to airlock" || !strings.HasPrefix(answers["c2"], "denied: ") || !strings.HasPrefix(answers["c3"], "# Widget") {
		t.Errorf("answers sent back: %q", answers)
	}
	out := stdout.String()
	for _, want := range []string{"fs_read_greeting {\"who\":\"airlock\"} → 35 B", "✗ denied mcp2_wave", "Greeted."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestMCPOffline: the offline demo runs as ever with a server's tools
// offered beside its own.
func TestMCPOffline(t *testing.T) {
	servers := &memServers{t: t, tools: []string{"read_greeting"}}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", workspace(t), "--offline-delay", "0", "--mcp", "srv"}, nil, &stdout, &stderr, nil, servers.connect)
	if code != 0 || stderr.Len() != 0 || !strings.Contains(stdout.String(), "done: 3 turns") || len(servers.commands) != 1 {
		t.Errorf("exit %d, stderr %q, %d servers\n%s", code, stderr.String(), len(servers.commands), stdout.String())
	}
	// What was added is said, and the scripted model went through it.
	out := stdout.String()
	for _, want := range []string{"mcp: test-server, 1 tool: mcp_read_greeting\n", "mcp_read_greeting {} → ", "mcp_read_greeting (a tool I was given) answered 1 line: read_greeting says hello to"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !slices.Equal(servers.greeted, []string{"read_greeting "}) {
		t.Errorf("server calls %q, want one read_greeting", servers.greeted)
	}
}

func TestMCPRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tools  []string
		mcp    []string
		code   int
		stderr string
	}{
		{"an empty command", nil, []string{"  "}, 2, "no command to start"},
		{"two servers of one name", nil, []string{"a=x", "a=y"}, 2, `two servers named "a"`},
		// list_ + files is the demo's own list_files: refused, not shadowed.
		{"a name the demo has", []string{"files"}, []string{"list=srv"}, 1, "list_files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := &memServers{t: t, tools: tc.tools}
			args := []string{"--workspace", workspace(t), "--offline-delay", "0"}
			for _, m := range tc.mcp {
				args = append(args, "--mcp", m)
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, nil, &stdout, &stderr, nil, servers.connect)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
}

// TestMCPFilesystemServer starts the reference filesystem server from npm
// (a server no one here wrote) with the program's own command transport,
// when AIRLOCK_MCP_FILESYSTEM names an installed mcp-server-filesystem.
func TestMCPFilesystemServer(t *testing.T) {
	bin := os.Getenv("AIRLOCK_MCP_FILESYSTEM")
	if bin == "" {
		t.Skip("set AIRLOCK_MCP_FILESYSTEM to an installed mcp-server-filesystem to run the demo with it")
	}
	dir, err := filepath.EvalSymlinks(workspace(t))
	if err != nil {
		t.Fatal(err)
	}
	model := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "fs_read_text_file", Arguments: `{"path":"` + filepath.Join(dir, "README.md") + `"}`}}},
		llmstreamtest.Turn{Text: "Read it."},
	))
	var stdout, stderr bytes.Buffer
	args := []string{"--workspace", dir, "--base-url", model.URL, "--api-key", "sk-test-1", "--mcp", "fs=" + bin + " " + dir}
	if code := run(t.Context(), args, nil, &stdout, &stderr, nil, startCommand); code != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr.String(), stdout.String())
	}
	msgs := model.Requests()[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, "Widget counts widgets.") {
		t.Errorf("answer sent back: %+v", last)
	}
}
