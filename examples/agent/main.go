// Command agent is airlock's demo coding agent.
//
// With no flags it runs offline: a built-in scripted model is served by
// llmstreamtest over loopback HTTP and reached through the whole stack
// (transport, sse, the llmstream bridge and tool-call assembler, agentloop).
// It explores the workspace with list_files, then reads the files that tell
// most about it, several at once (--parallel), and streams a summary.
// -e "task" gives it a task.
//
// With --allow-write it is offered write_file, and asks before each write:
// y, n (with a reason the model is told) or why (the call's arguments in
// full). --yes approves every write without asking. Ctrl-C at that prompt
// pauses the run: its state is saved to a file (--state, default
// airlock-run.json) and --resume FILE goes on from it, in another process,
// asking again. Ctrl-C anywhere else cancels the run.
//
// With --base-url, --api-key and --model (or AIRLOCK_BASE_URL,
// AIRLOCK_API_KEY, AIRLOCK_MODEL; the provider's own key variable and
// OPENAI_BASE_URL fill in what those leave unset) it talks to any
// OpenAI-compatible server, or with --dialect to the Anthropic, Responses
// or Gemini API.
//
// The program is [agentcli.Run]; contrib/mcp/examples/agent is the same
// program with --mcp, which offers an MCP server's tools beside its own.
//
//	go run ./examples/agent
//	go run ./examples/agent -e "find TODO"
//	go run ./examples/agent --allow-write
//	AIRLOCK_API_KEY=... go run ./examples/agent --base-url https://api.openai.com/v1 --model gpt-4o-mini
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/airlock-go/airlock/examples/agent/agentcli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels the run cleanly (or pauses it at a
	// prompt); restoring the default handling then lets a second one kill
	// a run slow to stop.
	context.AfterFunc(ctx, stop)
	code := agentcli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ(), agentcli.WithCommand(agentcli.Invocation(os.Args[0], "go run ./examples/agent")))
	stop()
	os.Exit(code)
}
