package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// workspace makes a small project for the tools to read.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README.md": "# tiny\n\nA tiny project the web demo reads.\n",
		"go.mod":    "module example.com/tiny\n\ngo 1.25\n",
		"main.go":   "// Command tiny prints hello.\npackage main\n\nfunc main() { println(\"hello\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// start serves the demo on a free port until the test ends.
func start(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), func(string) string { return "" }, io.Discard, ready)
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + addr
}

// TestServe: the page and the chat API are served; a run goes to its
// first approval.
func TestServe(t *testing.T) {
	url := start(t, "-workspace", workspace(t), "-offline-delay", "0s")
	resp, err := http.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `<script src="chat.js">`) {
		t.Fatalf("the page: %.200s", page)
	}
	body := `{"id":"t1","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"What is this project?"}]}]}`
	resp, err = http.Post(url+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	stream, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"toolName":"list_files"`, `"type":"tool-output-available"`, `"type":"tool-approval-request"`, "data: [DONE]"} {
		if !strings.Contains(string(stream), want) {
			t.Errorf("the stream has no %s:\n%.2000s", want, stream)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-dialect", "nope"}, {"-no-such-flag"}, {"-workspace", "/does/not/exist"}} {
		if err := serve(context.Background(), args, func(string) string { return "" }, io.Discard, nil); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// TestBrowser drives the page in headless Chromium: see
// testdata/browser.mjs. The screenshots go to $AIRLOCK_ARTIFACT_DIR, or a
// directory under the system's temporary one, and are logged.
func TestBrowser(t *testing.T) {
	modules := os.Getenv("AIRLOCK_AISDK_NODE_MODULES")
	if _, err := os.Stat(filepath.Join(modules, "puppeteer-core", "package.json")); modules == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("AIRLOCK_AISDK_NODE_MODULES=%q holds no puppeteer-core: run contrib/aisdk/ci.sh", modules)
		}
		t.Skip("AIRLOCK_AISDK_NODE_MODULES not set or not installed; contrib/aisdk/ci.sh installs it")
	}
	ws := workspace(t)
	url := start(t, "-workspace", ws, "-offline-delay", "60ms")

	shots := os.Getenv("AIRLOCK_ARTIFACT_DIR")
	if shots == "" {
		shots = filepath.Join(os.TempDir(), "airlock-web-artifacts")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/browser.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "browser.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "browser.mjs", url, shots)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var report struct {
		Steps, Failures, Screenshots []string
		Browser                      string
		LastSamples                  []json.RawMessage
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the report %q: %v", out, err)
	}
	t.Logf("%s: %s; screenshots %s", report.Browser, strings.Join(report.Steps, ", "), strings.Join(report.Screenshots, " "))
	for _, f := range report.Failures {
		t.Error(f)
	}
	if len(report.Failures) > 0 {
		t.Logf("the page's last samples: %s", report.LastSamples)
	}
	if len(report.Steps) != 6 {
		t.Errorf("%d of 6 steps done", len(report.Steps))
	}
	// The approved writes happened, in the workspace; the denied one did
	// not add another.
	if _, err := os.Stat(filepath.Join(ws, "AIRLOCK-NOTES.md")); err != nil {
		t.Errorf("the approved write: %v", err)
	}
}
