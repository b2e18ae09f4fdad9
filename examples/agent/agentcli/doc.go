// Package agentcli is airlock's demo coding agent as a function, [Run], so
// that the command in examples/agent is a few lines and another program
// can offer more tools and flags with it ([WithTools], [WithFlag]): the
// one in contrib/mcp/examples/agent adds the tools of MCP servers.
//
// Settings come from, in rising precedence: defaults, a --config file of
// `key = value` lines (values may be quoted; see configfile.go), AIRLOCK_<KEY>
// variables, flags. A bad value is refused with exit status 2, and a message
// that shows it (a key only redacted) and, for a misspelt name, the nearest
// known one; an AIRLOCK_ variable that is no setting gets a warning. Exit
// status 1 means the run stopped on an error, 130 that it was interrupted
// (or paused at a prompt, its state saved).
//
// The file tools stay inside the workspace (an os.Root: no absolute path,
// no "..", no symlink out), read and write UTF-8 text only, and leave
// hidden files alone: .env and .git/config hold credentials the model
// would send to its provider, .git/hooks and .envrc hold code that runs
// later. The reading tools run without asking, several at once
// (--parallel); write_file is offered only with --allow-write, and each
// call of it is put to the person at the terminal first (see approve.go).
//
// On a terminal the output is redrawn in place: each tool call is shown
// while its arguments stream, under it a status line. Piped, the same
// transcript is written plainly, one line per call.
package agentcli
