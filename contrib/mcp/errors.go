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
	// ErrBadResult: the server answered a call with a result the SDK
	// cannot read, such as a content block of a type it does not know.
	// The error is recoverable and says what came; the connection is
	// fine, so this call alone fails.
	ErrBadResult = errors.New("mcp: the server's result cannot be read")
	// ErrInvalidOption: an option value cannot be used, such as a negative
	// [WithMaxTools]: [Tools] returns an [*OptionError] that unwraps to it,
	// and asks the server nothing.
	ErrInvalidOption = errors.New("mcp: invalid option")
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
// cause: [ErrToolFailed], [ErrBadResult] or [ErrConnection] (wrapping the
// SDK's error), the context's error, or the server's *jsonrpc.Error, so
// errors.Is reaches them, and errors.As too unless a [WithSecrets] value
// had to be masked in the cause's text (then the cause's own errors,
// which show it, are not handed out).
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

// OptionError is the error for an option value that cannot be used. It
// unwraps to [ErrInvalidOption].
type OptionError struct {
	// Option is the offending option as its String method prints it.
	Option string
	// Reason says what is wrong with it.
	Reason string
}

// Error names the option and the reason.
func (e *OptionError) Error() string {
	return "mcp: invalid option " + e.Option + ": " + e.Reason
}

// Unwrap returns [ErrInvalidOption].
func (e *OptionError) Unwrap() error { return ErrInvalidOption }
