package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

// script is a fake Model that returns its turns in order and records
// what it was sent.
type script struct {
	mu    sync.Mutex
	turns []llmstream.Message
	seen  [][]llmstream.Message
	tools [][]llmstream.Tool
}

func (s *script) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, append([]llmstream.Message(nil), r.Messages...))
	s.tools = append(s.tools, r.Tools)
	n := len(s.seen) - 1
	if n >= len(s.turns) {
		return llmstream.Message{}, fmt.Errorf("script: no turn %d", n+1)
	}
	return s.turns[n], nil
}

func call(id, name, args string) llmstream.ToolCall {
	return llmstream.ToolCall{ID: id, Type: "function", Function: llmstream.FunctionCall{Name: name, Arguments: args}}
}

func asst(text string, calls ...llmstream.ToolCall) llmstream.Message {
	return llmstream.Message{Role: "assistant", Content: text, ToolCalls: calls}
}

func toolMsg(id, content string) llmstream.Message {
	return llmstream.Message{Role: "tool", ToolCallID: id, Content: content}
}

// repeat returns n copies of m.
func repeat(n int, m llmstream.Message) []llmstream.Message {
	out := make([]llmstream.Message, n)
	for i := range out {
		out[i] = m
	}
	return out
}

// calls returns n calls to echo with ids <prefix>0..
func calls(prefix string, n int) []llmstream.ToolCall {
	out := make([]llmstream.ToolCall, n)
	for i := range out {
		out[i] = call(fmt.Sprintf("%s%d", prefix, i), "echo", `{}`)
	}
	return out
}

// answers returns the echo answers to calls.
func answers(cs []llmstream.ToolCall, content string) []llmstream.Message {
	out := make([]llmstream.Message, len(cs))
	for i, c := range cs {
		out[i] = toolMsg(c.ID, content)
	}
	return out
}

func concat(parts ...[]llmstream.Message) []llmstream.Message {
	var out []llmstream.Message
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// ran records the ids of the calls whose tool ran.
type ran struct {
	mu  sync.Mutex
	ids []string
}

func (r *ran) add(id string) {
	r.mu.Lock()
	r.ids = append(r.ids, id)
	r.mu.Unlock()
}

var errBoom = errors.New("boom")

// testTools are the tools every loop case gets. Each records its run by
// the "id" member of its arguments, or "-" when there is none.
func testTools(r *ran) []agentloop.Tool {
	rec := func(args json.RawMessage) {
		var v struct{ ID string }
		_ = json.Unmarshal(args, &v)
		if v.ID == "" {
			v.ID = "-"
		}
		r.add(v.ID)
	}
	return []agentloop.Tool{
		{Name: "echo", Description: "returns its arguments", Run: func(_ context.Context, args json.RawMessage) (string, error) {
			rec(args)
			return string(args), nil
		}},
		{Name: "fail", Run: func(_ context.Context, args json.RawMessage) (string, error) {
			rec(args)
			return "partial", errBoom
		}},
		{Name: "oops", Run: func(_ context.Context, args json.RawMessage) (string, error) {
			rec(args)
			return "", agentloop.Recoverable(errors.New("no such file"))
		}},
	}
}

var user = []llmstream.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "go"}}

func TestRun(t *testing.T) {
	tests := []struct {
		name string
		// limits holds the limit fields; Model and Tools are set by the test.
		limits    agentloop.Loop
		turns     []llmstream.Message
		wantErr   error
		wantRan   []string
		wantTail  []llmstream.Message
		wantTurns int
		wantCalls int
	}{
		{
			name:      "answer without tools",
			turns:     []llmstream.Message{asst("done")},
			wantTail:  []llmstream.Message{asst("done")},
			wantTurns: 1,
		},
		{
			name:      "one tool then the answer",
			turns:     []llmstream.Message{asst("looking", call("c1", "echo", `{"id":"c1"}`)), asst("done")},
			wantRan:   []string{"c1"},
			wantTail:  []llmstream.Message{asst("looking", call("c1", "echo", `{"id":"c1"}`)), toolMsg("c1", `{"id":"c1"}`), asst("done")},
			wantTurns: 2, wantCalls: 1,
		},
		{
			name:      "empty role becomes assistant",
			turns:     []llmstream.Message{{Content: "done"}},
			wantTail:  []llmstream.Message{asst("done")},
			wantTurns: 1,
		},
		{
			name:      "empty arguments mean {}",
			turns:     []llmstream.Message{asst("", call("c1", "echo", ``)), asst("done")},
			wantRan:   []string{"-"},
			wantTail:  []llmstream.Message{asst("", call("c1", "echo", ``)), toolMsg("c1", `{}`), asst("done")},
			wantTurns: 2, wantCalls: 1,
		},
		{
			name:      "max turns: the last allowed turn's calls run, then ErrMaxTurns",
			limits:    agentloop.Loop{MaxTurns: 2},
			turns:     repeat(3, asst("", call("c", "echo", `{"id":"c"}`))),
			wantErr:   agentloop.ErrMaxTurns,
			wantRan:   []string{"c", "c"},
			wantTail:  concat(repeat(1, asst("", call("c", "echo", `{"id":"c"}`))), repeat(1, toolMsg("c", `{"id":"c"}`)), repeat(1, asst("", call("c", "echo", `{"id":"c"}`))), repeat(1, toolMsg("c", `{"id":"c"}`))),
			wantTurns: 2, wantCalls: 2,
		},
		{
			name:      "max turns: answering in the last allowed turn succeeds",
			limits:    agentloop.Loop{MaxTurns: 2},
			turns:     []llmstream.Message{asst("", call("c", "echo", `{}`)), asst("done")},
			wantRan:   []string{"-"},
			wantTail:  []llmstream.Message{asst("", call("c", "echo", `{}`)), toolMsg("c", `{}`), asst("done")},
			wantTurns: 2, wantCalls: 1,
		},
		{
			name:      "max turns: one turn to spare",
			limits:    agentloop.Loop{MaxTurns: 3},
			turns:     []llmstream.Message{asst("", call("c", "echo", `{}`)), asst("done")},
			wantRan:   []string{"-"},
			wantTail:  []llmstream.Message{asst("", call("c", "echo", `{}`)), toolMsg("c", `{}`), asst("done")},
			wantTurns: 2, wantCalls: 1,
		},
		{
			name:      "max turns: default 20",
			turns:     repeat(21, asst("", call("c", "echo", `{}`))),
			wantErr:   agentloop.ErrMaxTurns,
			wantRan:   strings.Split(strings.Repeat("-", 20), ""),
			wantTail:  interleave(20, asst("", call("c", "echo", `{}`)), toolMsg("c", `{}`)),
			wantTurns: 20, wantCalls: 20,
		},
		{
			name:      "max turns: negative means no limit",
			limits:    agentloop.Loop{MaxTurns: -1},
			turns:     append(repeat(21, asst("", call("c", "echo", `{}`))), asst("done")),
			wantRan:   strings.Split(strings.Repeat("-", 21), ""),
			wantTail:  append(interleave(21, asst("", call("c", "echo", `{}`)), toolMsg("c", `{}`)), asst("done")),
			wantTurns: 22, wantCalls: 21,
		},
		{
			name:      "per-turn cap: one above, nothing of the turn runs",
			limits:    agentloop.Loop{MaxToolCallsPerTurn: 2},
			turns:     []llmstream.Message{asst("", calls("c", 3)...), asst("done")},
			wantErr:   agentloop.ErrTurnToolLimit,
			wantTail:  concat([]llmstream.Message{asst("", calls("c", 3)...)}, answers(calls("c", 3), "not run: agentloop: turn 1 asked for 3 tool calls, more than the limit of 2 per turn")),
			wantTurns: 1,
		},
		{
			name:      "per-turn cap: at the limit",
			limits:    agentloop.Loop{MaxToolCallsPerTurn: 2},
			turns:     []llmstream.Message{asst("", calls("c", 2)...), asst("done")},
			wantRan:   []string{"-", "-"},
			wantTail:  concat([]llmstream.Message{asst("", calls("c", 2)...)}, answers(calls("c", 2), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 2, wantCalls: 2,
		},
		{
			name:      "per-turn cap: one below",
			limits:    agentloop.Loop{MaxToolCallsPerTurn: 2},
			turns:     []llmstream.Message{asst("", calls("c", 1)...), asst("done")},
			wantRan:   []string{"-"},
			wantTail:  concat([]llmstream.Message{asst("", calls("c", 1)...)}, answers(calls("c", 1), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 2, wantCalls: 1,
		},
		{
			name:      "per-turn cap: default 8 refuses 9",
			turns:     []llmstream.Message{asst("", calls("c", 9)...)},
			wantErr:   agentloop.ErrTurnToolLimit,
			wantTail:  concat([]llmstream.Message{asst("", calls("c", 9)...)}, answers(calls("c", 9), "not run: agentloop: turn 1 asked for 9 tool calls, more than the limit of 8 per turn")),
			wantTurns: 1,
		},
		{
			name:      "per-turn cap: default 8 allows 8",
			turns:     []llmstream.Message{asst("", calls("c", 8)...), asst("done")},
			wantRan:   strings.Split(strings.Repeat("-", 8), ""),
			wantTail:  concat([]llmstream.Message{asst("", calls("c", 8)...)}, answers(calls("c", 8), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 2, wantCalls: 8,
		},
		{
			name:      "per-turn cap: negative means no limit",
			limits:    agentloop.Loop{MaxToolCallsPerTurn: -1},
			turns:     []llmstream.Message{asst("", calls("c", 9)...), asst("done")},
			wantRan:   strings.Split(strings.Repeat("-", 9), ""),
			wantTail:  concat([]llmstream.Message{asst("", calls("c", 9)...)}, answers(calls("c", 9), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 2, wantCalls: 9,
		},
		{
			name:      "total cap: one above, the second turn does not run",
			limits:    agentloop.Loop{MaxTotalToolCalls: 3},
			turns:     []llmstream.Message{asst("", calls("a", 2)...), asst("", calls("b", 2)...), asst("done")},
			wantErr:   agentloop.ErrTotalToolLimit,
			wantRan:   []string{"-", "-"},
			wantTail:  concat([]llmstream.Message{asst("", calls("a", 2)...)}, answers(calls("a", 2), "{}"), []llmstream.Message{asst("", calls("b", 2)...)}, answers(calls("b", 2), "not run: agentloop: turn 2 would make 4 tool calls in the run, more than the limit of 3")),
			wantTurns: 2, wantCalls: 2,
		},
		{
			name:      "total cap: at the limit",
			limits:    agentloop.Loop{MaxTotalToolCalls: 3},
			turns:     []llmstream.Message{asst("", calls("a", 2)...), asst("", calls("b", 1)...), asst("done")},
			wantRan:   []string{"-", "-", "-"},
			wantTail:  concat([]llmstream.Message{asst("", calls("a", 2)...)}, answers(calls("a", 2), "{}"), []llmstream.Message{asst("", calls("b", 1)...)}, answers(calls("b", 1), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 3, wantCalls: 3,
		},
		{
			name:      "total cap: one below",
			limits:    agentloop.Loop{MaxTotalToolCalls: 3},
			turns:     []llmstream.Message{asst("", calls("a", 1)...), asst("", calls("b", 1)...), asst("done")},
			wantRan:   []string{"-", "-"},
			wantTail:  concat([]llmstream.Message{asst("", calls("a", 1)...)}, answers(calls("a", 1), "{}"), []llmstream.Message{asst("", calls("b", 1)...)}, answers(calls("b", 1), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 3, wantCalls: 2,
		},
		{
			name:      "total cap: default 50 stops the seventh turn of 8",
			turns:     repeat(7, asst("", calls("c", 8)...)),
			wantErr:   agentloop.ErrTotalToolLimit,
			wantRan:   strings.Split(strings.Repeat("-", 48), ""),
			wantTail:  concat(sixTurnsOfEight(), []llmstream.Message{asst("", calls("c", 8)...)}, answers(calls("c", 8), "not run: agentloop: turn 7 would make 56 tool calls in the run, more than the limit of 50")),
			wantTurns: 7, wantCalls: 48,
		},
		{
			name:      "total cap: negative means no limit",
			limits:    agentloop.Loop{MaxTotalToolCalls: -1},
			turns:     append(repeat(7, asst("", calls("c", 8)...)), asst("done")),
			wantRan:   strings.Split(strings.Repeat("-", 56), ""),
			wantTail:  concat(sixTurnsOfEight(), []llmstream.Message{asst("", calls("c", 8)...)}, answers(calls("c", 8), "{}"), []llmstream.Message{asst("done")}),
			wantTurns: 8, wantCalls: 56,
		},
		{
			name:      "fail fast: a failed tool stops the run, later calls skipped",
			turns:     []llmstream.Message{asst("", call("c1", "fail", `{"id":"c1"}`), call("c2", "echo", `{"id":"c2"}`)), asst("done")},
			wantErr:   errBoom,
			wantRan:   []string{"c1"},
			wantTail:  []llmstream.Message{asst("", call("c1", "fail", `{"id":"c1"}`), call("c2", "echo", `{"id":"c2"}`)), failMsg("c1", `error: agentloop: tool "fail" (call c1): boom`), toolMsg("c2", "skipped: not run because call c1 failed")},
			wantTurns: 1, wantCalls: 2,
		},
		{
			name:      "unknown tool is a failure",
			turns:     []llmstream.Message{asst("", call("c1", "nope", `{}`), call("c2", "echo", `{"id":"c2"}`)), asst("done")},
			wantErr:   agentloop.ErrUnknownTool,
			wantTail:  []llmstream.Message{asst("", call("c1", "nope", `{}`), call("c2", "echo", `{"id":"c2"}`)), failMsg("c1", `error: there is no tool named "nope"; the tools are: echo, fail, oops`), toolMsg("c2", "skipped: not run because call c1 is invalid")},
			wantTurns: 1, wantCalls: 2,
		},
		{
			name:      "arguments that are not an object are a failure",
			turns:     []llmstream.Message{asst("", call("c1", "echo", `[1]`)), asst("done")},
			wantErr:   agentloop.ErrInvalidArguments,
			wantTail:  []llmstream.Message{asst("", call("c1", "echo", `[1]`)), failMsg("c1", `error: the arguments are a JSON array, not an object; send the call again with its arguments as one JSON object`)},
			wantTurns: 1, wantCalls: 1,
		},
		{
			name:      "invalid JSON arguments are a failure",
			turns:     []llmstream.Message{asst("", call("c1", "echo", `{"id":`)), asst("done")},
			wantErr:   agentloop.ErrInvalidArguments,
			wantTail:  []llmstream.Message{asst("", call("c1", "echo", `{"id":`)), failMsg("c1", `error: the arguments are not valid JSON: unexpected end of JSON input at byte 6; send the call again with its arguments as one JSON object`)},
			wantTurns: 1, wantCalls: 1,
		},
		{
			name: "recoverable: the model sees the error, the turn's other calls run, the run goes on",
			turns: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"c1"}`), call("c2", "echo", `{"id":"c2"}`)),
				asst("", call("c3", "echo", `{"id":"c3"}`)),
				asst("done"),
			},
			wantRan: []string{"c1", "c2", "c3"},
			wantTail: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"c1"}`), call("c2", "echo", `{"id":"c2"}`)),
				failMsg("c1", "error: no such file"), toolMsg("c2", `{"id":"c2"}`),
				asst("", call("c3", "echo", `{"id":"c3"}`)), toolMsg("c3", `{"id":"c3"}`),
				asst("done"),
			},
			wantTurns: 3, wantCalls: 3,
		},
		{
			name: "recoverable: the same failure twice in a row stops the run",
			turns: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"x"}`)),
				asst("", call("c2", "oops", `{"id":"x"}`)),
				asst("done"),
			},
			wantErr: agentloop.ErrRepeatedFailure,
			wantRan: []string{"x", "x"},
			wantTail: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"x"}`)), failMsg("c1", "error: no such file"),
				asst("", call("c2", "oops", `{"id":"x"}`)), failMsg("c2", "error: no such file"),
			},
			wantTurns: 2, wantCalls: 2,
		},
		{
			name: "recoverable: the same failure with other arguments goes on",
			turns: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"x"}`)),
				asst("", call("c2", "oops", `{"id":"y"}`)),
				asst("done"),
			},
			wantRan: []string{"x", "y"},
			wantTail: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"x"}`)), failMsg("c1", "error: no such file"),
				asst("", call("c2", "oops", `{"id":"y"}`)), failMsg("c2", "error: no such file"),
				asst("done"),
			},
			wantTurns: 3, wantCalls: 2,
		},
		{
			name: "recoverable: a success in between resets the count",
			turns: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"x"}`)),
				asst("", call("c2", "echo", `{}`), call("c3", "oops", `{"id":"x"}`)),
				asst("done"),
			},
			wantRan: []string{"x", "-", "x"},
			wantTail: []llmstream.Message{
				asst("", call("c1", "oops", `{"id":"x"}`)), failMsg("c1", "error: no such file"),
				asst("", call("c2", "echo", `{}`), call("c3", "oops", `{"id":"x"}`)), toolMsg("c2", "{}"), failMsg("c3", "error: no such file"),
				asst("done"),
			},
			wantTurns: 3, wantCalls: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r ran
			s := &script{turns: tc.turns}
			loop := tc.limits
			loop.Model = s
			loop.Tools = testTools(&r)
			res, err := loop.Run(context.Background(), user)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Run error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(concat(user, tc.wantTail), res.Messages); diff != "" {
				t.Errorf("conversation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRan, r.ids); diff != "" {
				t.Errorf("tools run (-want +got):\n%s", diff)
			}
			if res.Turns != tc.wantTurns || res.ToolCalls != tc.wantCalls {
				t.Errorf("Turns, ToolCalls = %d, %d; want %d, %d", res.Turns, res.ToolCalls, tc.wantTurns, tc.wantCalls)
			}
			if len(s.seen) != tc.wantTurns {
				t.Errorf("model called %d times, want %d", len(s.seen), tc.wantTurns)
			}
			checkAllAnswered(t, res.Messages)
		})
	}
}

// interleave returns n pairs of (a, b).
func interleave(n int, a, b llmstream.Message) []llmstream.Message {
	var out []llmstream.Message
	for range n {
		out = append(out, a, b)
	}
	return out
}

// sixTurnsOfEight is six turns of 8 echo calls, each answered.
func sixTurnsOfEight() []llmstream.Message {
	var out []llmstream.Message
	for range 6 {
		out = concat(out, []llmstream.Message{asst("", calls("c", 8)...)}, answers(calls("c", 8), "{}"))
	}
	return out
}

// checkAllAnswered: every tool call of every assistant message is answered
// by exactly one tool message before the next assistant message.
func checkAllAnswered(t *testing.T, msgs []llmstream.Message) {
	t.Helper()
	if err := answeredInOrder(msgs, false); err != nil {
		t.Fatal(err)
	}
}

// answeredInOrder checks that every call of every assistant message is
// answered exactly once, by the tool messages right after it, in call
// order, and that no tool message answers anything else. With pendingLast,
// the last message's calls may be unanswered (a paused turn).
func answeredInOrder(msgs []llmstream.Message, pendingLast bool) error {
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return fmt.Errorf("message %d answers call %s, which no call right before it made", i, m.ToolCallID)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		if pendingLast && i == len(msgs)-1 {
			return nil
		}
		for _, c := range m.ToolCalls {
			i++
			if i >= len(msgs) || msgs[i].Role != "tool" || msgs[i].ToolCallID != c.ID {
				return fmt.Errorf("call %s is not answered in order", c.ID)
			}
		}
	}
	return nil
}

func TestRunErrorFacts(t *testing.T) {
	t.Run("limit error numbers", func(t *testing.T) {
		l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", calls("c", 3)...)}}, Tools: testTools(&ran{}), MaxToolCallsPerTurn: 2}
		_, err := l.Run(context.Background(), user)
		var le *agentloop.LimitError
		if !errors.As(err, &le) {
			t.Fatalf("error %v is not a *LimitError", err)
		}
		want := agentloop.LimitError{Err: agentloop.ErrTurnToolLimit, Turn: 1, Value: 3, Limit: 2}
		if *le != want {
			t.Errorf("LimitError = %+v, want %+v", *le, want)
		}
	})
	t.Run("tool error facts and cause", func(t *testing.T) {
		l := agentloop.Loop{Model: &script{turns: []llmstream.Message{asst("", call("c9", "fail", `{}`))}}, Tools: testTools(&ran{})}
		_, err := l.Run(context.Background(), user)
		var te *agentloop.ToolError
		if !errors.As(err, &te) || te.Name != "fail" || te.CallID != "c9" || te.Err != errBoom {
			t.Fatalf("error %#v, want *ToolError{fail, c9, boom}", err)
		}
		if got, want := err.Error(), `agentloop: tool "fail" (call c9): boom`; got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	})
	t.Run("repeated failure keeps the recoverable error", func(t *testing.T) {
		l := agentloop.Loop{Model: &script{turns: repeat(2, asst("", call("c", "oops", `{}`)))}, Tools: testTools(&ran{})}
		_, err := l.Run(context.Background(), user)
		var rec *agentloop.RecoverableError
		if !errors.Is(err, agentloop.ErrRepeatedFailure) || !errors.As(err, &rec) || rec.Error() != "no such file" {
			t.Fatalf("error %v: want ErrRepeatedFailure and a *RecoverableError", err)
		}
	})
	t.Run("model error wrapped with its turn", func(t *testing.T) {
		errModel := errors.New("model down")
		l := agentloop.Loop{Model: agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
			return llmstream.Message{Role: "assistant", Content: "half"}, errModel
		})}
		res, err := l.Run(context.Background(), user)
		if !errors.Is(err, errModel) || err.Error() != "agentloop: turn 1: model: model down" {
			t.Fatalf("error %v", err)
		}
		if diff := cmp.Diff(user, res.Messages); diff != "" || res.Turns != 1 {
			t.Errorf("a failed model call's message must not be kept; turns %d; (-want +got):\n%s", res.Turns, diff)
		}
	})
}

func TestLimitErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  agentloop.LimitError
		want string
	}{
		{"max turns", agentloop.LimitError{Err: agentloop.ErrMaxTurns, Turn: 21, Value: 20, Limit: 20}, "agentloop: the model still called tools after 20 turns, the limit"},
		{"per turn", agentloop.LimitError{Err: agentloop.ErrTurnToolLimit, Turn: 2, Value: 9, Limit: 8}, "agentloop: turn 2 asked for 9 tool calls, more than the limit of 8 per turn"},
		{"total", agentloop.LimitError{Err: agentloop.ErrTotalToolLimit, Turn: 7, Value: 56, Limit: 50}, "agentloop: turn 7 would make 56 tool calls in the run, more than the limit of 50"},
		{"context", agentloop.LimitError{Err: agentloop.ErrContextBudget, Turn: 1, Value: 500, Limit: 400}, "agentloop: before turn 1 the conversation is 500 bytes with every droppable tool output dropped, more than the budget of 400"},
		{"other sentinel", agentloop.LimitError{Err: errBoom, Turn: 1, Value: 2, Limit: 3}, "boom (turn 1: 2, limit 3)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if !errors.Is(&tc.err, tc.err.Err) {
				t.Errorf("errors.Is does not reach %v", tc.err.Err)
			}
		})
	}
}

func TestRecoverableNil(t *testing.T) {
	if err := agentloop.Recoverable(nil); err != nil {
		t.Errorf("Recoverable(nil) = %v, want nil", err)
	}
}

func TestRunInvalid(t *testing.T) {
	m := &script{turns: []llmstream.Message{asst("done")}}
	run := func(context.Context, json.RawMessage) (string, error) { return "", nil }
	tests := []struct {
		name string
		loop agentloop.Loop
		msgs []llmstream.Message
		want string
	}{
		{"no model", agentloop.Loop{}, user, "agentloop: invalid loop: no Model"},
		{"no messages", agentloop.Loop{Model: m}, nil, "agentloop: invalid loop: Run needs at least one message"},
		{"tool without name", agentloop.Loop{Model: m, Tools: []agentloop.Tool{{Run: run}}}, user, "agentloop: invalid loop: a tool has no name"},
		{"tool without Run", agentloop.Loop{Model: m, Tools: []agentloop.Tool{{Name: "t"}}}, user, `agentloop: invalid loop: tool "t" has no Run function`},
		{"duplicate names", agentloop.Loop{Model: m, Tools: []agentloop.Tool{{Name: "t", Run: run}, {Name: "t", Run: run}}}, user, `agentloop: invalid loop: two tools are named "t"`},
		{"parameters not an object", agentloop.Loop{Model: m, Tools: []agentloop.Tool{{Name: "t", Run: run, Parameters: json.RawMessage(`[]`)}}}, user, `agentloop: invalid loop: tool "t": Parameters is not a JSON object`},
		{"parameters not JSON", agentloop.Loop{Model: m, Tools: []agentloop.Tool{{Name: "t", Run: run, Parameters: json.RawMessage(`{`)}}}, user, `agentloop: invalid loop: tool "t": Parameters is not a JSON object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.loop.Run(context.Background(), tc.msgs)
			if !errors.Is(err, agentloop.ErrInvalidLoop) || err.Error() != tc.want {
				t.Errorf("Run error = %v, want %q", err, tc.want)
			}
			if res.Turns != 0 || len(m.seen) != 0 {
				t.Errorf("the model was called")
			}
		})
	}
}

func TestRunSendsToolSchemas(t *testing.T) {
	s := &script{turns: []llmstream.Message{asst("done")}}
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	l := agentloop.Loop{Model: s, Tools: []agentloop.Tool{
		{Name: "read", Description: "reads a file", Parameters: params, Run: func(context.Context, json.RawMessage) (string, error) { return "", nil }},
		{Name: "list", Run: func(context.Context, json.RawMessage) (string, error) { return "", nil }},
	}}
	if _, err := l.Run(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	want := []llmstream.Tool{
		{Type: "function", Function: llmstream.ToolFunction{Name: "read", Description: "reads a file", Parameters: params}},
		{Type: "function", Function: llmstream.ToolFunction{Name: "list"}},
	}
	if diff := cmp.Diff(want, s.tools[0]); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
}

// TestRunUsageSummed: every count of every turn's usage is summed, cache
// writes included, and a run resumed from its State (through JSON) goes on
// from the saved sum.
func TestRunUsageSummed(t *testing.T) {
	turns := []llmstream.Message{
		{Role: "assistant", ToolCalls: calls("c", 1), Usage: &llmstream.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, CachedTokens: 2, CacheWriteTokens: 6, ReasoningTokens: 1}},
		{Role: "assistant", ToolCalls: calls("d", 1)}, // a turn without usage adds nothing
		{Role: "assistant", Content: "done", Usage: &llmstream.Usage{PromptTokens: 20, CompletionTokens: 7, TotalTokens: 27, CachedTokens: 8, CacheWriteTokens: 9, ReasoningTokens: 3}},
	}
	want := llmstream.Usage{PromptTokens: 30, CompletionTokens: 12, TotalTokens: 42, CachedTokens: 10, CacheWriteTokens: 15, ReasoningTokens: 4}
	l := agentloop.Loop{Model: &script{turns: turns}, Tools: testTools(&ran{})}
	res, err := l.Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage != want {
		t.Errorf("Usage = %+v, want %+v", res.Usage, want)
	}

	l.Model, l.MaxTurns = &script{turns: turns}, 1
	res, err = l.Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrMaxTurns) {
		t.Fatalf("err %v, want ErrMaxTurns", err)
	}
	if res.State.Usage != *turns[0].Usage {
		t.Errorf("State.Usage = %+v, want %+v", res.State.Usage, *turns[0].Usage)
	}
	l.Model, l.MaxTurns = &script{turns: turns[1:]}, 0
	res, err = l.Resume(context.Background(), throughJSON(t, res.State), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage != want {
		t.Errorf("resumed: Usage = %+v, want %+v", res.Usage, want)
	}
}

// TestRunPauseTurn: a message that paused a server-side turn (Anthropic's
// pause_turn) is sent back for the model to go on from; the run ends at
// the first message that neither paused nor called a tool, and MaxTurns
// bounds a model that pauses for ever.
func TestRunPauseTurn(t *testing.T) {
	paused := llmstream.Message{Role: "assistant", Content: "searching", StopReason: llmstream.StopPause, FinishReason: "pause_turn"}
	s := &script{turns: []llmstream.Message{paused, paused, asst("found it")}}
	res, err := (&agentloop.Loop{Model: s, Tools: testTools(&ran{})}).Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 3 || len(res.Messages) != len(user)+3 || res.Messages[len(res.Messages)-1].Content != "found it" {
		t.Fatalf("turns %d, messages %+v", res.Turns, res.Messages)
	}
	if last := s.seen[2][len(s.seen[2])-1]; last.StopReason != llmstream.StopPause || last.Content != "searching" {
		t.Errorf("the third call's conversation ends in %+v, want the paused message", last)
	}

	forever := &script{turns: []llmstream.Message{paused, paused, paused}}
	_, err = (&agentloop.Loop{Model: forever, MaxTurns: 2}).Run(context.Background(), user)
	if !errors.Is(err, agentloop.ErrMaxTurns) {
		t.Errorf("a model that keeps pausing: %v, want ErrMaxTurns", err)
	}
}

func TestRunDoesNotModifyInput(t *testing.T) {
	in := []llmstream.Message{
		{Role: "user", Content: "go"},
		asst("", call("old", "echo", `{}`)),
		toolMsg("old", strings.Repeat("o", 500)),
	}
	keep := append([]llmstream.Message(nil), in...)
	s := &script{turns: []llmstream.Message{asst("done")}}
	l := agentloop.Loop{Model: s, Tools: testTools(&ran{}), MaxContextBytes: 200}
	res, err := l.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(keep, in); diff != "" {
		t.Errorf("input changed (-want +got):\n%s", diff)
	}
	if res.DroppedToolOutputs != 1 || res.Messages[2].Content != "[airlock: tool output of 500 bytes dropped to fit the context budget]" {
		t.Errorf("dropped %d, content %q", res.DroppedToolOutputs, res.Messages[2].Content)
	}
}
