// Package agentloop is the reference agent loop: call the model, check the
// caps, run the tools it asked for, feed the results back, and stop when
// the model answers without tool calls.
//
// It consumes only materialized messages: a [Model] returns one complete
// [llmstream.Message] per turn, whose tool calls are whole and validated
// (*llmstream.Client is such a Model). Streaming deltas may reach a front
// end through [Hooks].OnDelta, but the loop never acts on them.
//
// # Rules
//
// A turn is one model call and the tool calls of its message:
//
//  1. Before the model call, the context budget is applied: when the
//     conversation is over Loop.MaxContextBytes, the oldest tool outputs
//     are replaced by a marker such as
//     "[airlock: tool output of 20480 bytes dropped to fit the context budget]".
//     The tool message stays, so its call is still answered; the first
//     message is never changed.
//  2. The model's message is appended. No tool calls: the run is done.
//  3. More calls than Loop.MaxToolCallsPerTurn ([ErrTurnToolLimit]), or a
//     run total past Loop.MaxTotalToolCalls ([ErrTotalToolLimit]): the run
//     stops and none of the turn's calls runs.
//  4. The calls run in order, one at a time. Arguments are checked again
//     (empty text means {}; otherwise one JSON object, else
//     [ErrInvalidArguments]); an unknown name fails with [ErrUnknownTool].
//     Each tool runs under Loop.ToolTimeout (one that ignores its
//     context is abandoned [ToolGrace] later), and its output is cut at
//     Loop.MaxToolOutputBytes with a marker such as
//     "[airlock: output truncated, 1200 bytes cut]".
//     Each result is appended as a "tool" message with the call's ID.
//  5. A failed call stops the run with a [*ToolError] — a tool that fails
//     may have left things half done, and the loop does not guess — unless
//     the tool returned a [Recoverable] error: then the model sees
//     "error: <text>" as the result and gets another turn. The same
//     recoverable failure twice in a row stops the run
//     ([ErrRepeatedFailure]). Calls after a failed one in the same turn are
//     answered "skipped: ..." and never run.
//  6. When the model still asks for tools in turn Loop.MaxTurns, those
//     calls run and the run stops with [ErrMaxTurns].
//
// Whatever stops a run, [Loop.Run] returns the [Result] so far, and every
// tool call in Result.Messages has its answer, so the conversation can be
// shown, inspected or sent again.
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
