package agentcli

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
)

// demoWorkspace is a small project for the end-to-end runs.
func demoWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"README.md":      "# Widget\n\nWidget counts widgets.\n",
		"go.mod":         "module example.com/widget\n\ngo 1.24\n",
		"main.go":        "// Package main runs the widget counter. It is small.\npackage main\n\nfunc main() {} // TODO: count\n",
		"internal/x.go":  "package internal\n",
		"logo.png":       "\x89PNG\x00\x00",
		".git/HEAD":      "ref: refs/heads/main\n",
		"docs/notes.txt": "TODO: write docs\n",
	}
	writeFiles(t, dir, files)
	return dir
}

// inCallOrder sorts each run of lines that report the calls of a parallel
// batch ("  • [2/4] ..."), which end in any order, by call number.
func inCallOrder(out string) string {
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.HasPrefix(lines[j], "  • [") {
			j++
		}
		if j == i {
			i++
			continue
		}
		slices.SortStableFunc(lines[i:j], func(a, b string) int { return batchIndex(a) - batchIndex(b) })
		i = j
	}
	return strings.Join(lines, "\n")
}

// batchIndex is k of a line "  • [k/n] ...".
func batchIndex(line string) int {
	var k, n int
	fmt.Sscanf(line, "  • [%d/%d]", &k, &n)
	return k
}

// timing matches the parts of the output that vary from run to run, and
// the fragment counts, which depend on how llmstreamtest cuts arguments.
var timing = regexp.MustCompile(`[0-9.]+(µs|ms|s)\b|\d+ tokens \(\d+ in, \d+ out\)|\d+ fragments?\b`)

func TestOfflineEndToEnd(t *testing.T) {
	dir := demoWorkspace(t)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", dir, "--offline-delay", "0"}, &stdout, &stderr, envOf(nil))
	if code != exitOK || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	got := inCallOrder(timing.ReplaceAllString(stdout.String(), "T"))
	want := `airlock demo agent — OFFLINE, scripted model, chat wire
No network: a built-in scripted model is served over loopback HTTP and streamed through
the whole stack (transport, sse, bridge, tool-call assembler, agent loop). Workspace: ` + dir + `
To use a real model: agent --base-url https://api.openai.com/v1 --model gpt-4o-mini
with the key in AIRLOCK_API_KEY or OPENAI_API_KEY (any OpenAI-compatible server works: vLLM, Ollama, ...);
--dialect anthropic, responses, gemini or bedrock speaks those APIs (ANTHROPIC_API_KEY, GEMINI_API_KEY,
AWS_BEARER_TOKEN_BEDROCK), --vertex PROJECT/LOCATION Gemini or Claude on Vertex AI.

task: Explore this project and tell me what it is.

I'll start by looking at what is in the workspace, so my answer rests on the files themselves.
  ◦ list_files {"max_entries":200,"path":"."} formed from T
  • list_files {"max_entries":200,"path":"."} → 144 B, T
I see 6 files. Reading README.md, go.mod, main.go, docs/notes.txt to understand the project.
  ◦ read_file_safe {"path":"README.md"} formed from T
  ◦ read_file_safe {"path":"main.go"} formed from T
  ◦ read_file_safe {"path":"docs/notes.txt"} formed from T
  ◦ read_file_safe {"path":"go.mod"} formed from T
  ⇉ 4 calls run at once (up to 4); each line below as one ends, the answers go back in call order
  • [1/4] read_file_safe {"path":"README.md"} → 33 B, T
  • [2/4] read_file_safe {"path":"go.mod"} → 35 B, T
  • [3/4] read_file_safe {"path":"main.go"} → 98 B, T
  • [4/4] read_file_safe {"path":"docs/notes.txt"} → 17 B, T
Here is what I found.

- README.md: 3 lines, titled “Widget”: Widget counts widgets.
- go.mod: 3 lines, module example.com/widget.
- main.go: 4 lines, Go package main: Package main runs the widget counter.
- docs/notes.txt: 1 line, starts “TODO: write docs”.

The workspace lists 6 files; I read 4 of them. I am the offline scripted model, so this is a sketch drawn from the files, not an understanding of them; run me against a real model for that.

done: 3 turns, 5 tool calls, T, T
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

func TestOfflineTaskSearches(t *testing.T) {
	dir := demoWorkspace(t)
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", dir, "--offline-delay", "0", "-e", "find TODO"}, &stdout, &stderr, envOf(map[string]string{"NO_COLOR": "1"}))
	out := stdout.String()
	for _, want := range []string{
		"task: find TODO\n",
		`I'll list the workspace and search it for "TODO" at the same time.`,
		`  ⇉ 2 calls run at once (up to 4)`,
		`] search {"max_results":20,"pattern":"TODO"} → 76 B`,
		"- search found 2 matching lines:\n    docs/notes.txt:1: TODO: write docs\n    main.go:4: func main() {} // TODO: count\n",
		"done: 3 turns, 6 tool calls",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != exitOK || strings.Contains(out, "\x1b[") {
		t.Errorf("exit %d; colour in output to a buffer: %v", code, strings.Contains(out, "\x1b["))
	}
}

func TestOfflineLimitsApply(t *testing.T) {
	dir := demoWorkspace(t)
	var stdout, stderr bytes.Buffer
	// The scripted model reads 4 files in its second turn.
	code := run(t.Context(), []string{"--workspace", dir, "--offline-delay", "0", "--max-tool-calls-per-turn", "3"}, &stdout, &stderr, envOf(nil))
	if code != exitFailed || stderr.String() != "agent: agentloop: turn 2 asked for 4 tool calls, more than the limit of 3 per turn\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "stopped: 2 turns, 1 tool call,") {
		t.Errorf("no stopped line:\n%s", stdout.String())
	}
}

func TestRealModeAgainstServer(t *testing.T) {
	const key = "sk-test-NEVER-SHOWN"
	dir := demoWorkspace(t)
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{Text: "Reading.", ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "read_file_safe", Arguments: `{"path":"go.mod"}`}}},
		llmstreamtest.Turn{Text: "It is the widget module.", Usage: &llmstream.Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}},
	))
	var stdout, stderr bytes.Buffer
	env := envOf(map[string]string{"AIRLOCK_API_KEY": key, "AIRLOCK_MODEL": "test-model"})
	code := run(t.Context(), []string{"--workspace", dir, "--base-url", srv.URL}, &stdout, &stderr, env)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"airlock demo agent — test-model at " + srv.URL + "\nchat dialect; API key set; workspace: " + dir + "\n",
		"Reading.\n  ◦ read_file_safe {\"path\":\"go.mod\"} formed from ",
		"\n  • read_file_safe {\"path\":\"go.mod\"} → 35 B",
		"It is the widget module.\n",
		"done: 2 turns, 1 tool call, 120 tokens (100 in, 20 out)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+stderr.String(), key) {
		t.Error("the API key was printed")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "Bearer "+key || reqs[0].Model != "test-model" {
		t.Fatalf("requests: %d; first auth ok %v, model %q", len(reqs), reqs[0].Header.Get("Authorization") == "Bearer "+key, reqs[0].Model)
	}
	var names []string
	for _, tool := range reqs[0].Tools {
		names = append(names, tool.Function.Name)
	}
	// write_file only with --allow-write.
	if diff := cmp.Diff([]string{"list_files", "read_file_safe", "search"}, names); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "c1" || last.Content != "module example.com/widget\n\ngo 1.24\n" {
		t.Errorf("tool result sent back: %+v", last)
	}
}

func TestRealModeProviderError(t *testing.T) {
	const key = "sk-test-NEVER-SHOWN"
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 401, Message: "Incorrect API key provided", Type: "invalid_request_error"}},
	))
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", demoWorkspace(t), "--base-url", srv.URL, "--api-key", key}, &stdout, &stderr, envOf(nil))
	if code != exitFailed || !strings.Contains(stderr.String(), "Incorrect API key provided") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if strings.Contains(stdout.String()+stderr.String(), key) {
		t.Error("the API key was printed")
	}
}

func TestInterruptCancelsTheStream(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{Text: "thinking about it for a very long time", Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStall, After: 2}},
	))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stdout := &notifyingBuffer{wrote: make(chan struct{}, 1)}
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"--workspace", demoWorkspace(t), "--base-url", srv.URL}, stdout, &stderr, envOf(nil))
	}()
	// Wait for streamed text, then interrupt as Ctrl-C would.
	deadline := time.After(10 * time.Second)
	for !strings.Contains(stdout.String(), "thinking") {
		select {
		case <-stdout.wrote:
		case <-deadline:
			t.Fatalf("no streamed text: %q", stdout.String())
		}
	}
	start := time.Now()
	cancel()
	code := <-done
	if code != exitInterrupted || stderr.String() != "agent: interrupted\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	// Generous: cancellation is immediate, but the machine may be busy
	// and -race slows everything.
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("took %v to stop", waited)
	}
}

// notifyingBuffer is a bytes.Buffer safe for one writer and one reader
// that signals each write.
type notifyingBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	select {
	case b.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (b *notifyingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A real server that refuses the request when no key was given at all:
// the run says where a key goes, as the provider's 401 does not.
func TestRealModeNoKeyHint(t *testing.T) {
	for _, tc := range []struct {
		name, hint string
		args       []string
		env        map[string]string
		status     int
	}{
		{"chat, 401", "agent: no API key was given: set AIRLOCK_API_KEY or OPENAI_API_KEY, or use --api-key", nil, nil, 401},
		{"gemini, 403", "agent: no API key was given: set AIRLOCK_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY, or use --api-key", []string{"--dialect", "gemini", "--model", "m"}, nil, 403},
		{"a key was given", "", nil, map[string]string{"AIRLOCK_API_KEY": "sk-wrong-key"}, 401},
		{"no key, not an auth error", "", nil, nil, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
				llmstreamtest.Turn{Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: tc.status, Message: "refused"}},
			))
			var stdout, stderr bytes.Buffer
			args := append([]string{"--workspace", demoWorkspace(t), "--base-url", srv.URL}, tc.args...)
			code := run(t.Context(), args, &stdout, &stderr, envOf(tc.env))
			lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			hint := ""
			if len(lines) > 1 {
				hint = lines[len(lines)-1]
			}
			if code != exitFailed || !strings.Contains(lines[0], "refused") || hint != tc.hint {
				t.Errorf("exit %d, stderr %q; want the error, then %q", code, stderr.String(), tc.hint)
			}
		})
	}
}

// TestRealModeAnswersInvalidCalls: a real model's slip — a tool it made
// up, arguments that are not JSON — is answered so that it can try again;
// neither call runs, and the run ends with the model's next answer.
func TestRealModeAnswersInvalidCalls(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "delete_everything", Arguments: `{}`}}},
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "read_file_safe", Arguments: `{"path":`}}},
		llmstreamtest.Turn{Text: "All done."},
	))
	var stdout, stderr bytes.Buffer
	args := []string{"--workspace", demoWorkspace(t), "--base-url", srv.URL, "--api-key", "sk-test-0123456789", "-e", "look"}
	if code := run(t.Context(), args, &stdout, &stderr, envOf(nil)); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(stdout.String(), "All done.") {
		t.Fatalf("%d requests; stdout:\n%s", len(reqs), stdout.String())
	}
	for i, want := range []string{"delete_everything", "arguments"} {
		msgs := reqs[i+1].Messages
		if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Content, want) {
			t.Errorf("request %d ends in %+v; want a tool answer that names %q", i+2, last, want)
		}
	}
}
