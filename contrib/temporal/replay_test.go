package temporal

import (
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// historyFile is a run recorded on a dev server by TestCrashedWorker
// -update: three tool turns and an answer.
var historyFile = filepath.Join("testdata", "history.json")

// TestReplay replays a recorded history through today's workflow code:
// a change that would make the workflow decide differently on replay (and
// so break every run in flight on a deploy) fails it.
func TestReplay(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(runWorkflow, workflow.RegisterOptions{Name: DefaultName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), historyFile); err != nil {
		t.Fatal(err)
	}
}

// The replay catches a workflow that decides differently.
func TestReplayCatchesChange(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	changed := func(ctx workflow.Context, in input) (State, error) {
		return in.State, nil // never calls the model
	}
	r.RegisterWorkflowWithOptions(changed, workflow.RegisterOptions{Name: DefaultName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger(), historyFile); err == nil {
		t.Fatal("a workflow that schedules no activity replayed a history full of them")
	}
}

// The recorded history holds no credential.
func TestHistoryFileHasNoKey(t *testing.T) {
	b, err := os.ReadFile(historyFile)
	if err != nil {
		t.Fatal(err)
	}
	if leaks(b, testKey) {
		t.Error("the API key is in " + historyFile)
	}
}
