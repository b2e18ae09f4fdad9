package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Test for them with [errors.Is]; the facts are in the
// struct errors that wrap them, which [errors.As] finds.
var (
	// ErrNameTaken: a tool's offered name is already taken; see
	// [*CollisionError].
	ErrNameTaken = errors.New("mcp: tool name already taken")
	// ErrTooManyTools: the server listed more tools than [WithMaxTools].
	ErrTooManyTools = errors.New("mcp: the server lists too many tools")
	// ErrToolFailed: the server answered a call with isError: true. The
	// error is recoverable; its text ends with the server's content.
	ErrToolFailed = errors.New("mcp: the tool reported an error")
	// ErrConnection: the connection to the server failed (it died or
	// closed its end). Every later call of a tool of the same [Tools]
	// list fails with it too, without calling the server.
	ErrConnection = errors.New("mcp: the connection to the server failed")
)

// CollisionError reports a tool whose offered name (prefix included) is
// already taken, by another tool of the same list or by a name passed to
// [WithTakenNames]. It unwraps to [ErrNameTaken].
type CollisionError struct {
	// Server is the server's name from its initialize answer.
	Server string
	// Name is the name the tool would be offered as.
	Name string
	// Tool is the server's name of the tool.
	Tool string
	// Other is the server's name of the tool listed first with the same
	// offered name; empty when the name was passed to [WithTakenNames].
	Other string
}

// Error names the server, both tools (or the taken name) and the offered
// name.
func (e *CollisionError) Error() string {
	if e.Other == "" {
		return fmt.Sprintf("mcp: server %q: tool %q would be offered as %q, a name already taken", e.Server, e.Tool, e.Name)
	}
	return fmt.Sprintf("mcp: server %q: tools %q and %q would both be offered as %q", e.Server, e.Other, e.Tool, e.Name)
}

// Unwrap returns [ErrNameTaken].
func (e *CollisionError) Unwrap() error { return ErrNameTaken }

// CallError reports a call to an MCP tool that failed. Err holds the
// cause: [ErrToolFailed], [ErrConnection] (wrapping the SDK's error), the
// context's error, or the server's *jsonrpc.Error, so errors.Is and
// errors.As reach them.
type CallError struct {
	// Server is the server's name from its initialize answer.
	Server string
	// Tool is the server's name of the tool (no prefix).
	Tool string
	// Err is the cause.
	Err error
}

// Error names the server and the tool, then the cause, with one package
// prefix, e.g. `mcp: server "fs": tool "read_file": the tool reported an
// error: ENOENT`.
func (e *CallError) Error() string {
	cause := "failed"
	if e.Err != nil {
		cause = strings.TrimPrefix(e.Err.Error(), "mcp: ")
	}
	return fmt.Sprintf("mcp: server %q: tool %q: %s", e.Server, e.Tool, cause)
}

// Unwrap returns the cause.
func (e *CallError) Unwrap() error { return e.Err }

// redactedError is err with the caller's secrets masked in its text; the
// chain is kept so errors.Is and errors.As still reach every cause.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactedMark replaces a secret in an error text.
const redactedMark = "[REDACTED]"

// redact returns err with every value of secrets masked in its text, or
// err itself when its text holds none.
func redact(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	text := err.Error()
	masked := text
	for _, s := range secrets {
		masked = strings.ReplaceAll(masked, s, redactedMark)
	}
	if masked == text {
		return err
	}
	return &redactedError{msg: masked, err: err}
}
