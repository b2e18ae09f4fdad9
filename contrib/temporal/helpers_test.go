package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// testKey is the fake API key the tests' clients send; it must never
// appear in a workflow's history.
const testKey = "sk-airlock-test-key-0123456789abcdef"

// newModel returns a client for a fake model server serving turns, with
// airlock's transport retries off as the package requires, and the server.
func newModel(t testing.TB, opts ...llmstreamtest.Option) (*llmstream.Client, *llmstreamtest.Server) {
	t.Helper()
	srv := llmstreamtest.NewTestServer(t, opts...)
	tr := transport.New(transport.WithRetry(0, 0, 0))
	t.Cleanup(tr.CloseIdleConnections)
	c := llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithHTTPClient(tr), llmstream.WithAPIKey(testKey))...)
	return c, srv
}

// newEnv returns a test workflow environment with agent registered.
func newEnv(t *testing.T, agent Agent) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	// A workflow task starved of CPU for a second on a loaded machine
	// (-race, CI's other jobs) is not a deadlock.
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 30 * time.Second})
	Register(env, agent)
	return env
}

// execute runs the workflow to its end and returns its state and error.
func execute(t *testing.T, env *testsuite.TestWorkflowEnvironment, in input) (agentloop.State, error) {
	t.Helper()
	env.ExecuteWorkflow(DefaultName, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	var st agentloop.State
	err := env.GetWorkflowError()
	if err == nil {
		if gerr := env.GetWorkflowResult(&st); gerr != nil {
			t.Fatal(gerr)
		}
	}
	return st, err
}

// user is a conversation of one user message.
func user(text string) []llmstream.Message {
	return []llmstream.Message{{Role: "user", Content: text}}
}

// journal records tool calls, safe for concurrent tools.
type journal struct {
	mu    sync.Mutex
	calls []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.calls = append(j.calls, s)
	j.mu.Unlock()
}

func (j *journal) list() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.calls...)
}

// echoTool returns its "text" argument and records the call.
func echoTool(name string, j *journal) agentloop.Tool {
	return agentloop.Tool{
		Name:       name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			j.add(name + ":" + in.Text)
			return name + " says " + in.Text, nil
		},
	}
}

// transcript renders a conversation one message a line, for comparisons.
func transcript(msgs []llmstream.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s", m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, "[%s]", m.ToolCallID)
		}
		if m.IsError {
			b.WriteString("!")
		}
		fmt.Fprintf(&b, ": %s", m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, " {%s %s %s}", c.ID, c.Function.Name, c.Function.Arguments)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// startOptions names the test workflow.
func startOptions(id string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: id}
}
