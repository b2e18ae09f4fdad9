package agentcli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

func TestSearchTerm(t *testing.T) {
	tests := []struct {
		name, task, want string
	}{
		{"nothing to find", "Explore this project", ""},
		{"double quotes", `where do we call "NewClient" here`, "NewClient"},
		{"backquotes", "look at `os.Root` use", "os.Root"},
		{"find", "find TODO markers", "TODO"},
		{"search for, punctuation trimmed", "Search for errBoom.", "errBoom"},
		{"where is", "where is main?", "main"},
		{"lone quote ignored", `it's here, find x`, "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := searchTerm(tc.task); got != tc.want {
				t.Errorf("searchTerm(%q) = %q, want %q", tc.task, got, tc.want)
			}
		})
	}
}

func TestParseListingAndPick(t *testing.T) {
	listing := "a/\na/deep/x.go (10 bytes)\nREADME.md (50 bytes)\nmain_test.go (9 bytes)\nmain.go (20 bytes)\nlogo.png (999 bytes)\nempty.go (0 bytes)\nlink (symlink)\ngo.mod (30 bytes)\nreadmessage_test.go (40 bytes)\n(stopped at 9 entries; list a subdirectory to see more)\n"
	files := parseListing(listing)
	wantFiles := []listedFile{{"a/deep/x.go", 10}, {"README.md", 50}, {"main_test.go", 9}, {"main.go", 20}, {"logo.png", 999}, {"empty.go", 0}, {"go.mod", 30}, {"readmessage_test.go", 40}}
	if diff := cmp.Diff(wantFiles, files, cmp.AllowUnexported(listedFile{})); diff != "" {
		t.Errorf("parseListing (-want +got):\n%s", diff)
	}
	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{"docs, manifest, entry point first", 3, []string{"README.md", "go.mod", "main.go"}},
		{"then sources, tests after them (readme… is not a README); binary and empty never", 10, []string{"README.md", "go.mod", "main.go", "a/deep/x.go", "main_test.go", "readmessage_test.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, pickFiles(files, tc.limit)); diff != "" {
				t.Errorf("pickFiles (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScriptedTurns(t *testing.T) {
	sys := llmstream.Message{Role: "system", Content: "s"}
	user := llmstream.Message{Role: "user", Content: "Explore"}
	listCall := llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "l", Function: llmstream.FunctionCall{Name: "list_files", Arguments: `{}`}}}}
	readCall := llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{
		{ID: "r1", Function: llmstream.FunctionCall{Name: "read_file_safe", Arguments: `{"path":"README.md"}`}},
		{ID: "r2", Function: llmstream.FunctionCall{Name: "read_file_safe", Arguments: `{"path":"go.mod"}`}},
	}}
	tests := []struct {
		name string
		msgs []llmstream.Message
		want llmstreamtest.Turn
	}{
		{"first: list the workspace", []llmstream.Message{sys, user}, llmstreamtest.Turn{
			Text:      "I'll start by looking at what is in the workspace, so my answer rests on the files themselves.",
			ToolCalls: []llmstreamtest.Call{{Name: "list_files", Arguments: `{"max_entries":200,"path":"."}`}},
		}},
		{"after the listing: read in parallel", []llmstream.Message{sys, user, listCall, {Role: "tool", ToolCallID: "l", Content: "README.md (9 bytes)\ngo.mod (8 bytes)\n"}}, llmstreamtest.Turn{
			Text: "I see 2 files. Reading README.md, go.mod to understand the project.",
			ToolCalls: []llmstreamtest.Call{
				{Name: "read_file_safe", Arguments: `{"path":"README.md"}`},
				{Name: "read_file_safe", Arguments: `{"path":"go.mod"}`},
			},
		}},
		{"one file: singular", []llmstream.Message{sys, user, listCall, {Role: "tool", ToolCallID: "l", Content: "README.md (9 bytes)\n"}}, llmstreamtest.Turn{
			Text:      "I see 1 file. Reading README.md to understand the project.",
			ToolCalls: []llmstreamtest.Call{{Name: "read_file_safe", Arguments: `{"path":"README.md"}`}},
		}},
		{"an empty listing: summarize at once", []llmstream.Message{sys, user, listCall, {Role: "tool", ToolCallID: "l", Content: "(empty)\n"}}, llmstreamtest.Turn{
			Text: "Here is what I found.\n\n\nThe workspace lists 0 files; I read 0 of them. I am the offline scripted model, so this is a sketch drawn from the files, not an understanding of them; run me against a real model for that.",
		}},
		{"after reading: summarize, failures included", []llmstream.Message{sys, user, listCall, {Role: "tool", ToolCallID: "l", Content: "README.md (9 bytes)\ngo.mod (8 bytes)\n"}, readCall,
			{Role: "tool", ToolCallID: "r1", Content: "# Demo\n\nA demo.\n"}, {Role: "tool", ToolCallID: "r2", Content: "error: go.mod looks binary"}}, llmstreamtest.Turn{
			Text: "Here is what I found.\n\n- README.md: 3 lines, titled “Demo”: A demo.\n- read_file_safe failed: go.mod looks binary\n\nThe workspace lists 2 files; I read 1 of them and 1 tool call failed. I am the offline scripted model, so this is a sketch drawn from the files, not an understanding of them; run me against a real model for that.",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scriptedTurn(llmstreamtest.Request{Messages: tc.msgs})
			if got.Usage == nil || got.Usage.TotalTokens != got.Usage.PromptTokens+got.Usage.CompletionTokens || got.Usage.PromptTokens < 1 {
				t.Errorf("usage %+v", got.Usage)
			}
			got.Usage = nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("turn (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteHits(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"no hits", "no line contains \"x\"\n", "- search found 0 matching lines.\n"},
		{"one hit", "a.go:2: x\n", "- search found 1 matching line:\n    a.go:2: x\n"},
		{"five hits, all shown", "a:1: x\na:2: x\na:3: x\na:4: x\na:5: x\n", "- search found 5 matching lines:\n    a:1: x\n    a:2: x\n    a:3: x\n    a:4: x\n    a:5: x\n"},
		{"six hits, five shown", "a:1: x\na:2: x\na:3: x\na:4: x\na:5: x\na:6: x\n", "- search found 6 matching lines:\n    a:1: x\n    a:2: x\n    a:3: x\n    a:4: x\n    a:5: x\n    (and 1 more)\n"},
		{"the stop note is not a hit", "a:1: x\n(stopped at 1 results)\n", "- search found more than 1 matching line:\n    a:1: x\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeHits(&b, tc.content)
			if got := b.String(); got != tc.want {
				t.Errorf("writeHits(%q) = %q, want %q", tc.content, got, tc.want)
			}
		})
	}
}

func TestSentence(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"gets a full stop", "module x", "module x."},
		{"keeps its full stop", "A demo.", "A demo."},
		{"clipped text gets none", "Nothing half…", "Nothing half…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sentence(tc.in); got != tc.want {
				t.Errorf("sentence(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestFileSummary: a Markdown paragraph runs on over a line that starts
// with inline code; only a heading, a list, a table, a quote or a code
// fence ends it.
func TestFileSummary(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"inline code starts a line", "# bench\n\nA module of its own (`x/bench`, with\n`replace x => ..`), so peers stay out.\n", "titled “bench”: A module of its own (`x/bench`, with `replace x => ..`), so peers stay out"},
		{"a code fence ends it", "# t\n\nSome text.\n```sh\ngo run .\n```\n", "titled “t”: Some text"},
		{"a list ends it", "# t\n\nFirst.\n- item\n", "titled “t”: First"},
		{"go package", "// Package p does things. More.\npackage p\n", "Go package p: Package p does things"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fileSummary(tc.content); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestScriptedCallsAnAddedTool: offered a tool beside its own (an MCP
// server's), the offline model calls one it can call blind — a directory
// listing first, else one that reads, lists or gets with no argument but a
// path — in its first turn, and goes on reading files as before.
func TestScriptedCallsAnAddedTool(t *testing.T) {
	tool := func(name, schema string) llmstream.Tool {
		return llmstream.Tool{Function: llmstream.ToolFunction{Name: name, Parameters: json.RawMessage(schema)}}
	}
	own := []llmstream.Tool{tool("list_files", `{}`), tool("read_file_safe", `{}`), tool("search", `{}`)}
	path := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	tests := []struct {
		name      string
		added     []llmstream.Tool
		call, arg string
	}{
		{"a directory listing first", []llmstream.Tool{tool("mcp_read_text_file", path), tool("mcp_list_directory", path)}, "mcp_list_directory", `{"path":"."}`},
		{"one that reads, no arguments", []llmstream.Tool{tool("mcp_write_file", path), tool("fs_read_greeting", `{"type":"object","properties":{"who":{"type":"string"}}}`)}, "fs_read_greeting", "{}"},
		{"one that needs more than a path", []llmstream.Tool{tool("mcp_read_media", `{"properties":{"path":{},"mime":{}},"required":["path","mime"]}`)}, "", ""},
		{"a name that says nothing", []llmstream.Tool{tool("mcp_wave", `{}`)}, "", ""},
		{"none", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := llmstreamtest.Request{Tools: append(append([]llmstream.Tool(nil), own...), tt.added...),
				Messages: []llmstream.Message{{Role: "user", Content: "Explore this project."}}}
			turn := scriptedTurn(req)
			var added []llmstreamtest.Call
			for _, c := range turn.ToolCalls {
				if c.Name != "list_files" {
					added = append(added, c)
				}
			}
			switch {
			case tt.call == "" && len(added) != 0:
				t.Errorf("calls %v, want list_files alone", added)
			case tt.call != "" && (len(added) != 1 || added[0].Name != tt.call || added[0].Arguments != tt.arg):
				t.Errorf("calls %v, want list_files and %s %s", turn.ToolCalls, tt.call, tt.arg)
			}
			if tt.call == "" {
				return
			}
			// The next turn reads files, whatever order the answers came in.
			req.Messages = append(req.Messages,
				llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{
					{ID: "1", Function: llmstream.FunctionCall{Name: "list_files", Arguments: "{}"}},
					{ID: "2", Function: llmstream.FunctionCall{Name: tt.call, Arguments: tt.arg}}}},
				llmstream.Message{Role: "tool", ToolCallID: "1", Content: "README.md (10 bytes)\n"},
				llmstream.Message{Role: "tool", ToolCallID: "2", Content: "[FILE] README.md"})
			next := scriptedTurn(req)
			if len(next.ToolCalls) != 1 || next.ToolCalls[0].Name != "read_file_safe" {
				t.Errorf("next turn %+v, want it to read README.md", next.ToolCalls)
			}
		})
	}
}
