// Package mcp offers the tools of a Model Context Protocol server to an
// [agentloop.Loop]: [Tools] lists what a connected server offers and turns
// every tool into an [agentloop.Tool] whose Run calls the server.
//
// It works on a session of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp), so any transport that SDK
// speaks (a command over stdio, streamable HTTP, in-memory) serves. The
// caller connects, hands the session to [Tools], and closes the session
// when the runs that use the tools are over.
//
// A tool becomes:
//
//   - Name: the server's name, with the [WithPrefix] prefix before it (so
//     two servers' "read_file" can sit in one Loop). A name that two tools
//     of the list would share, or that [WithTakenNames] lists, is a
//     [*CollisionError]: nothing is shadowed silently.
//   - Description: the server's description.
//   - Parameters: the input schema the server sent (as JSON, re-encoded by
//     the SDK, so key order may differ).
//   - NeedsApproval: see [WithApproval]; by default from the server's
//     annotations.
//   - Run: a tools/call request with the loop's context, so the loop's
//     tool timeout and a cancelled run end a call to a hanging server.
//
// A call's result, as the model sees it: every content block in order,
// text as sent and other kinds described in one line (an image as
// "[image: image/png, 1234 bytes]"; an embedded text resource is followed
// by its text), blocks joined by newlines; the structured content as JSON
// only when no block is text, since servers send its meaning as text too
// and the model needs it once. The result is cut at [WithMaxOutputBytes]
// bytes.
//
// Failures, each a [*CallError] naming the server and the tool:
//
//   - isError: true in the result: [ErrToolFailed], recoverable, so the
//     model sees the server's text and may try another way.
//   - A JSON-RPC "invalid params" answer: the model's arguments were
//     refused; recoverable as well, wrapping the server's *jsonrpc.Error.
//   - Another JSON-RPC error answer: a failed call that stops the run.
//   - A result the SDK cannot read, while the session still answers a
//     ping: [ErrBadResult], recoverable.
//   - The call's context ended: the context's error, which the loop
//     reports as a timeout or a cancelled run.
//   - No answer for any other reason (the server died or closed its end,
//     the transport failed): [ErrConnection] wrapping the SDK's cause, not
//     recoverable (the run stops).
//
// Credentials: a server may have been started with secrets in its
// environment, arguments or headers. This package never reads them, but
// the SDK's error texts may quote what it was given (a URL, say); pass the
// values to [WithSecrets] and every error text this package returns has
// them masked, by the same rule as the rest of airlock
// ([transport.Redact]).
//
// Trust: a server's names, descriptions, schemas, annotations and results
// come from the server. Treat them as untrusted input: annotations are
// hints, not guarantees (see [WithApproval]).
package mcp
