package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// objectSchema is the input schema of the test tools.
const objectSchema = `{"type":"object","properties":{"path":{"type":"string","description":"a file"}},"required":["path"]}`

// connect connects a client to srv over the SDK's in-memory transports
// and closes both ends when the test ends.
func connect(t testing.TB, srv *sdk.Server) (*sdk.ClientSession, *sdk.ServerSession) {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
		ss.Wait()
	})
	return cs, ss
}

// newServer returns a server named name (page size 0: the SDK's default).
func newServer(name string, pageSize int) *sdk.Server {
	return sdk.NewServer(&sdk.Implementation{Name: name, Version: "v0"}, &sdk.ServerOptions{PageSize: pageSize})
}

// addTool adds a tool with objectSchema whose handler answers with res.
func addTool(srv *sdk.Server, name string, ann *sdk.ToolAnnotations, res *sdk.CallToolResult) {
	srv.AddTool(&sdk.Tool{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(objectSchema), Annotations: ann},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return res, nil })
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}
