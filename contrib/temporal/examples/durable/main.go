// Command durable runs an agent as a Temporal workflow, offline: the worker
// serves a scripted model from llmstreamtest in its own process, so all it
// needs is a Temporal server.
//
//	temporal server start-dev --ip 127.0.0.1 --headless   # terminal 1
//	go run ./examples/durable worker                        # terminal 2
//	go run ./examples/durable start -approve "Take a note"  # terminal 3
//
// Kill the worker (Ctrl-C or kill -9) while the run waits or works and start
// it again: the run goes on where it was. Without -approve the run waits for
// a decision on the write_note call; `durable approve -id ID` gives it.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/temporal"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/transport"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program: the subcommand and its flags are read before the
// server is dialled, so -h and a mistake need no server.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "worker" && args[0] != "start" && args[0] != "approve") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprintln(stdout, usageText)
			return 0
		}
		fmt.Fprintln(stderr, usageText)
		return 2
	}
	fs := flag.NewFlagSet("durable "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	address := fs.String("address", "127.0.0.1:7233", "the Temporal server's host:port")
	queue := fs.String("queue", "durable", "the task queue")
	id := fs.String("id", "durable-1", "the run's workflow id")
	approve := fs.Bool("approve", false, "approve every call that waits for a decision")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	// The SDK's own lines at warning and above only.
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	dialCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := client.DialContext(dialCtx, client.Options{HostPort: *address, Logger: logger})
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "durable: no Temporal server answers at %s (%v);\nis `temporal server start-dev --ip 127.0.0.1 --headless` running on %s? (-address sets another)\n", *address, err, *address)
		return 1
	}
	defer c.Close()
	switch args[0] {
	case "worker":
		err = runWorker(c, *queue, *id, stdout)
	case "start":
		err = start(c, *queue, *id, strings.Join(fs.Args(), " "), *approve, stdout)
	case "approve":
		err = decideAll(ctx, temporal.Attach(c, *id), stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "durable:", err)
		return 1
	}
	return 0
}

const usageText = `usage: durable worker|start|approve [-address host:port] [-queue name] [-id id] [-approve] [prompt]

  worker    serve the agent (a scripted model in this process) until Ctrl-C
  start     start a run and wait for its end; -approve approves its calls
  approve   approve every call of run -id that waits for a decision

Each needs a Temporal server: temporal server start-dev --ip 127.0.0.1 --headless
"durable worker -h" lists the flags.`

// runWorker serves the agent until Ctrl-C. The model is a scripted fake
// server in this process; with a real provider, the client (and its key)
// would be built here in the same way, with the transport's retries off.
func runWorker(c client.Client, queue, id string, stdout io.Writer) error {
	srv := llmstreamtest.NewServer(llmstreamtest.WithResponder(script), llmstreamtest.WithEventDelay(20*time.Millisecond))
	defer srv.Close()
	model := llmstream.NewClient(
		llmstream.WithBaseURL(srv.URL),
		llmstream.WithAPIKey("sk-stays-on-the-worker"),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, 0, 0))), // Temporal retries
	)
	var relay temporal.Relay
	stop := relay.Follow(id, func(d temporal.Delta) {
		if d.Reset {
			fmt.Fprintln(stdout, "\n[turn retried: dropping its partial text]")
		}
		if d.Delta.Kind == llmstream.DeltaText { // not reasoning, not a call's arguments
			fmt.Fprint(stdout, d.Delta.Text)
		}
	})
	defer stop()
	w := worker.New(c, queue, worker.Options{})
	temporal.Register(w, temporal.Agent{Model: model, Tools: tools(), OnDelta: relay.Publish})
	fmt.Fprintln(stdout, "worker polling", queue)
	return w.Run(worker.InterruptCh())
}

// script is the fake model: a note, then an answer.
func script(r llmstreamtest.Request) llmstreamtest.Turn {
	for _, m := range r.Messages {
		if m.Role == "tool" {
			return llmstreamtest.Turn{Text: "Done: the note tool answered \"" + m.Content + "\"."}
		}
	}
	return llmstreamtest.Turn{Text: "I will write it down.", ToolCalls: []llmstreamtest.Call{
		{ID: "call_note", Name: "write_note", Arguments: `{"text":"remember the milk"}`},
	}}
}

// tools are the worker's tools; write_note waits for a person.
func tools() []agentloop.Tool {
	return []agentloop.Tool{{
		Name:          "write_note",
		Description:   "Writes a note.",
		NeedsApproval: true,
		Parameters:    json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Run: func(_ context.Context, args json.RawMessage) (string, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(args, &in); err != nil {
				return "", err
			}
			fmt.Printf("\n[write_note: %q]\n", in.Text)
			return "written", nil
		},
	}}
}

// start starts a run and waits for its end, approving calls if asked.
func start(c client.Client, queue, id, prompt string, approve bool, stdout io.Writer) error {
	ctx := context.Background()
	run, err := temporal.Start(ctx, c, client.StartWorkflowOptions{ID: id, TaskQueue: queue},
		[]llmstream.Message{{Role: "user", Content: cmp.Or(prompt, "Take a note.")}}, temporal.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "started", run.ID)
	if approve {
		go func() {
			for ctx.Err() == nil {
				_ = decideAll(ctx, run, stdout)
				time.Sleep(500 * time.Millisecond)
			}
		}()
	}
	st, err := run.Result(ctx)
	for _, m := range st.Messages {
		fmt.Fprintf(stdout, "%-9s %s%s\n", m.Role+":", m.Content, calls(m))
	}
	return err
}

// decideAll approves every call that waits.
func decideAll(ctx context.Context, run temporal.Run, stdout io.Writer) error {
	pending, err := run.Pending(ctx)
	if err != nil {
		return err
	}
	for _, p := range pending {
		fmt.Fprintf(stdout, "approving %s %s\n", p.Name, p.Arguments)
		if err := run.Decide(ctx, p.ID, agentloop.Decision{Verdict: agentloop.Allow}); err != nil {
			return err
		}
	}
	return nil
}

func calls(m llmstream.Message) string {
	var b strings.Builder
	for _, c := range m.ToolCalls {
		fmt.Fprintf(&b, " [%s %s]", c.Function.Name, c.Function.Arguments)
	}
	return b.String()
}
