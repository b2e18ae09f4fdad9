package agentcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
)

// newWorkspace makes a temp workspace with files (path → content) and
// returns it open, with an "outside" directory next to it holding
// secret.txt.
func newWorkspace(t *testing.T, files map[string]string, maxFileBytes int, allowWrite bool) (*workspace, string, string) {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, outside, map[string]string{"secret.txt": "top secret\n"})
	writeFiles(t, dir, files)
	ws, err := openWorkspace(dir, maxFileBytes, allowWrite)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir, outside
}

// writeFiles writes files (slash path → content) under dir, making the
// directories they need.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// symlinks makes each link (name in dir → target).
func symlinks(t *testing.T, dir string, links map[string]string) {
	t.Helper()
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// toolCase is one call of a tool: on success it returns want exactly, on
// failure a recoverable error containing wantErr.
type toolCase struct {
	name    string
	args    string
	want    string
	wantErr string
}

func runToolCases(t *testing.T, run func(context.Context, json.RawMessage) (string, error), tests []toolCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := callTool(t, run, tc.args)
			checkToolResult(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func callTool(t *testing.T, run func(context.Context, json.RawMessage) (string, error), args string) (string, error) {
	t.Helper()
	return run(t.Context(), json.RawMessage(args))
}

func TestReadFileSafe(t *testing.T) {
	ws, dir, outside := newWorkspace(t, map[string]string{
		"README.md":   "# hi\n",
		"sub/a.go":    "package sub\n",
		"limit/at":    strings.Repeat("a", 64),
		"limit/below": strings.Repeat("a", 63),
		"limit/above": strings.Repeat("a", 65),
		"bin/nul.dat": "text\x00more",
		"bin/latin1":  "caf\xe9",
		"unicode.txt": "héllo wörld\n",
	}, 64, false)
	symlinks(t, dir, map[string]string{
		"link_out":     filepath.Join(outside, "secret.txt"),
		"link_out_rel": "../outside/secret.txt",
		"link_dir_out": outside,
		"link_in":      "README.md",
	})
	runToolCases(t, ws.readFile, []toolCase{
		{"a file", `{"path":"README.md"}`, "# hi\n", ""},
		{"a file in a subdirectory", `{"path":"sub/a.go"}`, "package sub\n", ""},
		{"dot segments that stay inside", `{"path":"sub/../README.md"}`, "# hi\n", ""},
		{"UTF-8 text", `{"path":"unicode.txt"}`, "héllo wörld\n", ""},
		{"symlink inside the workspace", `{"path":"link_in"}`, "# hi\n", ""},
		{"size one below the limit", `{"path":"limit/below"}`, strings.Repeat("a", 63), ""},
		{"size at the limit", `{"path":"limit/at"}`, strings.Repeat("a", 64), ""},
		{"size one above the limit", `{"path":"limit/above"}`, "", "limit/above is 65 bytes, over the limit of 64; use search to find the part you need"},
		{"parent directory", `{"path":"../outside/secret.txt"}`, "", "../outside/secret.txt: refused: the path leaves the workspace"},
		{"parent hidden in the middle", `{"path":"sub/../../outside/secret.txt"}`, "", "sub/../../outside/secret.txt: refused: the path leaves the workspace"},
		{"absolute path", `{"path":"` + filepath.ToSlash(filepath.Join(outside, "secret.txt")) + `"}`, "", "absolute paths are refused"},
		{"absolute path inside the workspace too", `{"path":"` + filepath.ToSlash(filepath.Join(dir, "README.md")) + `"}`, "", "absolute paths are refused"},
		{"symlink to an absolute path outside", `{"path":"link_out"}`, "", "path escapes from parent"},
		{"symlink to a relative path outside", `{"path":"link_out_rel"}`, "", "path escapes from parent"},
		{"through a symlinked directory outside", `{"path":"link_dir_out/secret.txt"}`, "", "path escapes from parent"},
		{"directory", `{"path":"sub"}`, "", "sub is a directory; use list_files"},
		{"NUL bytes", `{"path":"bin/nul.dat"}`, "", "bin/nul.dat looks binary"},
		{"invalid UTF-8", `{"path":"bin/latin1"}`, "", "bin/latin1 looks binary"},
		{"missing file", `{"path":"nope.txt"}`, "", "no such file or directory"},
		{"empty path", `{"path":""}`, "", "path is empty"},
		{"unknown argument", `{"path":"README.md","mode":"rw"}`, "", `bad arguments: json: unknown field "mode"`},
		{"a hidden file", `{"path":".env"}`, "", ".env: hidden files and directories are off limits to the tools"},
		{"a file in a hidden directory", `{"path":"sub/.git/config"}`, "", "sub/.git/config: hidden files and directories are off limits"},
		{"a hidden name reached through dot segments", `{"path":"sub/../.env"}`, "", ".env: hidden files and directories are off limits"},
	})
}

// checkToolResult: success gives want exactly; a failure is recoverable
// (the model sees it) and contains wantErr.
func checkToolResult(t *testing.T, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr == "" {
		if err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
		return
	}
	var rec *agentloop.RecoverableError
	if !errors.As(err, &rec) || !strings.Contains(err.Error(), wantErr) || got != "" {
		t.Errorf("got %q, %v; want a recoverable error containing %q", got, err, wantErr)
	}
	if err != nil && strings.Contains(err.Error(), "top secret") {
		t.Errorf("error shows outside content: %v", err)
	}
}

func TestListFiles(t *testing.T) {
	ws, dir, outside := newWorkspace(t, map[string]string{
		"a.txt":           "aaa",
		"b/c.go":          "package b\n",
		".git/config":     "x",
		"node_modules/m":  "x",
		"b/.hidden/h.txt": "x",
		".env":            "API_KEY=x",
		"b/.npmrc":        "x",
	}, 1<<10, false)
	symlinks(t, dir, map[string]string{"out": outside})
	runToolCases(t, ws.listFiles, []toolCase{
		{"everything, hidden and vendored skipped, symlinks not followed", `{}`, "a.txt (3 bytes)\nb/\nb/c.go (10 bytes)\nout (symlink)\n", ""},
		{"a subdirectory", `{"path":"b"}`, "b/c.go (10 bytes)\n", ""},
		{"bounded at one below the count", `{"max_entries":3}`, "a.txt (3 bytes)\nb/\nb/c.go (10 bytes)\n(stopped at 3 entries; list a subdirectory to see more)\n", ""},
		{"bounded at the count", `{"max_entries":4}`, "a.txt (3 bytes)\nb/\nb/c.go (10 bytes)\nout (symlink)\n", ""},
		{"max_entries at the cap", `{"path":"b","max_entries":1000}`, "b/c.go (10 bytes)\n", ""},
		{"max_entries above the cap", `{"max_entries":1001}`, "", "max_entries 1001 is outside 1..1000"},
		{"max_entries zero", `{"max_entries":0}`, "", "max_entries 0 is outside 1..1000"},
		{"escape", `{"path":".."}`, "", "..: refused: the path leaves the workspace"},
		{"symlinked directory outside", `{"path":"out"}`, "", "path escapes from parent"},
		{"a file", `{"path":"a.txt"}`, "", "a.txt is not a directory"},
		{"a hidden directory", `{"path":".git"}`, "", ".git: hidden files and directories are off limits"},
	})
}

func TestSearch(t *testing.T) {
	ws, dir, outside := newWorkspace(t, map[string]string{
		"a.go":      "package a\n// TODO one\nfunc A() {}\n// TODO two\n",
		"b/b.md":    "nothing\nTODO three\n",
		"big.txt":   strings.Repeat("TODO big\n", 200),
		"bin.dat":   "TODO\x00",
		".git/HEAD": "TODO hidden",
		".env":      "TODO hidden file",
		"long/199":  "LONG" + strings.Repeat("y", 195) + "\n",
		"long/200":  "LONG" + strings.Repeat("y", 196) + "\n",
		"long/201":  "LONG" + strings.Repeat("y", 197) + "\n",
	}, 1<<10, false)
	symlinks(t, dir, map[string]string{"s.txt": filepath.Join(outside, "secret.txt"), "outdir": outside})
	runToolCases(t, ws.search, []toolCase{
		{"matches in text files only", `{"pattern":"TODO"}`, "a.go:2: // TODO one\na.go:4: // TODO two\nb/b.md:2: TODO three\n", ""},
		{"bounded results", `{"pattern":"TODO","max_results":2}`, "a.go:2: // TODO one\na.go:4: // TODO two\n(stopped at 2 results)\n", ""},
		{"in a subdirectory", `{"pattern":"TODO","path":"b"}`, "b/b.md:2: TODO three\n", ""},
		{"no match; symlinked file and directory outside not followed", `{"pattern":"secret"}`, "no line contains \"secret\"\n", ""},
		{"a symlinked directory outside as the start", `{"pattern":"secret","path":"outdir"}`, "", "path escapes from parent"},
		{"empty pattern", `{"pattern":""}`, "", "pattern is empty"},
		{"pattern at the limit", `{"pattern":"` + strings.Repeat("x", 200) + `"}`, "no line contains \"" + strings.Repeat("x", 200) + "\"\n", ""},
		{"pattern above the limit", `{"pattern":"` + strings.Repeat("x", 201) + `"}`, "", "pattern is 201 bytes, over the limit of 200"},
		{"max_results at the cap", `{"pattern":"TODO three","max_results":200}`, "b/b.md:2: TODO three\n", ""},
		{"max_results above the cap", `{"pattern":"a","max_results":201}`, "", "max_results 201 is outside 1..200"},
		{"max_results zero", `{"pattern":"a","max_results":0}`, "", "max_results 0 is outside 1..200"},
		{"hit lines shown up to 200 bytes, longer ones clipped", `{"pattern":"LONG","path":"long"}`,
			"long/199:1: LONG" + strings.Repeat("y", 195) + "\nlong/200:1: LONG" + strings.Repeat("y", 196) + "\nlong/201:1: LONG" + strings.Repeat("y", 196) + "…\n", ""},
		{"escape", `{"pattern":"a","path":"../outside"}`, "", "refused: the path leaves the workspace"},
	})
}

func TestWriteFile(t *testing.T) {
	t.Run("refused without --allow-write", func(t *testing.T) {
		ws, dir, _ := newWorkspace(t, nil, 1<<10, false)
		got, err := callTool(t, ws.writeFile, `{"path":"new.txt","content":"hi"}`)
		checkToolResult(t, got, err, "", "write_file is disabled in this run; the user can enable it with --allow-write")
		if _, err := os.Stat(filepath.Join(dir, "new.txt")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file exists: %v", err)
		}
	})
	ws, dir, outside := newWorkspace(t, map[string]string{"old.txt": "old"}, 8, true)
	symlinks(t, dir, map[string]string{"link": filepath.Join(outside, "secret.txt"), "linkdir": outside})
	tests := []struct {
		name     string
		args     string
		want     string
		wantErr  string
		file     string
		wantFile string
	}{
		{"new file", `{"path":"new.txt","content":"hi"}`, "wrote 2 bytes to new.txt", "", "new.txt", "hi"},
		{"replace, content at the limit", `{"path":"old.txt","content":"12345678"}`, "wrote 8 bytes to old.txt", "", "old.txt", "12345678"},
		{"content above the limit", `{"path":"old.txt","content":"123456789"}`, "", "content is 9 bytes, over the limit of 8", "old.txt", "12345678"},
		{"escape", `{"path":"../outside/x","content":"x"}`, "", "refused: the path leaves the workspace", "", ""},
		{"through a symlink", `{"path":"link","content":"x"}`, "", "link exists and is not a regular file; refused", "", ""},
		{"through a symlinked directory outside", `{"path":"linkdir/new.txt","content":"x"}`, "", "path escapes from parent", "", ""},
		{"missing directory", `{"path":"d/x.txt","content":"x"}`, "", "no such file or directory", "", ""},
		{"binary content", `{"path":"old.txt","content":"a\u0000b"}`, "", "content has NUL bytes; only text files are written", "old.txt", "12345678"},
		{"a git hook", `{"path":".git/hooks/pre-commit","content":"x"}`, "", ".git/hooks/pre-commit: hidden files and directories are off limits", "", ""},
		{"a hidden file", `{"path":"sub/../.envrc","content":"x"}`, "", ".envrc: hidden files and directories are off limits", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := callTool(t, ws.writeFile, tc.args)
			checkToolResult(t, got, err, tc.want, tc.wantErr)
			if tc.file != "" {
				b, _ := os.ReadFile(filepath.Join(dir, tc.file))
				if string(b) != tc.wantFile {
					t.Errorf("%s holds %q, want %q", tc.file, b, tc.wantFile)
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "top secret\n" {
		t.Errorf("outside file changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created outside: %v", err)
	}
}

// The walk goes maxWalkDepth (8) levels below its start whatever the start:
// level 7 and 8 are listed and searched, a directory at level 8 is listed
// but not entered, nothing at level 9 is seen.
func TestWalkDepth(t *testing.T) {
	ws, _, _ := newWorkspace(t, map[string]string{
		"1/2/3/4/5/6/7/x.txt":   "TODO\n",
		"1/2/3/4/5/6/7/8/y.txt": "TODO\n",
	}, 64, false)
	dirs := "1/\n1/2/\n1/2/3/\n1/2/3/4/\n1/2/3/4/5/\n1/2/3/4/5/6/\n1/2/3/4/5/6/7/\n1/2/3/4/5/6/7/8/\n"
	t.Run("list_files", func(t *testing.T) {
		runToolCases(t, ws.listFiles, []toolCase{
			{"from the workspace: level 9 unseen", `{}`, dirs + "1/2/3/4/5/6/7/x.txt (5 bytes)\n", ""},
			{"from a subdirectory: the same depth below it", `{"path":"1"}`, strings.TrimPrefix(dirs, "1/\n") + "1/2/3/4/5/6/7/8/y.txt (5 bytes)\n1/2/3/4/5/6/7/x.txt (5 bytes)\n", ""},
		})
	})
	t.Run("search", func(t *testing.T) {
		runToolCases(t, ws.search, []toolCase{
			{"from the workspace: level 9 unseen", `{"pattern":"TODO"}`, "1/2/3/4/5/6/7/x.txt:1: TODO\n", ""},
			{"from a subdirectory: the same depth below it", `{"pattern":"TODO","path":"1"}`, "1/2/3/4/5/6/7/8/y.txt:1: TODO\n1/2/3/4/5/6/7/x.txt:1: TODO\n", ""},
		})
	})
}

// Binary files search reads and skips still count against maxSearchBytes,
// so a tree of binaries cannot make one search read without bound.
func TestSearchBudgetCountsBinaryFiles(t *testing.T) {
	const fileBytes = 1 << 20
	ws, dir, _ := newWorkspace(t, map[string]string{"z.txt": "TODO\n"}, fileBytes, false)
	for i := range maxSearchBytes/fileBytes + 1 {
		// Sparse files of NULs: 1 MiB each to read, nothing on disk.
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("bin%03d", i)))
		if err != nil {
			t.Fatal(err)
		}
		err = f.Truncate(fileBytes)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := callTool(t, ws.search, `{"pattern":"TODO"}`)
	want := fmt.Sprintf("no line contains \"TODO\"\n(stopped after %d files, %d bytes; search a subdirectory)\n", maxSearchBytes/fileBytes, maxSearchBytes)
	checkToolResult(t, got, err, want, "")
}

// search must not allocate per line scanned: its cost in allocations does
// not grow with the length of the files it reads.
func TestSearchAllocsIndependentOfLines(t *testing.T) {
	allocs := func(lines int) float64 {
		// Lines over 32 bytes: shorter ones convert to strings on the stack.
		text := strings.Repeat("nothing here, only a line of more than 32 bytes\n", lines) + "TODO\n"
		ws, _, _ := newWorkspace(t, map[string]string{"a.txt": text}, 1<<20, false)
		return testing.AllocsPerRun(5, func() {
			if _, err := ws.search(t.Context(), json.RawMessage(`{"pattern":"TODO"}`)); err != nil {
				t.Fatal(err)
			}
		})
	}
	short, long := allocs(10), allocs(5000)
	if long-short > 50 {
		t.Errorf("search allocates %.0f times over a 10-line file and %.0f over a 5000-line one; want about the same", short, long)
	}
}
