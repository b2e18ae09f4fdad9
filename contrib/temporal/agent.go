package temporal

import (
	"cmp"
	"errors"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"
)

// Agent is what a worker runs: the model and the tools, which live on the
// worker with their credentials and never enter a workflow's history.
// Every worker polling a task queue must register the same Agent (same
// name, tools and model settings), as Temporal requires of any workflow.
type Agent struct {
	// Name is the workflow type; its activities are Name+".model" and
	// Name+".tool". Empty means [DefaultName]. Starters select it with
	// [Options.Agent].
	Name string
	// Model streams each model turn. Required. For *llmstream.Client, turn
	// the transport's retries off (see the package documentation): Temporal
	// retries the turn.
	Model agentloop.Model
	// Tools are the tools offered to the model, in this order.
	Tools []agentloop.Tool
	// Request is the template of every model request (generation settings);
	// Messages, Tools and OnDelta are the activity's to fill.
	Request llmstream.Request
	// OnDelta, when set, receives every delta of every model turn this
	// worker streams, with the workflow it belongs to; see [Delta] and
	// [Relay]. It is called on the activity's goroutine, so a slow OnDelta
	// slows the turn; it must not keep the Delta's Call.Partial.
	OnDelta func(Delta)
	// Hooks follow the run as agentloop's do, on the worker that does the
	// work: BeforeModel, AfterModel and OnDelta around each attempt of a
	// model turn, BeforeTool and AfterTool around each attempt of a tool
	// call (a retried attempt calls them again; ToolStart.Batch and
	// Running are 0). The workflow itself calls none, since replaying it
	// would call them again: no AfterApproval, and no tool hooks for the
	// calls of an invalid turn. This worker calls them one at a time.
	Hooks agentloop.Hooks
}

// Register registers the agent's workflow and its two activities on r
// (a worker.Worker, or a testsuite environment). An Agent without a Model
// is registered all the same, and each model turn it gets fails the run
// with [ErrNoModel]; Register itself never fails.
func Register(r registry, a Agent) {
	name := cmp.Or(a.Name, DefaultName)
	acts := &activities{agent: a}
	r.RegisterWorkflowWithOptions(acts.workflow, workflow.RegisterOptions{Name: name})
	r.RegisterActivityWithOptions(acts.model, activity.RegisterOptions{Name: name + modelSuffix})
	r.RegisterActivityWithOptions(acts.tool, activity.RegisterOptions{Name: name + toolSuffix})
}

// registry is the part of worker.Registry Register uses; worker.Worker and
// the testsuite's environments have it.
type registry interface {
	RegisterWorkflowWithOptions(w interface{}, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a interface{}, options activity.RegisterOptions)
}

// ErrNoModel is the failure of a model turn on a worker whose Agent has no
// Model; it is not retried.
var ErrNoModel = errors.New("temporal: the worker's Agent has no Model")

const (
	modelSuffix = ".model"
	toolSuffix  = ".tool"
)
