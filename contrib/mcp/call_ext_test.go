package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/agentloop"
	mcp "github.com/airlock-go/airlock/contrib/mcp"
	"github.com/airlock-go/airlock/llmstream"
)

func TestCallResults(t *testing.T) {
	size := int64(7)
	cases := []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"text", text("hello"), "hello"},
		{"texts_joined", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}}}, "one\ntwo"},
		{"empty", &sdk.CallToolResult{Content: []sdk.Content{}}, ""},
		{"image", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a chart:"}, &sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)}}},
			"a chart:\n[image: image/png, 1234 bytes]"},
		{"audio", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}}}, "[audio: audio/wav, 4 bytes]"},
		{"resource_link", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Size: &size}}},
			"[resource link: file:///a.txt, a.txt, text/plain]"},
		{"text_resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "contents"}}}},
			"[resource: file:///a.txt, text/plain]\ncontents"},
		{"blob_resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.bin", Blob: []byte{1, 2, 3}}}}},
			"[resource: file:///a.bin, unknown type, 3 bytes]"},
		{"structured_only", &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"n": 1, "s": "x"}}, `{"n":1,"s":"x"}`},
		{"structured_and_text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "two items: a, b"}}, StructuredContent: []any{"a", "b"}},
			"two items: a, b"},
		{"structured_and_image", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/gif", Data: []byte("GIF89a")}}, StructuredContent: []any{"a", "b"}},
			"[image: image/gif, 6 bytes]\n[\"a\",\"b\"]"},
	}
	srv := newServer("results", 0)
	for _, c := range cases {
		addTool(srv, c.name, nil, c.res)
	}
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]agentloop.Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := byName[c.name].Run(context.Background(), json.RawMessage(`{"path":"p"}`))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestMaxOutputBytes checks the bound at, one below and one above a
// result's length, and a cut that would split a rune.
func TestMaxOutputBytes(t *testing.T) {
	const body = "0123456789é" // 12 bytes, é at 10-11
	srv := newServer("big", 0)
	addTool(srv, "big", nil, text(body))
	cs, _ := connect(t, srv)
	for _, tc := range []struct {
		max  int
		want string
	}{
		{13, body},
		{12, body},
		{11, "0123456789\n[mcp: result cut at 11 bytes; 2 bytes not shown]"},
		{10, "0123456789\n[mcp: result cut at 10 bytes; 2 bytes not shown]"},
		{9, "012345678\n[mcp: result cut at 9 bytes; 3 bytes not shown]"},
		{-1, body},
	} {
		tools, err := mcp.Tools(context.Background(), cs, mcp.WithMaxOutputBytes(tc.max))
		if err != nil {
			t.Fatal(err)
		}
		got, err := tools[0].Run(context.Background(), json.RawMessage(`{}`))
		if err != nil || got != tc.want {
			t.Errorf("WithMaxOutputBytes(%d): got %q, %v; want %q", tc.max, got, err, tc.want)
		}
	}
}

// TestDefaultMaxOutputBytes: a 1 MiB text comes back cut at the default.
func TestDefaultMaxOutputBytes(t *testing.T) {
	srv := newServer("huge", 0)
	addTool(srv, "huge", nil, text(strings.Repeat("x", 1<<20)))
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tools[0].Run(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, strings.Repeat("x", mcp.DefaultMaxOutputBytes)+"\n[mcp: result cut at") || len(got) > mcp.DefaultMaxOutputBytes+80 {
		t.Errorf("got %d bytes ending %q", len(got), got[len(got)-60:])
	}
}

// TestIsErrorIsRecoverable: the model sees the server's text and the run
// goes on.
func TestIsErrorIsRecoverable(t *testing.T) {
	srv := newServer("fs", 0)
	addTool(srv, "read_file", nil, &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "ENOENT: no such file"}}})
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools[0].Run(context.Background(), json.RawMessage(`{"path":"nope"}`))
	var ce *mcp.CallError
	var rec *agentloop.RecoverableError
	if !errors.Is(err, mcp.ErrToolFailed) || !errors.As(err, &ce) || !errors.As(err, &rec) || ce.Server != "fs" || ce.Tool != "read_file" {
		t.Fatalf("got %v; want a recoverable *CallError wrapping ErrToolFailed", err)
	}

	loop := agentloop.Loop{Model: scriptedModel([]call{{"read_file", `{"path":"nope"}`}}), Tools: tools}
	res, err := loop.Run(context.Background(), userSays("read nope"))
	if err != nil {
		t.Fatalf("a recoverable failure stopped the run: %v", err)
	}
	want := []string{`error: mcp: server "fs": tool "read_file": the tool reported an error: ENOENT: no such file`}
	if diff := cmp.Diff(want, toolOutputs(res)); diff != "" {
		t.Errorf("the model saw (-want +got):\n%s", diff)
	}
}

// TestInvalidParamsIsRecoverable: a server that refuses the arguments
// with a JSON-RPC error lets the model try again.
func TestInvalidParamsIsRecoverable(t *testing.T) {
	srv := newServer("strict", 0)
	srv.AddTool(&sdk.Tool{Name: "strict", InputSchema: json.RawMessage(objectSchema)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "path must be relative"}
		})
	srv.AddTool(&sdk.Tool{Name: "broken", InputSchema: json.RawMessage(objectSchema)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "disk on fire"}
		})
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		_, err := tool.Run(context.Background(), json.RawMessage(`{"path":"/etc"}`))
		var rec *agentloop.RecoverableError
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || errors.As(err, &rec) != (tool.Name == "strict") || errors.Is(err, mcp.ErrConnection) {
			t.Errorf("%s: got %v (recoverable %v); want the *jsonrpc.Error, recoverable only for invalid params", tool.Name, err, errors.As(err, &rec))
		}
	}
	// The server is alive: a refused call does not mark it failed.
	if _, err := tools[0].Run(context.Background(), json.RawMessage(`{}`)); errors.Is(err, mcp.ErrConnection) {
		t.Errorf("after a JSON-RPC error: %v", err)
	}
}

// TestHangingToolCutByTimeout: the loop's tool timeout ends a call to a
// server that never answers, and the connection still serves the next.
func TestHangingToolCutByTimeout(t *testing.T) {
	srv := newServer("slow", 0)
	release := make(chan struct{})
	srv.AddTool(&sdk.Tool{Name: "hang", InputSchema: json.RawMessage(objectSchema)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-release // ignores its context, as a stuck server would
			return text("late"), nil
		})
	addTool(srv, "quick", nil, text("quick"))
	cs, _ := connect(t, srv)
	defer close(release) // before the cleanup closes the sessions
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	loop := agentloop.Loop{Model: scriptedModel([]call{{"hang", `{}`}}), Tools: tools, ToolTimeout: 50 * time.Millisecond}
	_, err = loop.Run(context.Background(), userSays("hang"))
	var ce *mcp.CallError
	if !errors.Is(err, agentloop.ErrToolTimeout) || !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want ErrToolTimeout over a *CallError with the deadline", err)
	}
	quick := tools[1]
	if out, err := quick.Run(context.Background(), json.RawMessage(`{}`)); err != nil || out != "quick" {
		t.Errorf("after a timeout: %q, %v", out, err)
	}
}

// TestServerDiesMidRun: the call after the server closed its end fails
// with ErrConnection naming the server and tool, and so does every later
// call, whichever tool, with the first cause.
func TestServerDiesMidRun(t *testing.T) {
	srv := newServer("mortal", 0)
	addTool(srv, "a", nil, text("a"))
	addTool(srv, "b", nil, text("b"))
	cs, ss := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := tools[0].Run(context.Background(), json.RawMessage(`{}`)); err != nil || out != "a" {
		t.Fatalf("before: %q, %v", out, err)
	}
	ss.Close()

	loop := agentloop.Loop{Model: scriptedModel([]call{{"a", `{}`}}), Tools: tools}
	res, err := loop.Run(context.Background(), userSays("go"))
	var ce *mcp.CallError
	var rec *agentloop.RecoverableError
	if !errors.Is(err, mcp.ErrConnection) || !errors.As(err, &ce) || errors.As(err, &rec) {
		t.Fatalf("got %v; want a non-recoverable *CallError wrapping ErrConnection", err)
	}
	if ce.Server != "mortal" || ce.Tool != "a" || !strings.Contains(err.Error(), `mcp: server "mortal": tool "a": the connection to the server failed`) {
		t.Errorf("error %q does not name the server and tool", err)
	}
	if n := len(toolOutputs(res)); n != 1 {
		t.Errorf("%d tool messages, want the failed call answered", n)
	}
	first := err.Error()

	_, err = tools[1].Run(context.Background(), json.RawMessage(`{}`))
	if !errors.Is(err, mcp.ErrConnection) || !strings.Contains(err.Error(), `(call of "a")`) {
		t.Fatalf("the next call, of b: %v; want the first failure reported", err)
	}
	if !strings.Contains(first, strings.TrimPrefix(err.Error(), `mcp: server "mortal": tool "b": `)) {
		t.Errorf("next call %q does not carry the first failure %q", err, first)
	}
}

// TestSecretsNeverInErrors: a secret that reaches an error text through
// the server's name is masked, and errors.Is still works.
func TestSecretsNeverInErrors(t *testing.T) {
	const secret = "tok-7f3a9c0d2e"
	srv := newServer("server-"+secret, 0)
	addTool(srv, "a", nil, &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad token " + secret}}})
	cs, ss := connect(t, srv)
	opt := mcp.WithSecrets("", secret)

	_, err := mcp.Tools(context.Background(), cs, opt, mcp.WithTakenNames("a"))
	checkMasked(t, "collision", err, secret, mcp.ErrNameTaken)

	tools, err := mcp.Tools(context.Background(), cs, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools[0].Run(context.Background(), json.RawMessage(`{}`))
	checkMasked(t, "isError", err, secret, mcp.ErrToolFailed)
	var rec *agentloop.RecoverableError
	if !errors.As(err, &rec) || strings.Contains(rec.Error(), secret) {
		t.Errorf("isError: %v, want recoverable with the secret masked in what the model sees", err)
	}

	ss.Close()
	_, err = tools[0].Run(context.Background(), json.RawMessage(`{}`))
	checkMasked(t, "connection", err, secret, mcp.ErrConnection)
}

func checkMasked(t *testing.T, what string, err error, secret string, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("%s: %q; want %v with the secret masked", what, err, sentinel)
	}
}

func userSays(s string) []llmstream.Message {
	return []llmstream.Message{{Role: "user", Content: s}}
}

// toolOutputs returns the content of every tool message of a run.
func toolOutputs(res agentloop.Result) []string {
	var out []string
	for _, m := range res.Messages {
		if m.Role == "tool" {
			out = append(out, m.Content)
		}
	}
	return out
}
