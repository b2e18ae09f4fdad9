// Package temporal runs airlock's agent loop as a Temporal workflow, so a
// run outlives the process that started it: a killed worker, a deploy or a
// lost machine costs at most the model turn or tool call it was in, a run
// can wait days for a person to approve a call, and the work spreads over
// every worker polling the task queue.
//
// The shape is the one Temporal's own agent integrations use:
//
//   - the workflow drives agentloop's turn core ([agentloop.Core]) over an
//     [agentloop.State]: the caps, the context budget, the invalid calls,
//     the answers and the failure rules are agentloop's own, and
//     deterministic, as the workflow's code must be (no clock, no random
//     ids, no map order), so Temporal can replay it on any worker;
//   - each model turn is an activity that streams with airlock and returns
//     the materialized message alone: a half-formed tool call never enters
//     the workflow's history;
//   - each tool call is an activity, run by [agentloop.Core.Dispatch] (its
//     timeout, panic recovery, recoverable errors and output cut),
//     fanned out up to [Options.ParallelTools], answered in call order;
//   - approvals arrive as a Temporal Update ([Run.Decide]) and a query lists
//     the calls that wait ([Run.Pending]);
//   - past [Options.MaxHistoryEvents] the run continues as new, carrying
//     its State.
//
// # Worker and starter
//
// The worker owns the model client (and so the credentials) and the tools:
//
//	w := worker.New(c, "agents", worker.Options{})
//	temporal.Register(w, temporal.Agent{Model: client, Tools: tools})
//	err := w.Run(worker.InterruptCh())
//
// A starter needs only a Temporal client:
//
//	run, err := temporal.Start(ctx, c, client.StartWorkflowOptions{ID: "run-1", TaskQueue: "agents"},
//		[]llmstream.Message{{Role: "user", Content: "..."}}, temporal.Options{})
//	st, err := run.Result(ctx) // st.Messages is the whole conversation
//
// # One layer retries
//
// A model turn that fails is retried by Temporal's activity retry policy
// ([Options.ModelRetry]) when its error's kind says so
// ([llmstream.ErrorKind.Retryable]; a provider's own
// [llmstream.APIError.Retryable] wins), after the provider's Retry-After
// when it sent one; other errors are non-retryable application errors.
// airlock's own transport must not retry as well, or one failure costs
// retries times attempts: build the worker's client with
//
//	llmstream.WithHTTPClient(transport.New(transport.WithRetry(0, 0, 0)))
//
// # Credentials
//
// Only the conversation, the options and the materialized messages enter
// the workflow's history. The API key stays in the worker's client; an
// error a provider sent is in history with the client's redaction applied
// (see [llmstream.APIError.Message]).
//
// # Following a turn as it streams
//
// Deltas never enter history. The model activity hands each one to
// [Agent.OnDelta] on the worker, keyed by workflow id ([Relay] fans them
// out in-process), and heartbeats the text so far ([Progress], read with
// [Run.Progress]); a retried turn's first [Delta] has Reset set.
//
// # Delivery
//
// A tool call's result enters history once, but the call itself is
// at-least-once: a worker lost while a tool runs means the tool runs again
// on another worker ([Options.ToolRetry]). A tool's own error is never
// retried: as in agentloop, it stops the run unless it is
// [agentloop.Recoverable].
package temporal
