package agentcli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// writeArgs are the arguments of a run whose scripted model saves notes.
func writeArgs(dir string, more ...string) []string {
	return append([]string{"--workspace", dir, "--offline-delay", "0", "--allow-write", "--state", filepath.Join(dir, "..", "run.json")}, more...)
}

// wantNotes is what the scripted model writes for demoWorkspace.
const wantNotes = "# Notes by the airlock demo agent\n\n" +
	"- README.md: 3 lines, titled “Widget”: Widget counts widgets.\n" +
	"- go.mod: 3 lines, module example.com/widget.\n" +
	"- main.go: 4 lines, Go package main: Package main runs the widget counter.\n" +
	"- docs/notes.txt: 1 line, starts “TODO: write docs”.\n"

// notes returns the notes file's content, or "" when there is none.
func notes(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, notesFile))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApprovalAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		interactive bool
		args        []string
		written     bool
		want        []string // in the output, in this order
		notWant     string
	}{
		{name: "y", input: "y\n", interactive: true, written: true,
			want: []string{"? write_file {", "needs your approval. Run it? [y/n/why] \n", "✓ allowed write_file", "• write_file", "I saved these notes in AIRLOCK-NOTES.md."}},
		{name: "yes, any case, spaces", input: "  YES \n", interactive: true, written: true, want: []string{"✓ allowed write_file"}},
		{name: "n with a reason", input: "n\nnot in this repo\n", interactive: true,
			want:    []string{"[y/n/why] \n", "reason the model is told (Enter for none): \n", "✗ denied write_file", ": not in this repo", "You did not let me write AIRLOCK-NOTES.md (not in this repo)"},
			notWant: "• write_file"},
		{name: "n without a reason", input: "n\n\n", interactive: true,
			want: []string{"✗ denied write_file", ": the user said no", "You did not let me write AIRLOCK-NOTES.md (the user said no)"}},
		{name: "n, then the input ends", input: "n\n", interactive: true, want: []string{"✗ denied write_file", ": the user said no"}},
		{name: "why shows the arguments in full, then asks again", input: "why\ny\n", interactive: true, written: true,
			want: []string{"[y/n/why] \n", "    {\n      \"content\": \"# Notes by the airlock demo agent\\n\\n- README.md: 3 lines", "\"path\": \"AIRLOCK-NOTES.md\"\n    }\n", "[y/n/why] \n", "✓ allowed write_file"}},
		{name: "an unknown answer gets help", input: "maybe\ny\n", interactive: true, written: true,
			want: []string{"answer y (run it), n (refuse it) or why (show the arguments in full)\n", "[y/n/why] ", "✓ allowed"}},
		{name: "the input ends: denied", input: "", interactive: true,
			want: []string{"[y/n/why] \nend of input: denied\n", "✗ denied write_file", ": no answer: the input ended"}},
		{name: "not a terminal: denied without asking", input: "y\n", interactive: false,
			want: []string{"✗ denied write_file", "no one was there to ask (stdin is not a terminal); the user can approve with --yes"}, notWant: "[y/n/why]"},
		{name: "--yes: allowed without asking", input: "", interactive: false, args: []string{"--yes"}, written: true,
			want: []string{"✓ allowed write_file", "• write_file"}, notWant: "[y/n/why]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := demoWorkspace(t)
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), writeArgs(dir, tc.args...), &stdout, &stderr, envOf(nil), withInput(strings.NewReader(tc.input), tc.interactive))
			out := stdout.String()
			if code != exitOK || stderr.Len() != 0 {
				t.Fatalf("exit %d, stderr %q\n%s", code, stderr.String(), out)
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q after what came before:\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			if tc.notWant != "" && strings.Contains(out, tc.notWant) {
				t.Errorf("output has %q:\n%s", tc.notWant, out)
			}
			want := ""
			if tc.written {
				want = wantNotes
			}
			if got := notes(t, dir); got != want {
				t.Errorf("notes file %q, want %q", got, want)
			}
			if strings.Count(out, "• write_file") > 1 {
				t.Errorf("write_file ran more than once:\n%s", out)
			}
		})
	}
}

// TestPauseAndResume: Ctrl-C at the question pauses the run and saves it;
// the printed command goes on with it in a new run, which asks again, and
// the write happens once, in the resumed run. Over every dialect, so each
// wire's continuity state goes through the file.
func TestPauseAndResume(t *testing.T) {
	for _, d := range []string{"chat", "anthropic", "responses", "gemini"} {
		t.Run(d, func(t *testing.T) {
			dir := demoWorkspace(t)
			state := filepath.Join(t.TempDir(), "paused.json")
			args := []string{"--workspace", dir, "--offline-delay", "0", "--dialect", d, "--allow-write", "--state", state, "-e", "Explore this project and tell me what it is."}
			out := pauseAtQuestion(t, args)
			for _, want := range []string{"‖ paused write_file", "paused: 3 turns, 6 tool calls", "The run is saved in " + state + " (1 call waiting for a decision).\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "• write_file") || notes(t, dir) != "" {
				t.Fatalf("the paused call ran:\n%s", out)
			}
			_, line, ok := strings.Cut(out, "to go on: ")
			if !ok {
				t.Fatalf("no command to go on:\n%s", out)
			}
			line, _, _ = strings.Cut(line, "\n")
			want := "agent --workspace " + dir + " --offline-delay 0 --dialect " + d + " --allow-write --resume " + state
			if line != want {
				t.Fatalf("command %q, want %q", line, want)
			}

			var stdout, stderr bytes.Buffer
			code := run(t.Context(), strings.Fields(line)[1:], &stdout, &stderr, envOf(nil), withInput(strings.NewReader("y\n"), true))
			resumed := stdout.String()
			if code != exitOK || stderr.Len() != 0 {
				t.Fatalf("resume: exit %d, stderr %q\n%s", code, stderr.String(), resumed)
			}
			for _, want := range []string{"resuming: " + state + " (3 turns so far, 1 call waiting)\n", "[y/n/why]", "✓ allowed write_file", "• write_file", "I saved these notes in AIRLOCK-NOTES.md.", "done: 4 turns, 6 tool calls"} {
				if !strings.Contains(resumed, want) {
					t.Errorf("resumed output lacks %q:\n%s", want, resumed)
				}
			}
			if n := strings.Count(resumed, "• "); n != 1 {
				t.Errorf("the resumed run ran %d calls, want only the write:\n%s", n, resumed)
			}
			if got := notes(t, dir); got != wantNotes {
				t.Errorf("notes %q", got)
			}
			// The file is gone, so the write cannot run a second time.
			if _, err := os.Stat(state); !os.IsNotExist(err) {
				t.Errorf("state file after the resumed run: %v", err)
			}
			stdout.Reset()
			stderr.Reset()
			if code := run(t.Context(), strings.Fields(line)[1:], &stdout, &stderr, envOf(nil)); code != exitUsage || !strings.Contains(stderr.String(), "--resume") {
				t.Errorf("second resume: exit %d, stderr %q", code, stderr.String())
			}
		})
	}
}

// pauseAtQuestion runs args with a terminal that never answers, and
// presses Ctrl-C once the question is asked. It returns the output.
func pauseAtQuestion(t *testing.T, args []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	in, typing := io.Pipe()
	defer typing.Close()
	stdout := &notifyingBuffer{wrote: make(chan struct{}, 1)}
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, args, stdout, &stderr, envOf(nil), withInput(in, true))
	}()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(stdout.String(), "[y/n/why] ") {
		select {
		case <-stdout.wrote:
		case code := <-done:
			t.Fatalf("exit %d before the question; stderr %q\n%s", code, stderr.String(), stdout.String())
		case <-deadline:
			t.Fatalf("no question:\n%s", stdout.String())
		}
	}
	cancel()
	if code := <-done; code != exitInterrupted || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr.String(), stdout.String())
	}
	return stdout.String()
}

// A resumed run that pauses again saves to the file it came from.
func TestPauseAgainWhenResumed(t *testing.T) {
	dir := demoWorkspace(t)
	state := filepath.Join(t.TempDir(), "paused.json")
	pauseAtQuestion(t, []string{"--workspace", dir, "--offline-delay", "0", "--allow-write", "--state", state})
	first, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	out := pauseAtQuestion(t, []string{"--workspace", dir, "--offline-delay", "0", "--allow-write", "--resume", state})
	if !strings.Contains(out, "The run is saved in "+state+" (1 call waiting") || !strings.Contains(out, "--resume "+state+"\n") {
		t.Errorf("output:\n%s", out)
	}
	again, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	// The same run at the same point; only where the caps count from
	// moved to the resume.
	var was, is agentloop.State
	if err := json.Unmarshal(first, &was); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &is); err != nil {
		t.Fatal(err)
	}
	was.TurnsBefore, was.ToolCallsBefore = is.Turns, is.ToolCalls
	if diff := cmp.Diff(was, is); diff != "" || notes(t, dir) != "" {
		t.Errorf("state changed (-before +after):\n%s\nor notes written", diff)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state file mode: %v, %v; want 0600", fi.Mode(), err)
	}
}

func TestResumeRefused(t *testing.T) {
	dir := demoWorkspace(t)
	state := filepath.Join(t.TempDir(), "paused.json")
	pauseAtQuestion(t, []string{"--workspace", dir, "--offline-delay", "0", "--allow-write", "--state", state})
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"Messages": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no such file", []string{"--resume", filepath.Join(dir, "none.json")}, exitUsage, "agent: --resume: open "},
		{"not a saved run", []string{"--resume", bad}, exitUsage, "agent: --resume " + bad + ": not a saved run: "},
		// Without --allow-write the Loop has no write_file: the State does
		// not fit, nothing runs, and the file stays for a right command.
		{"without the tool it waits for", []string{"--resume", state}, exitFailed, "agentloop: state does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), append([]string{"--workspace", dir, "--offline-delay", "0"}, tc.args...), &stdout, &stderr, envOf(nil), withInput(strings.NewReader("y\n"), true))
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
	if _, err := os.Stat(state); err != nil || notes(t, dir) != "" {
		t.Errorf("state file: %v; notes %q", err, notes(t, dir))
	}
}

func TestResumeArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    []string
		dropped bool
	}{
		{nil, nil, false},
		{[]string{"-e", "task", "--workspace", "w", "--yes", "--allow-write", "--parallel=2"}, []string{"--workspace", "w", "--yes", "--allow-write", "--parallel=2"}, false},
		{[]string{"--api-key", "sk-secret", "--api-key=sk-other", "-state", "s.json", "--resume=r.json", "--model", "m"}, []string{"--model", "m"}, true},
		{[]string{"--allow-write=false", "--mcp", "npx -y server", "--", "x"}, []string{"--allow-write=false", "--mcp", "npx -y server", "--", "x"}, false},
	} {
		got, dropped := resumeArgs(tc.args)
		if diff := cmp.Diff(tc.want, got); diff != "" || dropped != tc.dropped {
			t.Errorf("resumeArgs(%q) (-want +got):\n%s; key dropped %v", tc.args, diff, dropped)
		}
	}
	if got, want := shellJoin([]string{"go", "run", "./x", "--mcp", "npx -y a", "it's", ""}), `go run ./x --mcp 'npx -y a' 'it'\''s' ''`; got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

// The API key given as a flag is left out of the command printed to go
// on, and never printed.
func TestPausedCommandHidesTheKey(t *testing.T) {
	var stdout, stderr bytes.Buffer
	res := pausedResult(t)
	state := filepath.Join(t.TempDir(), "s.json")
	code := paused(res, config{State: state}, "go run ./examples/agent", []string{"--api-key", "sk-NEVER-SHOWN", "--allow-write"}, &stdout, &stderr)
	out := stdout.String()
	if code != exitInterrupted || strings.Contains(out, "sk-NEVER") || !strings.Contains(out, "to go on: go run ./examples/agent --allow-write --resume "+state+"\n(give the API key again") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// TestSequentialTools: --parallel 1 runs the reads one at a time, and the
// transcript shows no batch.
func TestSequentialTools(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--workspace", demoWorkspace(t), "--offline-delay", "0", "--parallel", "1"}, &stdout, &stderr, envOf(nil))
	out := stdout.String()
	if code != exitOK || strings.Contains(out, "⇉") || strings.Contains(out, "• [") || strings.Count(out, "• read_file_safe") != 4 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// pausedResult is a Result as a run paused on one call returns it.
func pausedResult(t *testing.T) agentloop.Result {
	t.Helper()
	c := agentloop.Call{Turn: 1, ID: "c1", Name: "write_file", Arguments: `{}`}
	msgs := []llmstream.Message{{Role: "user", Content: "x"}, {Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "c1", Function: llmstream.FunctionCall{Name: "write_file", Arguments: `{}`}}}}}
	return agentloop.Result{Pending: []agentloop.Call{c}, State: agentloop.State{Messages: msgs, Turns: 1, ToolCalls: 1, Pending: []agentloop.Call{c}}}
}
