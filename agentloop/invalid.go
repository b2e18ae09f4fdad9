package agentloop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// problem says, in words for the model, why call may not run, and the
// sentinel for it; "" when it may. streamed is the stream's own verdict on
// the arguments, if it had one; sharing is how many calls of the turn have
// call's id.
func (c *Core) problem(call Call, streamed error, sharing int) (string, error) {
	if sharing > 1 {
		// Decisions and answers are matched to calls by id: a call that
		// shares its id could be run on another's approval.
		return fmt.Sprintf("%d calls of this turn have the id %q; send each call with an id of its own", sharing, call.ID), ErrDuplicateCallID
	}
	if c.byName[call.Name] == nil {
		names := make([]string, len(c.l.Tools))
		for i, t := range c.l.Tools {
			names[i] = t.Name
		}
		if len(names) == 0 {
			return fmt.Sprintf("there is no tool named %q, and no tools at all", call.Name), ErrUnknownTool
		}
		return fmt.Sprintf("there is no tool named %q; the tools are: %s", call.Name, strings.Join(names, ", ")), ErrUnknownTool
	}
	if _, err := parseArguments(call.Arguments); err != nil || streamed != nil {
		return "the arguments " + argumentsProblem(call.Arguments) + "; send the call again with its arguments as one JSON object", ErrInvalidArguments
	}
	return "", nil
}

// argumentsProblem says what is wrong with arguments that are not one JSON
// object, and where.
func argumentsProblem(args string) string {
	var v any
	err := json.Unmarshal([]byte(args), &v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("are not valid JSON: %v at byte %d", se, se.Offset)
	case err != nil:
		return "are not valid JSON: " + err.Error()
	}
	kind := "a JSON value"
	switch v.(type) {
	case []any:
		kind = "a JSON array"
	case string:
		kind = "a JSON string"
	case float64:
		kind = "a JSON number"
	case bool:
		kind = "a JSON boolean"
	case nil:
		kind = "JSON null"
	}
	return "are " + kind + ", not an object"
}

// repeated is the error for a failure the model made twice in a row.
func repeated(err error) error {
	if err == nil {
		return ErrRepeatedFailure
	}
	var te *ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("%w: %w", ErrRepeatedFailure, err)
	}
	return &ToolError{Name: te.Name, CallID: te.CallID, Index: te.Index, Err: fmt.Errorf("%w: %w", ErrRepeatedFailure, te.Err)}
}
