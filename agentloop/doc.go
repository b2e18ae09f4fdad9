// Package agentloop is the reference agent loop: call the model, check the
// caps, run the tools it asked for, feed the results back, and stop when
// the model answers without tool calls. It acts only on materialized
// messages, whose tool calls are whole and validated. Whatever stops a run,
// [Loop.Run] returns the [Result] so far, every call in it answered, and a
// State that [Loop.Resume] goes on from, in any process.
//
//	loop := agentloop.Loop{
//		Model: llmstream.NewClient(llmstream.WithModel("gpt-4o-mini")), // or any Model
//		Tools: []agentloop.Tool{agentloop.NewTool("read_file", "Reads a file.", readFile)},
//	}
//	res, err := loop.Run(ctx, []llmstream.Message{{Role: "user", Content: "Fix the typo in README.md"}})
//	// res.Messages is the whole conversation; errors.Is(err, agentloop.ErrPaused) waits for Approve's person
//
// [Loop] says its limits' defaults; the examples run each feature offline:
// parallel tools, approval, Resume from a State saved as JSON, and
// [NewTool]. The rules live once, in [Core], whose steps say what a turn
// does, in order: Run and Resume drive them, and a host that must own each
// step (contrib/temporal makes each model turn and tool call durable)
// drives the same ones.
package agentloop
