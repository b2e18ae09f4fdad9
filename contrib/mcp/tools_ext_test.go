package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/agentloop"
	mcp "github.com/airlock-go/airlock/contrib/mcp"
)

func TestToolsFields(t *testing.T) {
	srv := newServer("fields", 0)
	addTool(srv, "read_file", nil, text("x"))
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 {
		t.Fatalf("got %d tools, want 1", len(tools))
	}
	got := tools[0]
	if got.Name != "read_file" || got.Description != "the read_file tool" || got.Run == nil {
		t.Errorf("got name %q, description %q, Run set %v", got.Name, got.Description, got.Run != nil)
	}
	var gotSchema, wantSchema any
	if err := json.Unmarshal(got.Parameters, &gotSchema); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(objectSchema), &wantSchema)
	if diff := cmp.Diff(wantSchema, gotSchema); diff != "" {
		t.Errorf("schema (-sent +got):\n%s", diff)
	}
}

func TestToolsFollowsPages(t *testing.T) {
	srv := newServer("pages", 2)
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("t%d", i)
		addTool(srv, name, nil, text(name))
		want = append(want, name)
	}
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, names(tools)); diff != "" {
		t.Errorf("names over 3 pages of 2 (-want +got):\n%s", diff)
	}
}

func TestMaxTools(t *testing.T) {
	srv := newServer("five", 2)
	for i := range 5 {
		addTool(srv, fmt.Sprintf("t%d", i), nil, text("x"))
	}
	cs, _ := connect(t, srv)
	for _, tc := range []struct {
		max  int
		fail bool
	}{{4, true}, {5, false}, {6, false}, {0, false}} {
		tools, err := mcp.Tools(context.Background(), cs, mcp.WithMaxTools(tc.max))
		if tc.fail != errors.Is(err, mcp.ErrTooManyTools) || (err != nil) != tc.fail {
			t.Errorf("WithMaxTools(%d) with 5 tools: err %v, want ErrTooManyTools: %v", tc.max, err, tc.fail)
		}
		if tc.fail && (tools != nil || !strings.Contains(err.Error(), "more than 4")) {
			t.Errorf("WithMaxTools(%d): tools %v, error %q; want none and the limit in the text", tc.max, names(tools), err)
		}
	}
}

func TestPrefixAndTakenNames(t *testing.T) {
	a, b := newServer("a", 0), newServer("b", 0)
	addTool(a, "read_file", nil, text("from a"))
	addTool(b, "read_file", nil, text("from b"))
	csA, _ := connect(t, a)
	csB, _ := connect(t, b)
	ctx := context.Background()

	ta, err := mcp.Tools(ctx, csA, mcp.WithPrefix("a_"))
	if err != nil {
		t.Fatal(err)
	}
	// Without a prefix, b's read_file takes no name a's took.
	tb, err := mcp.Tools(ctx, csB, mcp.WithTakenNames(names(ta)...))
	if err != nil {
		t.Fatal(err)
	}
	// Both in one loop, each reaching its own server.
	loop := agentloop.Loop{Model: scriptedModel([]call{{"a_read_file", `{"path":"p"}`}, {"read_file", `{"path":"p"}`}}), Tools: append(ta, tb...)}
	res, err := loop.Run(ctx, userSays("read"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"from a", "from b"}, toolOutputs(res)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}

	// b again, with a's names taken and the same prefix: refused.
	tools, err := mcp.Tools(ctx, csB, mcp.WithPrefix("a_"), mcp.WithTakenNames("x", "a_read_file"))
	var ce *mcp.CollisionError
	if !errors.As(err, &ce) || !errors.Is(err, mcp.ErrNameTaken) || tools != nil {
		t.Fatalf("got %v, %v; want a *CollisionError and no tools", names(tools), err)
	}
	want := mcp.CollisionError{Server: "b", Name: "a_read_file", Tool: "read_file"}
	if *ce != want {
		t.Errorf("got %+v, want %+v", *ce, want)
	}
}

// TestCollisionInOneList: a server that lists one name twice is refused,
// not shadowed. The SDK's server cannot list a name twice, so a
// middleware answers tools/list.
func TestCollisionInOneList(t *testing.T) {
	srv := newServer("dup", 0)
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			tool := func(d string) *sdk.Tool {
				return &sdk.Tool{Name: "same", Description: d, InputSchema: json.RawMessage(objectSchema)}
			}
			return &sdk.ListToolsResult{Tools: []*sdk.Tool{tool("first"), tool("second")}}, nil
		}
	})
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs, mcp.WithPrefix("p_"))
	var ce *mcp.CollisionError
	if !errors.As(err, &ce) || tools != nil {
		t.Fatalf("got %v, %v; want a *CollisionError", names(tools), err)
	}
	want := mcp.CollisionError{Server: "dup", Name: "p_same", Tool: "same", Other: "same"}
	if *ce != want {
		t.Errorf("got %+v, want %+v", *ce, want)
	}
	if msg := `mcp: server "dup": tools "same" and "same" would both be offered as "p_same"`; err.Error() != msg {
		t.Errorf("text %q, want %q", err, msg)
	}
}

func TestFilter(t *testing.T) {
	srv := newServer("filter", 0)
	for _, n := range []string{"read", "write", "delete"} {
		addTool(srv, n, nil, text(n))
	}
	cs, _ := connect(t, srv)
	var seen []string
	tools, err := mcp.Tools(context.Background(), cs, mcp.WithPrefix("p_"), mcp.WithFilter(func(t *sdk.Tool) bool {
		seen = append(seen, t.Name)
		return t.Name != "write"
	}))
	if err != nil {
		t.Fatal(err)
	}
	// The server lists in name order; the filter sees unprefixed names.
	if diff := cmp.Diff([]string{"delete", "read", "write"}, seen); diff != "" {
		t.Errorf("filter saw (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"p_delete", "p_read"}, names(tools)); diff != "" {
		t.Errorf("offered (-want +got):\n%s", diff)
	}
}

func TestNeedsApproval(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		ann  *sdk.ToolAnnotations
		want bool
	}{
		{"no_annotations", nil, true},
		{"empty_annotations", &sdk.ToolAnnotations{}, true},
		{"read_only", &sdk.ToolAnnotations{ReadOnlyHint: true}, false},
		{"read_only_and_destructive", &sdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, false},
		{"destructive", &sdk.ToolAnnotations{DestructiveHint: &yes}, true},
		{"additive", &sdk.ToolAnnotations{DestructiveHint: &no}, true},
		{"idempotent", &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no}, true},
	}
	srv := newServer("ann", 0)
	want := map[string]bool{}
	for _, c := range cases {
		addTool(srv, c.name, c.ann, text("x"))
		want[c.name] = c.want
	}
	cs, _ := connect(t, srv)
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, tool := range tools {
		got[tool.Name] = tool.NeedsApproval
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NeedsApproval by annotations (-want +got):\n%s", diff)
	}

	// A caller's rule replaces the annotations.
	tools, err = mcp.Tools(context.Background(), cs, mcp.WithApproval(func(t *sdk.Tool) bool { return t.Name == "read_only" }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.NeedsApproval != (tool.Name == "read_only") {
			t.Errorf("with a rule: %s NeedsApproval %v", tool.Name, tool.NeedsApproval)
		}
	}
}

func TestOptionStrings(t *testing.T) {
	for _, tc := range []struct {
		opt  mcp.Option
		want string
	}{
		{mcp.WithPrefix("fs_"), `mcp.WithPrefix("fs_")`},
		{mcp.WithTakenNames("a", "b"), `mcp.WithTakenNames("a, b")`},
		{mcp.WithFilter(nil), "mcp.WithFilter(func)"},
		{mcp.WithApproval(nil), "mcp.WithApproval(func)"},
		{mcp.WithMaxOutputBytes(10), "mcp.WithMaxOutputBytes(10)"},
		{mcp.WithMaxTools(-1), "mcp.WithMaxTools(-1)"},
		{mcp.WithSecrets("hunter2-token"), "mcp.WithSecrets(<1 redacted>)"},
	} {
		if got := tc.opt.String(); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func names(tools []agentloop.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}
