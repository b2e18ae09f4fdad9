package main

import (
	"context"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/temporal"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/transport"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// This file holds the README's code blocks, so that they compile with the
// package (TestReadmeMatchesFiles compares them). The program itself is
// main.go; these functions are not called.

// readmeShape is the README's "Shape" block: a worker and a client of a run.
func readmeShape(ctx context.Context, c client.Client, model llmstream.Streamer, tools []agentloop.Tool, msgs []llmstream.Message) (agentloop.State, error) {
	var relay temporal.Relay
	// readme:begin shape
	// worker: the model client (and so the key) and the tools live here
	w := worker.New(c, "agents", worker.Options{})
	temporal.Register(w, temporal.Agent{Model: model, Tools: tools, OnDelta: relay.Publish})

	// anyone with a Temporal client
	run, _ := temporal.Start(ctx, c, client.StartWorkflowOptions{ID: "run-1", TaskQueue: "agents"}, msgs, temporal.Options{ParallelTools: 4})
	calls, _ := run.Pending(ctx) // what waits for a person
	_ = run.Decide(ctx, calls[0].ID, agentloop.Decision{Verdict: agentloop.Allow})
	st, err := run.Result(ctx) // *RunError: errors.Is(err, agentloop.ErrMaxTurns), ...
	// readme:end
	return st, err
}

// readmeNoRetries is the README's block on a worker's client: the
// transport's retries off, as Temporal retries the turn.
func readmeNoRetries(key string) *llmstream.Client {
	// readme:begin no-retries
	model := llmstream.NewClient(llmstream.WithAPIKey(key),
		llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, 0, 0))))
	// readme:end
	return model
}

var _, _ = readmeShape, readmeNoRetries
