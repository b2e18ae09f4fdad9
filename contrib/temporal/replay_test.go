package temporal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-go/airlock/agentloop"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// historyFile is a run recorded on a dev server by TestCrashedWorker
// -update: three tool turns and an answer.
var historyFile = filepath.Join("testdata", "history.json")

// recorded returns historyFile, or ends the test when there is none: a
// change of the workflow's commands or payloads removes the history the
// old workflow recorded, and TestCrashedWorker -update records the new
// one. Under CI=true a missing history fails, so it is never forgotten.
func recorded(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(historyFile); err == nil {
		return historyFile
	}
	msg := historyFile + " is missing: record it with AIRLOCK_TEMPORAL_CLI=<temporal binary> go test -run TestCrashedWorker -update"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestReplay replays a recorded history through today's workflow code:
// a change that would make the workflow decide differently on replay (and
// so break every run in flight on a deploy) fails it.
func TestReplay(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	// The workflow plans with the agent's tools: the crash test's.
	acts := &activities{agent: Agent{Tools: crashTools(os.DevNull, os.DevNull)}}
	r.RegisterWorkflowWithOptions(acts.workflow, workflow.RegisterOptions{Name: DefaultName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), recorded(t)); err != nil {
		t.Fatal(err)
	}
}

// The replay catches a workflow that decides differently.
func TestReplayCatchesChange(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	changed := func(ctx workflow.Context, in input) (agentloop.State, error) {
		return in.State, nil // never calls the model
	}
	r.RegisterWorkflowWithOptions(changed, workflow.RegisterOptions{Name: DefaultName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), recorded(t)); err == nil {
		t.Fatal("a workflow that schedules no activity replayed a history full of them")
	}
}

// The recorded history holds no credential.
func TestHistoryFileHasNoKey(t *testing.T) {
	b, err := os.ReadFile(recorded(t))
	if err != nil {
		t.Fatal(err)
	}
	if leaks(b, testKey) {
		t.Error("the API key is in " + historyFile)
	}
}
