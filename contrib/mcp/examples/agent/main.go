// Command agent is airlock's demo coding agent (examples/agent) with the
// tools of MCP servers beside its own: each --mcp "command args" starts a
// server over stdio with the Go SDK's command transport and offers its
// tools, prefixed so that two servers' names cannot collide.
//
//	cd contrib/mcp && go run ./examples/agent --mcp "npx -y @modelcontextprotocol/server-filesystem ."
//
// The command is split into words at spaces (no shell quoting). It may
// start with NAME= to choose the prefix, NAME_ ("fs=npx -y ..." offers
// fs_read_file); otherwise the first server's tools are prefixed mcp_, the
// second's mcp2_, and so on. A tool the server marks readOnlyHint runs
// without asking; every other one is put to the person first, as the
// demo's write_file is (see contrib/mcp's WithApproval). Each server's
// tools are announced before the run ("mcp: secure-filesystem-server, 14
// tools: mcp_read_file, ..."), and the offline scripted model calls one of
// them, a directory listing if there is one. The servers are stopped when
// the run ends. Every other flag is the demo's: -h lists them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/agentloop"
	mcp "github.com/airlock-go/airlock/contrib/mcp"
	"github.com/airlock-go/airlock/examples/agent/agentcli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// As examples/agent: the first Ctrl-C cancels (or pauses at a
	// question), a second one kills.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ(), startCommand)
	stop()
	os.Exit(code)
}

// connectFunc connects to the MCP server a --mcp value names.
type connectFunc func(ctx context.Context, words []string) (*sdk.ClientSession, error)

// run is the program with its surroundings passed in, so a test can give
// its own servers through connect.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env []string, connect connectFunc) int {
	s := &servers{connect: connect, out: stdout}
	defer s.close()
	return agentcli.Run(ctx, args, stdin, stdout, stderr, env,
		agentcli.WithCommand(agentcli.Invocation(os.Args[0], "go run ./examples/agent")),
		agentcli.WithFlag("mcp", "command", `start an MCP server ("command args", split at spaces; "NAME=command args" prefixes its tools NAME_, else mcp_, mcp2_, ...) and offer its tools; repeatable`, s.add),
		agentcli.WithTools(s.tools),
	)
}

// startCommand starts words as a server over stdio. Its stderr is
// discarded: servers log there, and the log would cut into the transcript.
func startCommand(ctx context.Context, words []string) (*sdk.ClientSession, error) {
	client := sdk.NewClient(&sdk.Implementation{Name: "airlock-demo-agent", Version: "v0"}, nil)
	return client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(words[0], words[1:]...)}, nil)
}

// servers are the --mcp values given, and the sessions started for them.
type servers struct {
	connect  connectFunc
	out      io.Writer // where each server's tools are announced
	specs    []serverSpec
	sessions []*sdk.ClientSession
}

// serverSpec is one --mcp value: the command's words and the prefix.
type serverSpec struct {
	prefix string
	words  []string
}

// named matches a leading "NAME=": a prefix that is a valid tool name part
// for every provider (letters, digits, '_', '-').
var named = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]{0,15})=(.*)$`)

// add takes one --mcp value.
func (s *servers) add(value string) error {
	prefix := "mcp_"
	if n := len(s.specs) + 1; n > 1 {
		prefix = fmt.Sprintf("mcp%d_", n)
	}
	if m := named.FindStringSubmatch(value); m != nil {
		prefix, value = m[1]+"_", m[2]
	}
	words := strings.Fields(value)
	if len(words) == 0 {
		return fmt.Errorf("no command to start")
	}
	for _, other := range s.specs {
		if other.prefix == prefix {
			return fmt.Errorf("two servers named %q", strings.TrimSuffix(prefix, "_"))
		}
	}
	s.specs = append(s.specs, serverSpec{prefix: prefix, words: words})
	return nil
}

// tools starts every server and lists its tools, each name checked
// against the demo's and the other servers'.
func (s *servers) tools(ctx context.Context, taken []string) ([]agentloop.Tool, error) {
	var all []agentloop.Tool
	for _, spec := range s.specs {
		cs, err := s.connect(ctx, spec.words)
		if err != nil {
			return nil, fmt.Errorf("starting MCP server %q: %w", strings.Join(spec.words, " "), err)
		}
		s.sessions = append(s.sessions, cs)
		tools, err := mcp.Tools(ctx, cs, mcp.WithPrefix(spec.prefix), mcp.WithTakenNames(taken...))
		if err != nil {
			return nil, fmt.Errorf("MCP server %q: %w", strings.Join(spec.words, " "), err)
		}
		var names []string
		for _, t := range tools {
			taken = append(taken, t.Name)
			names = append(names, t.Name)
		}
		fmt.Fprintf(s.out, "mcp: %s, %s: %s\n", serverName(cs, spec.words), plural(len(tools), "tool"), strings.Join(names, ", "))
		all = append(all, tools...)
	}
	return all, nil
}

// serverName is the name the server gave itself, else its command.
func serverName(cs *sdk.ClientSession, words []string) string {
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil && r.ServerInfo.Name != "" {
		name := printable(r.ServerInfo.Name)
		if !strings.HasSuffix(strings.ToLower(name), "server") {
			name += " server"
		}
		return name
	}
	return printable(strings.Join(words, " "))
}

// printable keeps a server's words from moving the terminal's cursor.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// plural says "1 tool", "14 tools".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// close ends every session, which stops its server.
func (s *servers) close() {
	for _, cs := range s.sessions {
		cs.Close()
	}
}
