package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"
)

var update = flag.Bool("update", false, "record testdata/history.json from a run on the dev server")

// The environment of a worker process (see workerProcess).
const (
	workerAddrEnv    = "AIRLOCK_TEST_WORKER_TEMPORAL"
	workerQueueEnv   = "AIRLOCK_TEST_WORKER_QUEUE"
	workerModelEnv   = "AIRLOCK_TEST_WORKER_MODEL"
	workerJournalEnv = "AIRLOCK_TEST_WORKER_JOURNAL"
	workerMarkerEnv  = "AIRLOCK_TEST_WORKER_MARKER"
)

// crashScript is the model of the crash test: each turn is chosen by how
// many assistant messages the request has, so a retried request gets the
// same turn.
func crashScript(r llmstreamtest.Request) llmstreamtest.Turn {
	turns := []llmstreamtest.Turn{
		{ToolCalls: []llmstreamtest.Call{
			{ID: "c1", Name: "append", Arguments: `{"line":"a"}`},
			{ID: "c2", Name: "append", Arguments: `{"line":"b"}`},
		}},
		{ToolCalls: []llmstreamtest.Call{{ID: "c3", Name: "slow", Arguments: `{"line":"c"}`}}},
		{ToolCalls: []llmstreamtest.Call{{ID: "c4", Name: "append", Arguments: `{"line":"d"}`}}},
		{Text: "All four lines are written."},
	}
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return turns[min(n, len(turns)-1)]
}

// crashTools append a line to journal; slow first creates marker, then
// takes a while, so the test can kill its worker in the middle of it.
func crashTools(journal, marker string) []agentloop.Tool {
	appendLine := func(line string) error {
		f, err := os.OpenFile(journal, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		_, err = f.WriteString(line + "\n")
		return errors.Join(err, f.Close())
	}
	line := func(args json.RawMessage) string {
		var in struct{ Line string }
		_ = json.Unmarshal(args, &in)
		return in.Line
	}
	return []agentloop.Tool{
		{Name: "append", Run: func(_ context.Context, args json.RawMessage) (string, error) {
			l := line(args)
			return "appended " + l, appendLine(l)
		}},
		{Name: "slow", Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			if err := os.WriteFile(marker, nil, 0o600); err != nil {
				return "", err
			}
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(2 * time.Second):
			}
			l := line(args)
			return "slowly appended " + l, appendLine(l)
		}},
	}
}

// workerProcess is this test binary started as a worker: it serves the
// crash agent until SIGTERM (or until it is killed).
func workerProcess() int {
	c, err := client.Dial(client.Options{HostPort: os.Getenv(workerAddrEnv), Logger: quietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	model := llmstream.NewClient(
		llmstream.WithBaseURL(os.Getenv(workerModelEnv)),
		llmstream.WithAPIKey(testKey),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, 0, 0))),
	)
	w := worker.New(c, os.Getenv(workerQueueEnv), worker.Options{})
	Register(w, Agent{Model: model, Tools: crashTools(os.Getenv(workerJournalEnv), os.Getenv(workerMarkerEnv))})
	if err := w.Run(worker.InterruptCh()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// workerCmd is a worker process the test started.
type workerCmd struct {
	cmd  *exec.Cmd
	done chan error
}

// startWorker starts this test binary as a worker process.
func startWorker(t *testing.T, addr, queue, modelURL, journal, marker string) *workerCmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		workerAddrEnv+"="+addr, workerQueueEnv+"="+queue, workerModelEnv+"="+modelURL,
		workerJournalEnv+"="+journal, workerMarkerEnv+"="+marker)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerCmd{cmd: cmd, done: make(chan error, 1)}
	go func() { w.done <- cmd.Wait() }()
	t.Cleanup(func() { w.stop(t) })
	return w
}

// stop ends the worker gracefully and waits for it; a second stop does
// nothing.
func (w *workerCmd) stop(t *testing.T) {
	if w.done == nil {
		return
	}
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		t.Error("a worker did not stop within 30 s of SIGTERM")
		_ = w.cmd.Process.Kill()
		<-w.done
	}
	w.done = nil
}

// kill ends the worker with SIGKILL, as a crash or an OOM kill would.
func (w *workerCmd) kill() {
	_ = w.cmd.Process.Kill()
	<-w.done
	w.done = nil
}

// crashOptions make a lost worker's call go elsewhere within seconds.
var crashOptions = Options{
	HeartbeatTimeout: 2 * time.Second,
	ToolRetry:        &sdktemporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 5},
}

// TestCrashedWorker kills a worker process with SIGKILL in the middle of
// a tool call and starts another: the run completes with the conversation
// of a run that was not interrupted, and every tool call that completed
// ran exactly once.
func TestCrashedWorker(t *testing.T) {
	c, addr := devServer(t)
	_, srv := newModel(t, llmstreamtest.WithResponder(crashScript))
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	run := func(id string, crash bool) (agentloop.State, []string) {
		journal, marker := filepath.Join(dir, id+".journal"), filepath.Join(dir, id+".started")
		w := startWorker(t, addr, id, srv.URL, journal, marker)
		r, err := Start(ctx, c, client.StartWorkflowOptions{ID: id, TaskQueue: id}, user("write four lines"), crashOptions)
		if err != nil {
			t.Fatal(err)
		}
		if crash {
			for _, err := os.Stat(marker); err != nil; _, err = os.Stat(marker) {
				if ctx.Err() != nil {
					t.Fatal("the slow tool never started")
				}
				time.Sleep(10 * time.Millisecond)
			}
			w.kill()
			if got := readLines(t, journal); !slices.Equal(got, []string{"a", "b"}) {
				t.Fatalf("journal when the worker was killed: %q, want a and b", got)
			}
			w = startWorker(t, addr, id, srv.URL, journal, marker)
		}
		st, err := r.Result(ctx)
		if err != nil {
			t.Fatal(err)
		}
		w.stop(t)
		scanHistory(t, c, id)
		if got := retriedActivities(t, c, id); got != crash {
			t.Errorf("run %s: an activity was retried: %v, want %v", id, got, crash)
		}
		return st, readLines(t, journal)
	}

	whole, wholeLines := run("whole", false)
	crashed, crashedLines := run("crashed", true)
	if got, want := transcript(crashed.Messages), transcript(whole.Messages); got != want {
		t.Errorf("conversation after the crash:\n%s\nwithout a crash:\n%s", got, want)
	}
	if len(whole.Messages) != 9 {
		t.Errorf("the run has %d messages, want 9:\n%s", len(whole.Messages), transcript(whole.Messages))
	}
	for _, lines := range [][]string{wholeLines, crashedLines} {
		if !slices.Equal(lines, []string{"a", "b", "c", "d"}) {
			t.Errorf("journal %q: want each line once, in order", lines)
		}
	}
	if *update {
		writeHistory(t, c, "whole", filepath.Join("testdata", "history.json"))
	}
}

// readLines returns the lines of a journal, none when it does not exist.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// history returns a workflow's whole history, over continue-as-new.
func history(t *testing.T, c client.Client, id string) *historypb.History {
	t.Helper()
	h := &historypb.History{}
	it := c.GetWorkflowHistory(context.Background(), id, "", false, 0)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}

// retriedActivities reports whether an activity of the run started more
// than once: the crashed run's slow call must have, on the second worker.
func retriedActivities(t *testing.T, c client.Client, id string) bool {
	for _, e := range history(t, c, id).Events {
		if e.GetActivityTaskStartedEventAttributes().GetAttempt() > 1 {
			return true
		}
	}
	return false
}

// scanHistory fails the test if the API key is anywhere in a run's
// history: in the payloads' raw bytes or encoded.
func scanHistory(t *testing.T, c client.Client, id string) {
	t.Helper()
	h := history(t, c, id)
	raw, err := proto.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	js, err := temporalproto.CustomJSONMarshalOptions{}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Events) < 10 || !strings.Contains(string(raw), "appended a") {
		t.Fatalf("the history of %s has %d events and no tool result: the scan would prove nothing", id, len(h.Events))
	}
	if leaks(raw, testKey) || leaks(js, testKey) {
		t.Errorf("the API key is in the history of %s", id)
	}
}

// writeHistory writes a run's history as the CLI's `workflow show
// --output json` does, for the replay test.
func writeHistory(t *testing.T, c client.Client, id, path string) {
	t.Helper()
	js, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(history(t, c, id))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
