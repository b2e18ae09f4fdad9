package agentloop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
)

// checkCalls looks for the calls of a turn that may not run: a tool the
// Loop does not have, or arguments that are not one JSON object (streamed
// says which calls the stream already found to be invalid JSON). When every
// call may run it returns false. Otherwise no call of the turn runs: each
// is answered (the invalid ones with what is wrong, the others "skipped"),
// the tool hooks see the invalid ones, and checkCalls returns true with the
// error that stops the run — nil when the Loop answers invalid calls and
// the run goes on.
func (r *run) checkCalls(turn int, calls []llmstream.ToolCall, streamed []error) (bool, error) {
	var first *ToolError
	var key strings.Builder // identifies this set of failures for the repeat rule
	answers := make([]string, len(calls))
	ids := make(map[string]int, len(calls))
	for _, call := range calls {
		ids[call.ID]++
	}
	for i, call := range calls {
		var cause error
		if i < len(streamed) {
			cause = streamed[i]
		}
		problem, sentinel := r.problem(call, cause, ids[call.ID])
		if problem == "" {
			continue
		}
		err := &ToolError{Name: call.Function.Name, CallID: call.ID, Index: i, Err: sentinel}
		if cause != nil {
			err.Err = fmt.Errorf("%w: %w", sentinel, cause)
		}
		answers[i] = "error: " + problem
		r.announceInvalid(turn, i, call, answers[i], err)
		if first == nil {
			first = err
		}
		fmt.Fprintf(&key, "%s\x00%s\x00%s\x00", call.Function.Name, call.Function.Arguments, problem)
	}
	if first == nil {
		return false, nil
	}
	for i, call := range calls {
		if answers[i] == "" {
			answers[i] = "skipped: not run because call " + first.CallID + " is invalid"
		}
		r.answer(call, answers[i], strings.HasPrefix(answers[i], "error: "))
	}
	switch {
	case !r.s.AnswerInvalidCalls:
		return true, first
	case key.String() == r.lastFailure:
		return true, repeated(first)
	}
	r.lastFailure = key.String()
	return true, nil
}

// problem says, in words for the model, why call may not run, and the
// sentinel for it; "" when it may. streamed is the stream's own verdict on
// the arguments, if it had one; sharing is how many calls of the turn have
// call's id.
func (r *run) problem(call llmstream.ToolCall, streamed error, sharing int) (string, error) {
	if sharing > 1 {
		// Decisions and answers are matched to calls by id: a call that
		// shares its id could be run on another's approval.
		return fmt.Sprintf("%d calls of this turn have the id %q; send each call with an id of its own", sharing, call.ID), ErrDuplicateCallID
	}
	if r.s.byName[call.Function.Name] == nil {
		names := make([]string, len(r.s.Tools))
		for i, t := range r.s.Tools {
			names[i] = t.Name
		}
		if len(names) == 0 {
			return fmt.Sprintf("there is no tool named %q, and no tools at all", call.Function.Name), ErrUnknownTool
		}
		return fmt.Sprintf("there is no tool named %q; the tools are: %s", call.Function.Name, strings.Join(names, ", ")), ErrUnknownTool
	}
	if _, err := parseArguments(call.Function.Arguments); err != nil || streamed != nil {
		return "the arguments " + argumentsProblem(call.Function.Arguments) + "; send the call again with its arguments as one JSON object", ErrInvalidArguments
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

// announceInvalid tells the tool hooks of a call that was refused without
// running.
func (r *run) announceInvalid(turn, index int, call llmstream.ToolCall, content string, err error) {
	h := &r.s.Hooks
	if h.BeforeTool != nil {
		h.BeforeTool(ToolStart{Turn: turn, Index: index, Call: call})
	}
	if h.AfterTool != nil {
		h.AfterTool(ToolDone{Turn: turn, Index: index, Call: call, Content: content, Err: err})
	}
}

// repeated is the error for a failure the model made twice in a row.
func repeated(err error) error {
	var te *ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("%w: %w", ErrRepeatedFailure, err)
	}
	return &ToolError{Name: te.Name, CallID: te.CallID, Index: te.Index, Err: fmt.Errorf("%w: %w", ErrRepeatedFailure, te.Err)}
}
