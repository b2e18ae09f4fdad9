// Package agentloop is the reference agent loop: call the model, check the
// caps, run the tools it asked for, feed the results back, and stop when
// the model answers without tool calls. It acts only on materialized
// messages, whose tool calls are whole and validated.
//
//	read := agentloop.NewTool("read_file", "Reads a file.", readFile)   // func(ctx, struct{Path string `json:"path"`}) (string, error); schema derived
//	write := agentloop.NewTool("write_file", "Writes a file.", writeFile)
//	write.NeedsApproval = true                                          // Approve is asked before it runs; read_file is not
//	loop := agentloop.Loop{
//		Model:         llmstream.NewClient(llmstream.WithModel("gpt-4o-mini")), // or any Model, a ModelFunc
//		Tools:         []agentloop.Tool{read, write},
//		ParallelTools: 4,                                        // a turn's calls run at once, answered in call order
//		Approve:       askPerson,                                // Allow, Deny (with a reason) or Pause
//		Request:       llmstream.Request{Temperature: &temp},    // sent with every turn
//		Hooks:         agentloop.Hooks{OnDelta: show},           // streaming, for display only
//	}
//	res, err := loop.Run(ctx, []llmstream.Message{{Role: "user", Content: "Fix the typo in README.md"}})
//	if errors.Is(err, agentloop.ErrPaused) {
//		saved, _ := json.Marshal(res.State) // res.Pending: the calls waiting for a person
//		// ... later, in any process: json.Unmarshal(saved, &st), then
//		res, err = loop.Resume(ctx, st, map[string]agentloop.Decision{res.Pending[0].ID: {Verdict: agentloop.Allow}})
//	}
//	// res.Messages is the whole conversation; every call in it has its answer
//
// The package's examples run each feature offline: parallel tools,
// approve, Resume from a State saved as JSON, and NewTool.
//
// # A turn
//
//  1. The context budget is applied: over Loop.MaxContextBytes, the oldest
//     tool outputs are replaced by a marker (their messages stay, so every
//     call is still answered; the first message is never changed).
//  2. The model's message is appended. No tool calls: the run is done —
//     unless the model paused a long server-side turn
//     ([llmstream.StopPause], Anthropic's pause_turn): then the
//     conversation, ending in that message, is sent again to let it go on.
//  3. The caps are checked: more calls than MaxToolCallsPerTurn or a run
//     total past MaxTotalToolCalls stops the run before any call runs.
//  4. Every call is checked before any runs: an unknown tool or arguments
//     that are not one JSON object make the turn invalid, and none of its
//     calls runs; by default the run stops, with [Loop.AnswerInvalidCalls]
//     the model is told what was wrong and tries again.
//  5. [Loop.Approve], if set, decides each call of a tool with
//     NeedsApproval: Allow, Deny (answered with the reason; the run goes
//     on) or Pause (the run stops with [ErrPaused]; [Loop.Resume] goes on
//     from Result.State once a person decided).
//  6. The allowed calls run, up to Loop.ParallelTools at once, each under
//     Loop.ToolTimeout (a tool that ignores its context is abandoned
//     [ToolGrace] later), its output cut at MaxToolOutputBytes; the
//     results are appended as "tool" messages in call order, whatever
//     order they finished in.
//  7. A failed call stops the run with a [*ToolError] — a tool that fails
//     may have left things half done, and the loop does not guess — unless
//     it returned a [Recoverable] error: then the model sees the error and
//     gets another turn. The same failure twice in a row stops the run.
//
// Whatever stops a run, [Loop.Run] returns the [Result] so far, and every
// tool call in it has its answer (but those of a paused turn), so the
// conversation can be shown or sent again; its State, saved as JSON,
// goes on later in any process with [Loop.Resume].
//
// # Limits
//
//	field                 default   unit               on breach
//	MaxTurns              20        model calls        ErrMaxTurns
//	MaxToolCallsPerTurn   8         calls per message  ErrTurnToolLimit
//	MaxTotalToolCalls     50        calls per run      ErrTotalToolLimit
//	ToolTimeout           60s       per call           ErrToolTimeout
//	MaxToolOutputBytes    32 KiB    bytes per call     cut and marked
//	MaxContextBytes       384 KiB   bytes per request  oldest outputs dropped, then ErrContextBudget
//
// A zero field means the default; a negative one switches the limit off.
package agentloop
