package agentcli

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// The offline model: a responder for llmstreamtest that behaves like a
// careful coding agent. It keeps no state; each turn is decided from the
// conversation the request carries, as a real model's would be:
//
//  1. no tool results yet: say what it will do and call list_files
//     (and search, when the task names something to find);
//  2. a listing arrived: pick the files that tell most about a project
//     and read them all at once (parallel calls);
//  3. file contents arrived: when write_file is offered (--allow-write),
//     save notes built from what it read to notesFile, once;
//  4. write a summary built from what it read (and how the write went).
const (
	maxFilesToRead = 4
	// notesFile is where the offline model asks to save its notes.
	notesFile = "AIRLOCK-NOTES.md"
	// scriptedBytesPerToken estimates token usage for the final line.
	scriptedBytesPerToken = 4
)

// scriptedTurn returns the offline model's next turn for req.
func scriptedTurn(req llmstreamtest.Request) llmstreamtest.Turn {
	task := lastUser(req.Messages)
	results := toolResults(req.Messages)
	var turn llmstreamtest.Turn
	switch {
	case len(results) == 0:
		turn = planTurn(task, req.Tools)
	case lastOwn(results) == "list_files" || lastOwn(results) == "search":
		turn = readTurn(task, results)
	case offers(req.Tools, "write_file") && !slices.ContainsFunc(results, func(r result) bool { return r.name == "write_file" }):
		turn = writeTurn(results)
	case req.Output != nil:
		turn = scriptedPlan(task, results)
	default:
		turn = summaryTurn(task, results)
	}
	turn.Usage = estimateUsage(req.Messages, turn)
	return turn
}

// lastOwn is the name of the last of results that answered one of the
// demo's own tools: an added tool called beside them does not change the
// plan.
func lastOwn(results []result) string {
	for i := len(results) - 1; i >= 0; i-- {
		if slices.Contains(ownTools, results[i].name) {
			return results[i].name
		}
	}
	return ""
}

// result is one tool call and its answer, from the conversation.
type result struct {
	name, args, content string
}

// toolResults pairs the tool messages of msgs with the calls they answer,
// in order.
func toolResults(msgs []llmstream.Message) []result {
	calls := map[string]llmstream.FunctionCall{}
	var out []result
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c.Function
		}
		if m.Role == "tool" {
			fc := calls[m.ToolCallID]
			out = append(out, result{name: fc.Name, args: fc.Arguments, content: m.Content})
		}
	}
	return out
}

func lastUser(msgs []llmstream.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// searchTerm finds what a task asks to look for: the first quoted text,
// or the word after "find", "search for" or "where is".
func searchTerm(task string) string {
	for _, q := range []string{`"`, "'", "`"} {
		if i := strings.Index(task, q); i >= 0 {
			if j := strings.Index(task[i+1:], q); j > 0 {
				return task[i+1 : i+1+j]
			}
		}
	}
	lower := strings.ToLower(task)
	for _, lead := range []string{"search for ", "find ", "where is ", "look for "} {
		if i := strings.Index(lower, lead); i >= 0 {
			fields := strings.Fields(task[i+len(lead):])
			if len(fields) > 0 {
				return strings.Trim(fields[0], ".,;:!?")
			}
		}
	}
	return ""
}

func jsonArgs(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func planTurn(task string, tools []llmstream.Tool) llmstreamtest.Turn {
	turn := llmstreamtest.Turn{
		Text:      "I'll start by looking at what is in the workspace, so my answer rests on the files themselves.",
		ToolCalls: []llmstreamtest.Call{{Name: "list_files", Arguments: jsonArgs(map[string]any{"path": ".", "max_entries": 200})}},
	}
	if term := searchTerm(task); term != "" {
		turn.Text = fmt.Sprintf("I'll list the workspace and search it for %q at the same time.", term)
		turn.ToolCalls = append(turn.ToolCalls, llmstreamtest.Call{Name: "search", Arguments: jsonArgs(map[string]any{"pattern": term, "max_results": 20})})
	}
	if name, args := addedTool(tools); name != "" {
		turn.Text += " I was given " + name + " too, so I'll try it."
		turn.ToolCalls = append(turn.ToolCalls, llmstreamtest.Call{Name: name, Arguments: args})
	}
	return turn
}

// ownTools are the demo's own tools; any other a request offers was added
// (an MCP server's, through WithTools).
var ownTools = []string{"list_files", "read_file_safe", "search", "write_file"}

// addedTool picks one added tool the offline model can call without
// knowing what it does: one that lists a directory (an MCP filesystem
// server's list_directory) or else one whose name says it reads, lists or
// gets, that needs no argument but perhaps a path; the path is ".". It
// returns "" when no tool fits.
func addedTool(tools []llmstream.Tool) (name, args string) {
	best := 0
	for _, t := range tools {
		n := t.Function.Name
		if slices.Contains(ownTools, n) {
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		_ = json.Unmarshal(t.Function.Parameters, &schema)
		if slices.ContainsFunc(schema.Required, func(r string) bool { return r != "path" }) {
			continue
		}
		rank := 0
		switch {
		case strings.HasSuffix(n, "list_directory"):
			rank = 2
		case strings.Contains(n, "list") || strings.Contains(n, "read") || strings.Contains(n, "get"):
			rank = 1
		}
		if rank > best {
			best, name, args = rank, n, "{}"
			if _, ok := schema.Properties["path"]; ok {
				args = jsonArgs(map[string]string{"path": "."})
			}
		}
	}
	return name, args
}

// listedFile is one file line of a list_files result.
type listedFile struct {
	path string
	size int64
}

// parseListing reads "path (N bytes)" lines; directories and other
// entries are skipped.
func parseListing(listing string) []listedFile {
	var out []listedFile
	for _, line := range strings.Split(listing, "\n") {
		p, rest, ok := strings.Cut(line, " (")
		var size int64
		if !ok || !strings.HasSuffix(rest, " bytes)") {
			continue
		}
		if _, err := fmt.Sscanf(rest, "%d bytes)", &size); err != nil {
			continue
		}
		out = append(out, listedFile{p, size})
	}
	return out
}

// pickFiles chooses the files that tell most about a project: docs and
// manifests first, then entry points, then shallow source files.
func pickFiles(files []listedFile, limit int) []string {
	score := func(f listedFile) int {
		base := strings.ToLower(path.Base(f.path))
		depth := strings.Count(f.path, "/")
		s := 100 - 10*depth
		switch {
		case base == "readme" || strings.HasPrefix(base, "readme."):
			s += 100
		case base == "go.mod" || base == "package.json" || base == "cargo.toml" || base == "pyproject.toml" || base == "makefile":
			s += 80
		case base == "main.go" || base == "doc.go" || base == "main.py" || base == "index.js" || base == "lib.rs":
			s += 60
		case strings.HasSuffix(base, "_test.go"):
			s -= 20
		case strings.HasSuffix(base, ".go") || strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".py") || strings.HasSuffix(base, ".rs") || strings.HasSuffix(base, ".js") || strings.HasSuffix(base, ".ts") || strings.HasSuffix(base, ".txt"):
			s += 20
		default:
			// Unknown kinds are likely binary or generated: never read.
			s -= 150
		}
		if f.size == 0 || f.size > 200<<10 {
			s -= 200
		}
		return s
	}
	sorted := append([]listedFile(nil), files...)
	sort.SliceStable(sorted, func(i, j int) bool { return score(sorted[i]) > score(sorted[j]) })
	var out []string
	for _, f := range sorted {
		if len(out) == limit || score(f) < 0 {
			break
		}
		out = append(out, f.path)
	}
	return out
}

func readTurn(task string, results []result) llmstreamtest.Turn {
	var files []listedFile
	for _, r := range results {
		if r.name == "list_files" {
			files = append(files, parseListing(r.content)...)
		}
	}
	picked := pickFiles(files, maxFilesToRead)
	if len(picked) == 0 {
		return summaryTurn(task, results)
	}
	turn := llmstreamtest.Turn{Text: fmt.Sprintf("I see %s. Reading %s to understand the project.", plural(len(files), "file"), strings.Join(picked, ", "))}
	for _, p := range picked {
		turn.ToolCalls = append(turn.ToolCalls, llmstreamtest.Call{Name: "read_file_safe", Arguments: jsonArgs(map[string]string{"path": p})})
	}
	return turn
}

// fileSummary says in a line what a file is, from its first meaningful
// lines: a heading, a package or module clause, or the first text line.
func fileSummary(content string) string {
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "# "):
			s := "titled “" + clip(strings.TrimPrefix(t, "# "), 80) + "”"
			if para := firstParagraph(lines[i+1:]); para != "" {
				s += ": " + strings.TrimSuffix(clip(para, 160), ".")
			}
			return s
		case strings.HasPrefix(t, "module "):
			return "module " + clip(strings.TrimPrefix(t, "module "), 80)
		case strings.HasPrefix(t, "package "):
			s := "Go " + clip(t, 80)
			if doc := goDoc(lines[:i]); doc != "" {
				s += ": " + strings.TrimSuffix(clip(doc, 160), ".")
			}
			return s
		}
	}
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "//") {
			return "starts “" + clip(t, 60) + "”"
		}
	}
	return "empty"
}

// goDoc returns the first sentence of the // comment just above a
// package clause.
func goDoc(above []string) string {
	var doc []string
	for i := len(above) - 1; i >= 0; i-- {
		t := strings.TrimSpace(above[i])
		if !strings.HasPrefix(t, "//") {
			break
		}
		doc = append([]string{strings.TrimSpace(strings.TrimPrefix(t, "//"))}, doc...)
	}
	text := strings.Join(doc, " ")
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	return text
}

// firstParagraph returns the first paragraph of prose in lines, joined
// into one line; headings, lists, code fences and tables don't count.
func firstParagraph(lines []string) string {
	var para []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		// Markup that is not prose: a heading, a list, a table, a quote, a
		// code fence. A line may start with inline code and go on the
		// paragraph.
		if strings.ContainsAny(t[:1], "#-*|>") || strings.HasPrefix(t, "```") {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	return strings.Join(para, " ")
}

// offers reports whether a request offers the tool name.
func offers(tools []llmstream.Tool, name string) bool {
	return slices.ContainsFunc(tools, func(t llmstream.Tool) bool { return t.Function.Name == name })
}

// writeTurn asks to save what the files said to notesFile.
func writeTurn(results []result) llmstreamtest.Turn {
	var b strings.Builder
	b.WriteString("# Notes by the airlock demo agent\n\n")
	for _, r := range results {
		if r.name == "read_file_safe" && !failed(r) {
			writeFileLine(&b, r)
		}
	}
	return llmstreamtest.Turn{
		Text:      "I may write files in this run, so I'll keep these notes in " + notesFile + " for later.",
		ToolCalls: []llmstreamtest.Call{{Name: "write_file", Arguments: jsonArgs(map[string]string{"path": notesFile, "content": b.String()})}},
	}
}

// failed reports whether a call's answer is a failure rather than output:
// an error, a denial, a call skipped or not run.
func failed(r result) bool {
	for _, prefix := range []string{"error: ", "skipped: ", "denied: ", "not run: ", "cancelled: "} {
		if strings.HasPrefix(r.content, prefix) {
			return true
		}
	}
	return false
}

// writeFileLine is the summary's line for a file read.
func writeFileLine(b *strings.Builder, r result) {
	var in struct{ Path string }
	_ = json.Unmarshal([]byte(r.args), &in)
	fmt.Fprintf(b, "- %s: %s, %s\n", in.Path, plural(strings.Count(r.content, "\n"), "line"), sentence(fileSummary(r.content)))
}

func summaryTurn(task string, results []result) llmstreamtest.Turn {
	var b strings.Builder
	b.WriteString("Here is what I found.\n\n")
	listed, read, failures := 0, 0, 0
	wrote := ""
	for _, r := range results {
		failedCall := failed(r)
		switch {
		case r.name == "write_file" && strings.HasPrefix(r.content, "denied: "):
			wrote = " You did not let me write " + notesFile + " (" + clip(strings.TrimPrefix(r.content, "denied: "), 120) + "), so I left the files as they were."
		case r.name == "write_file" && !failedCall:
			wrote = " I saved these notes in " + notesFile + "."
		case r.name == "list_files" && !failedCall:
			listed += len(parseListing(r.content))
		case r.name == "read_file_safe" && !failedCall:
			read++
			writeFileLine(&b, r)
		case r.name == "search" && !failedCall:
			writeHits(&b, r.content)
		case failedCall:
			failures++
			fmt.Fprintf(&b, "- %s failed: %s\n", r.name, clip(strings.TrimPrefix(r.content, "error: "), 120))
		case !slices.Contains(ownTools, r.name):
			fmt.Fprintf(&b, "- %s (a tool I was given) answered %s: %s\n", r.name, plural(strings.Count(strings.TrimSuffix(r.content, "\n"), "\n")+1, "line"), clip(oneLine(r.content), 120))
		}
	}
	fmt.Fprintf(&b, "\nThe workspace lists %s; I read %d of them", plural(listed, "file"), read)
	if failures > 0 {
		fmt.Fprintf(&b, " and %s failed", plural(failures, "tool call"))
	}
	b.WriteString("." + wrote + " I am the offline scripted model, so this is a sketch drawn from the files, not an understanding of them; run me against a real model for that.")
	return llmstreamtest.Turn{Text: b.String()}
}

// maxHitsShown is how many search hits the summary quotes.
const maxHitsShown = 5

// writeHits reports a search result: how many lines matched and the first
// few of them. The search tool ends a capped result with a "(stopped ...)"
// note, which is not a hit but says there are more.
func writeHits(b *strings.Builder, content string) {
	var hits []string
	more := false
	for _, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "no line contains"):
		case strings.HasPrefix(line, "(stopped"):
			more = true
		default:
			hits = append(hits, line)
		}
	}
	count := plural(len(hits), "matching line")
	if more {
		count = "more than " + count
	}
	if len(hits) == 0 {
		fmt.Fprintf(b, "- search found %s.\n", count)
		return
	}
	fmt.Fprintf(b, "- search found %s:\n", count)
	for i, h := range hits {
		if i == maxHitsShown {
			fmt.Fprintf(b, "    (and %d more)\n", len(hits)-maxHitsShown)
			break
		}
		fmt.Fprintf(b, "    %s\n", clip(h, 120))
	}
}

// sentence ends s with a full stop unless it already ends a sentence or
// was clipped.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "…") {
		return s
	}
	return s + "."
}

// plural says "1 line", "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// estimateUsage gives the turn a plausible token count, so the final line
// has numbers to show.
func estimateUsage(msgs []llmstream.Message, turn llmstreamtest.Turn) *llmstream.Usage {
	in := 0
	for _, m := range msgs {
		in += len(m.Content)
		for _, c := range m.ToolCalls {
			in += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	out := len(turn.Text)
	for _, c := range turn.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := &llmstream.Usage{PromptTokens: in/scriptedBytesPerToken + 1, CompletionTokens: out/scriptedBytesPerToken + 1}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}
