package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/airlock-go/airlock/llmstream"
)

// Tool is a function the model may call.
//
// The loop hands Run the call's arguments as a JSON object (see
// [Loop.AnswerInvalidCalls] for the calls it refuses) and a context that ends at the
// Loop's tool timeout or when the run is cancelled, and that carries the
// call itself ([CallFromContext]). Run should return promptly once its
// context ends: see [ToolGrace] for what happens when it does not.
// Run's string is the result the model sees, cut at the Loop's output
// limit. A non-nil error fails the call and stops the run, unless it is
// wrapped with [Recoverable].
//
// Run is called on a goroutine the loop starts for the call. With
// Loop.ParallelTools above 1, calls of one turn run at once, the same tool
// too; and an abandoned call may still be running after the run returned;
// so Run must be safe for concurrent use.
type Tool struct {
	// Name is the function name the model calls. Required, unique in a Loop.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters is the JSON Schema of the arguments object; nil offers
	// an object with no properties.
	Parameters json.RawMessage
	// Run does the work. Required.
	Run func(ctx context.Context, arguments json.RawMessage) (string, error)
	// NeedsApproval asks the Loop's Approve function before each call of
	// this tool runs (a tool that writes, deletes, sends or pays). A tool
	// without it (one that only reads) runs without asking. It has no
	// effect when the Loop has no Approve function.
	NeedsApproval bool

	// err is why NewTool could not build the tool, reported by Run and
	// by the Loop.
	err error
}

// Schema returns the tool as offered to the model in a request. The
// returned value shares Parameters with t.
func (t Tool) Schema() llmstream.Tool {
	return llmstream.Tool{
		Type:     "function",
		Function: llmstream.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters},
	}
}

// check reports why t cannot be offered, or nil.
func (t Tool) check() error {
	if t.err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidLoop, t.err)
	}
	if t.Name == "" {
		return fmt.Errorf("%w: a tool has no name", ErrInvalidLoop)
	}
	if t.Run == nil {
		return fmt.Errorf("%w: tool %q has no Run function", ErrInvalidLoop, t.Name)
	}
	if t.Parameters != nil && !isObject(t.Parameters) {
		return fmt.Errorf("%w: tool %q: Parameters is not a JSON object", ErrInvalidLoop, t.Name)
	}
	return nil
}

// parseArguments re-checks a call's arguments before dispatch: empty text
// (some providers send none for a tool without parameters) becomes {};
// anything else must be one valid JSON object.
func parseArguments(args string) (json.RawMessage, error) {
	b := bytes.TrimSpace([]byte(args))
	if len(b) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !isObject(b) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidArguments, head(args, 48))
	}
	return json.RawMessage(b), nil
}

// isObject reports whether b is one valid JSON value that is an object.
func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// head returns at most n bytes of s, cut on a rune boundary, with "..."
// when something was cut; error texts stay short whatever the model sent.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:runeCut(s, n)] + "..."
}
