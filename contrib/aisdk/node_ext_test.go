package aisdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-go/airlock/contrib/aisdk"
)

// nodeModules finds the node packages ci.sh installs (testdata/node/
// package.json): $AIRLOCK_AISDK_NODE_MODULES, set by .ci/run. Missing, the
// test fails under CI=true and is skipped otherwise.
func nodeModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AIRLOCK_AISDK_NODE_MODULES")
	_, err := os.Stat(filepath.Join(dir, "ai", "package.json"))
	if dir == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("AIRLOCK_AISDK_NODE_MODULES=%q holds no ai package: run contrib/aisdk/ci.sh", dir)
		}
		t.Skip("AIRLOCK_AISDK_NODE_MODULES not set or not installed; contrib/aisdk/ci.sh installs it")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node: %v", err)
	}
	return dir
}

// gatedStore holds the end of the streams of chats whose id begins "cut-"
// until the node script POSTs /release?chat=ID, so a cut stream is still
// live when the script reconnects.
type gatedStore struct {
	*aisdk.MemoryStore
	mu    sync.Mutex
	gates map[string]chan struct{}
}

func (s *gatedStore) gate(id string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gates[id]
	if g == nil {
		g = make(chan struct{})
		s.gates[id] = g
	}
	return g
}

func (s *gatedStore) Begin(ctx context.Context, id string) error {
	s.mu.Lock()
	delete(s.gates, id) // a new run of the chat: a new gate
	s.mu.Unlock()
	return s.MemoryStore.Begin(ctx, id)
}

func (s *gatedStore) End(ctx context.Context, id string) error {
	if strings.HasPrefix(id, "cut-") {
		select {
		case <-s.gate(id):
		case <-time.After(30 * time.Second):
		}
	}
	return s.MemoryStore.End(ctx, id)
}

// TestAISDKClient has the ai package's own client read the streams: see
// testdata/node/stream.mjs.
func TestAISDKClient(t *testing.T) {
	modules := nodeModules(t)
	// The length of each stream of the scripted chat, to cut after each
	// chunk: [DONE] is not a chunk.
	ref := newEnv(t, nil)
	streams := ref.runToEnd("ref")

	store := &gatedStore{MemoryStore: aisdk.NewMemoryStore(0, 0), gates: map[string]chan struct{}{}}
	e := newEnv(t, nil, aisdk.WithStore(store))
	mux := http.NewServeMux()
	mux.Handle("/", e.srv.Config.Handler)
	mux.HandleFunc("POST /release", func(w http.ResponseWriter, r *http.Request) {
		g := store.gate(r.URL.Query().Get("chat"))
		select {
		case <-g:
		default:
			close(g)
		}
	})
	e.srv.Config.Handler = mux

	dir := t.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/node/stream.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stream.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	n0, n1 := len(streams[0])-1, len(streams[1])-1
	cmd := exec.CommandContext(ctx, "node", "stream.mjs", e.srv.URL, itoa(n0), itoa(n1))
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var report struct {
		Chunks, Cuts, Beyond, Chats int
		Invalid                     []json.RawMessage
		Failures                    []json.RawMessage
		Types                       map[string]int
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("node's report %q: %v", out, err)
	}
	t.Logf("ai read %d chunks in %d chats, %d of them cut and resumed (%d cuts fell past a shorter stream's end); types %v",
		report.Chunks, report.Chats, report.Cuts, report.Beyond, report.Types)
	for _, c := range report.Invalid {
		t.Errorf("uiMessageChunkSchema refused %s", c)
	}
	for _, f := range report.Failures {
		t.Errorf("%s", f)
	}
	// A stream's length varies by a few chunks with the model's chunking.
	if report.Cuts < n0+n1-8 || report.Cuts+report.Beyond != n0+n1 || report.Chats != 1+n0+n1 {
		t.Errorf("%d cuts (%d past the end) in %d chats, want about %d in %d", report.Cuts, report.Beyond, report.Chats, n0+n1, 1+n0+n1)
	}
	for _, ty := range []string{"start", "start-step", "reasoning-delta", "text-delta", "tool-input-start", "tool-input-delta",
		"tool-input-available", "tool-output-available", "tool-approval-request", "tool-output-denied", "finish-step", "finish"} {
		if report.Types[ty] == 0 {
			t.Errorf("no %s chunk was read", ty)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
