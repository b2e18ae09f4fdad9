package agentloop

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/airlock-go/airlock/llmstream"
)

// Core is the Loop's rules as steps over a [State], for a driver that
// calls the model, asks for decisions and runs the tools its own way:
// [Loop.Run] and [Loop.Resume] are one driver of it; contrib/temporal,
// which makes each model turn and each tool call a durable activity, is
// another. One turn, driven:
//
//	req, err := core.Next(&st)           // the turn cap, the context budget
//	msg, err := model.Stream(ctx, req)
//	t, err := core.Plan(&st, msg, err)   // the message joins st; call caps, invalid calls
//	// for each call with t.Ask[i] and no decision: t.Decisions[i] = a decision
//	err = core.Wait(&st, t)              // ErrPaused while a call waits
//	// for each call with t.Runs(i): t.Answers[i] = core.Dispatch(ctx, t.Calls[i])
//	err = core.Finish(&st, t)            // answers in call order, failure rules
//
// Every step but Dispatch is deterministic: it reads the Loop, the State
// and its arguments, changes only the State it is given (and the Turn), and
// never calls the model, a tool, a hook or the clock — so a durable driver
// may run it in replayed code. A step returns the error that stops the
// run, nil when it goes on.
//
// A Core is read only once made: safe for concurrent use by many drivers,
// each with its own State.
type Core struct {
	l       Loop // defaults resolved, tools copied
	schemas []llmstream.Tool
	byName  map[string]*Tool
}

// Core checks the Loop and returns its rules as steps: the defaults
// resolved and the tools copied, so later changes to l or its Tools slice
// do not reach it. A Loop no run can use (a tool without a name or Run
// function, duplicate tool names, parameters that are not a JSON object, a
// Request template that sets Messages, Tools or OnDelta) is an error
// wrapping [ErrInvalidLoop]. Model may be nil: a driver may call the
// model its own way (Run and Resume require one).
func (l *Loop) Core() (*Core, error) {
	c := &Core{l: *l}
	s := &c.l
	s.MaxTurns = cmp.Or(s.MaxTurns, DefaultMaxTurns)
	s.MaxToolCallsPerTurn = cmp.Or(s.MaxToolCallsPerTurn, DefaultMaxToolCallsPerTurn)
	s.MaxTotalToolCalls = cmp.Or(s.MaxTotalToolCalls, DefaultMaxTotalToolCalls)
	s.MaxToolOutputBytes = cmp.Or(s.MaxToolOutputBytes, DefaultMaxToolOutputBytes)
	s.MaxContextBytes = cmp.Or(s.MaxContextBytes, DefaultMaxContextBytes)
	s.ToolTimeout = cmp.Or(s.ToolTimeout, DefaultToolTimeout)
	s.ParallelTools = max(s.ParallelTools, 1)
	if r := &s.Request; r.Messages != nil || r.Tools != nil || r.OnDelta != nil {
		return nil, fmt.Errorf("%w: the Request template sets Messages, Tools or OnDelta, which the loop fills in", ErrInvalidLoop)
	}
	if o := s.Output; o != nil {
		if o.err != nil {
			return nil, fmt.Errorf("%w: output: %w", ErrInvalidLoop, o.err)
		}
		schema := o.Schema
		s.Request.Output = &schema
	}
	s.Tools = slices.Clone(l.Tools)
	c.byName = make(map[string]*Tool, len(s.Tools))
	for i := range s.Tools {
		t := &s.Tools[i]
		if err := t.check(); err != nil {
			return nil, err
		}
		if c.byName[t.Name] != nil {
			return nil, fmt.Errorf("%w: two tools are named %q", ErrInvalidLoop, t.Name)
		}
		c.byName[t.Name] = t
		c.schemas = append(c.schemas, t.Schema())
	}
	return c, nil
}

// Loop returns the Loop the Core was made from, with every zero limit
// replaced by its default and ParallelTools at least 1. Its Tools slice is
// the Core's own: read it, do not change it.
func (c *Core) Loop() Loop { return c.l }

// Next readies st for the next model call and returns that call's
// request: the Loop's Request template with the conversation and the
// tools. It stops the run with a [*LimitError] wrapping [ErrMaxTurns] when
// MaxTurns turns were made since st.TurnsBefore, or [ErrContextBudget]
// when the conversation does not fit MaxContextBytes even with every
// droppable tool output replaced by a marker (the outputs it drops stay
// dropped, counted in st.DroppedToolOutputs). Otherwise it counts the turn
// in st.Turns: a model call that then fails was made all the same. The
// request's Messages is st.Messages: the model must not change it.
func (c *Core) Next(st *State) (llmstream.Request, error) {
	turn := st.Turns + 1
	if made := st.Turns - st.TurnsBefore; c.l.MaxTurns >= 0 && made >= c.l.MaxTurns {
		return llmstream.Request{}, &LimitError{Err: ErrMaxTurns, Turn: turn, Value: made, Limit: c.l.MaxTurns}
	}
	dropped := make(map[int]bool, len(st.Dropped))
	for _, i := range st.Dropped {
		dropped[i] = true
	}
	msgs, size, n := fitBudget(st.Messages, c.l.MaxContextBytes, dropped)
	if n > 0 { // new slices: a copy of st may share the old ones (see fitBudget)
		st.Messages = msgs
		st.DroppedToolOutputs += n
		st.Dropped = slices.Sorted(maps.Keys(dropped))
	}
	if c.l.MaxContextBytes >= 0 && size > c.l.MaxContextBytes {
		return llmstream.Request{}, &LimitError{Err: ErrContextBudget, Turn: turn, Value: size, Limit: c.l.MaxContextBytes}
	}
	st.Turns = turn
	req := c.l.Request
	req.Messages, req.Tools = st.Messages, c.schemas
	return req, nil
}
