package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/google/go-cmp/cmp"
)

// streamed returns the model's answer decoded from a chat stream whose
// tool calls carry these arguments, as llmstream gives it: a message, or
// for arguments that are not JSON a *llmstream.ToolCallsError.
func streamed(t *testing.T, calls ...llmstream.ToolCall) (llmstream.Message, error) {
	t.Helper()
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":%q,\"function\":{\"name\":%q,\"arguments\":%q}}]}}]}\n\n", i, c.ID, c.Function.Name, c.Function.Arguments)
	}
	b.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	return llmstream.ReadMessage(strings.NewReader(b.String()))
}

// failMsg is the answer to a call that failed.
func failMsg(id, content string) llmstream.Message {
	m := toolMsg(id, content)
	m.IsError = true
	return m
}

// streamScript is a Model whose turns are streamed replies.
type streamScript struct {
	t     *testing.T
	turns [][]llmstream.ToolCall // nil: answer "done"
	n     int
}

func (s *streamScript) Stream(context.Context, llmstream.Request) (llmstream.Message, error) {
	s.n++
	if s.n > len(s.turns) || s.turns[s.n-1] == nil {
		return llmstream.Message{Role: "assistant", Content: "done"}, nil
	}
	return streamed(s.t, s.turns[s.n-1]...)
}

func TestInvalidCallsStopByDefault(t *testing.T) {
	tests := []struct {
		name      string
		calls     []llmstream.ToolCall
		wantIndex int
		wantID    string
		wantErr   error
		wantFirst string // the tool message of the invalid call
	}{
		{"unknown tool after a valid call", []llmstream.ToolCall{call("c0", "echo", `{"id":"c0"}`), call("c1", "nope", `{}`)}, 1, "c1", agentloop.ErrUnknownTool,
			`error: there is no tool named "nope"; the tools are: echo, fail, oops`},
		{"arguments not an object", []llmstream.ToolCall{call("c0", "echo", `[1]`)}, 0, "c0", agentloop.ErrInvalidArguments,
			"error: the arguments are a JSON array, not an object; send the call again with its arguments as one JSON object"},
		{"arguments not JSON, from the stream", []llmstream.ToolCall{call("c0", "echo", `{"id":"c0"}`), call("c1", "echo", `{"id":`)}, 1, "c1", toolcall.ErrInvalidArguments,
			"error: the arguments are not valid JSON: unexpected end of JSON input at byte 6; send the call again with its arguments as one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r ran
			l := agentloop.Loop{Model: &streamScript{t: t, turns: [][]llmstream.ToolCall{tt.calls}}, Tools: testTools(&r)}
			res, err := l.Run(context.Background(), user)
			var te *agentloop.ToolError
			if !errors.As(err, &te) || te.Index != tt.wantIndex || te.CallID != tt.wantID || te.Name != tt.calls[tt.wantIndex].Function.Name || !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v (%+v), want a ToolError for call %d (%s) matching %v", err, te, tt.wantIndex, tt.wantID, tt.wantErr)
			}
			if len(r.ids) != 0 {
				t.Errorf("ran %v; no call of a turn with an invalid call may run", r.ids)
			}
			checkAllAnswered(t, res.Messages)
			tail := res.Messages[len(user)+1:]
			if got := tail[tt.wantIndex].Content; got != tt.wantFirst {
				t.Errorf("answer = %q, want %q", got, tt.wantFirst)
			}
			for i, m := range tail {
				if i != tt.wantIndex && m.Content != "skipped: not run because call "+tt.wantID+" is invalid" {
					t.Errorf("answer %d = %q, want skipped", i, m.Content)
				}
			}
		})
	}
}

func TestAnswerInvalidCalls(t *testing.T) {
	var r ran
	m := &streamScript{t: t, turns: [][]llmstream.ToolCall{
		{call("a", "echo", `{"id":"a"}`), call("b", "nope", `{}`), call("c", "echo", `{"id":`)},
		{call("d", "echo", `{"id":"d"}`)},
	}}
	var done []agentloop.ToolDone
	l := agentloop.Loop{Model: m, Tools: testTools(&r), AnswerInvalidCalls: true,
		Hooks: agentloop.Hooks{AfterTool: func(d agentloop.ToolDone) { done = append(done, d) }}}
	res, err := l.Run(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"d"}, r.ids); diff != "" {
		t.Errorf("ran (-want +got):\n%s", diff)
	}
	want := []llmstream.Message{
		asst("", call("a", "echo", `{"id":"a"}`), call("b", "nope", `{}`), call("c", "echo", `{"id":`)),
		toolMsg("a", "skipped: not run because call b is invalid"),
		failMsg("b", `error: there is no tool named "nope"; the tools are: echo, fail, oops`),
		failMsg("c", "error: the arguments are not valid JSON: unexpected end of JSON input at byte 6; send the call again with its arguments as one JSON object"),
		asst("", call("d", "echo", `{"id":"d"}`)), toolMsg("d", `{"id":"d"}`),
		asst("done"),
	}
	got := res.Messages[len(user):]
	for i := range got {
		got[i].Usage, got[i].FinishReason, got[i].StopReason = nil, "", 0
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if len(done) != 3 || done[0].Call.ID != "b" || !errors.Is(done[0].Err, agentloop.ErrUnknownTool) || done[1].Call.ID != "c" || !errors.Is(done[1].Err, toolcall.ErrInvalidArguments) {
		t.Errorf("AfterTool saw %+v; want b and c refused, then d", done)
	}
}

func TestAnswerInvalidCallsTwiceStops(t *testing.T) {
	var r ran
	bad := []llmstream.ToolCall{call("x", "echo", `{"id":`)}
	l := agentloop.Loop{Model: &streamScript{t: t, turns: [][]llmstream.ToolCall{bad, bad, nil}}, Tools: testTools(&r), AnswerInvalidCalls: true}
	res, err := l.Run(context.Background(), user)
	var te *agentloop.ToolError
	if !errors.Is(err, agentloop.ErrRepeatedFailure) || !errors.As(err, &te) || te.CallID != "x" || res.Turns != 2 {
		t.Fatalf("err = %v after %d turns, want ErrRepeatedFailure for call x after 2", err, res.Turns)
	}
	checkAllAnswered(t, res.Messages)
	// Another invalid call in between is not a repeat.
	other := []llmstream.ToolCall{call("y", "echo", `[]`)}
	l.Model = &streamScript{t: t, turns: [][]llmstream.ToolCall{bad, other, bad, nil}}
	if _, err := l.Run(context.Background(), user); err != nil {
		t.Errorf("alternating failures: %v", err)
	}
}

// requestModel records the requests it is sent and answers "done".
type requestModel struct{ reqs []llmstream.Request }

func (m *requestModel) Stream(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
	m.reqs = append(m.reqs, r)
	if r.OnDelta != nil {
		r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "done"})
	}
	return llmstream.Message{Role: "assistant", Content: "done"}, nil
}

// TestRequestTemplate: the template's settings and the delta hook both
// reach the Model.
func TestRequestTemplate(t *testing.T) {
	temp := 0.3
	m := &requestModel{}
	var deltas []string
	l := agentloop.Loop{Model: m, Tools: testTools(&ran{}), Request: llmstream.Request{Temperature: &temp, ToolChoice: llmstream.ToolChoice{Mode: llmstream.ToolChoiceAuto}},
		Hooks: agentloop.Hooks{OnDelta: func(d llmstream.Delta) { deltas = append(deltas, d.Text) }}}
	if _, err := l.Run(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	r := m.reqs[0]
	if r.Temperature == nil || *r.Temperature != 0.3 || r.ToolChoice.Mode != llmstream.ToolChoiceAuto || len(r.Messages) != len(user) || len(r.Tools) != 3 || len(deltas) != 1 {
		t.Errorf("request %+v, deltas %q", r, deltas)
	}
	for _, bad := range []agentloop.Loop{
		{Model: m, Request: llmstream.Request{Messages: user}},
		{Model: m, Request: llmstream.Request{OnDelta: func(llmstream.Delta) error { return nil }}},
		{Model: m, Request: llmstream.Request{Tools: []llmstream.Tool{{Type: "function"}}}},
	} {
		if _, err := bad.Run(context.Background(), user); !errors.Is(err, agentloop.ErrInvalidLoop) {
			t.Errorf("%T with template %+v: err = %v, want ErrInvalidLoop", bad.Model, bad.Request, err)
		}
	}
}

// TestAnswerInvalidCallsKeepsContinuity: the answered turn goes back to the
// provider with its continuity state — Anthropic's signed thinking before
// the tool_use blocks, the Responses API's reasoning item — without which the next request is refused (with
// thinking on, Anthropic answers 400 "a final assistant message must start
// with a thinking block"). (Gemini sends arguments as an object, never
// text that fails to parse.)
func TestAnswerInvalidCallsKeepsContinuity(t *testing.T) {
	const sig = "c2lnbmF0dXJlLW9mLXRoZS10aGlua2luZw=="
	for _, d := range []llmstream.Dialect{llmstream.DialectAnthropic, llmstream.DialectResponses} {
		t.Run(d.String(), func(t *testing.T) {
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
				llmstreamtest.Turn{Reasoning: "Read it.", Signature: sig, ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "echo", Arguments: `{"id":`}}},
				llmstreamtest.Turn{Text: "done"},
			))
			var r ran
			l := agentloop.Loop{Model: llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithModel("m"))...), Tools: testTools(&r), AnswerInvalidCalls: true}
			if _, err := l.Run(context.Background(), user); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), sig) {
				t.Errorf("the second request lacks the signed reasoning: %s", reqs[len(reqs)-1].Body)
			}
		})
	}
}

// TestAnswerInvalidCallsSendsObjects: the answered turn goes back with
// every call's arguments a JSON object. vLLM, SGLang and llama.cpp's
// server parse the arguments of the calls in a conversation and refuse
// the whole request (HTTP 400) when they are not JSON (vllm-project/vllm
// #43995) or not an object (sgl-project/sglang#28035), which would make
// every later turn fail the same way.
func TestAnswerInvalidCallsSendsObjects(t *testing.T) {
	for _, d := range []llmstream.Dialect{llmstream.DialectChat, llmstream.DialectAnthropic, llmstream.DialectResponses} {
		t.Run(d.String(), func(t *testing.T) {
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
				llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "c1", Name: "echo", Arguments: `{"id":`}, {ID: "c2", Name: "echo", Arguments: `[1]`}, {ID: "c3", Name: "echo", Arguments: `{"id":"c3"}`}}},
				llmstreamtest.Turn{Text: "done"},
			))
			var r ran
			l := agentloop.Loop{Model: llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(d), llmstream.WithModel("m"))...), Tools: testTools(&r), AnswerInvalidCalls: true}
			res, err := l.Run(context.Background(), user)
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			var sent []llmstream.ToolCall
			for _, m := range reqs[1].Messages {
				sent = append(sent, m.ToolCalls...)
			}
			if len(sent) != 3 {
				t.Fatalf("the second request has %d calls: %s", len(sent), reqs[1].Body)
			}
			for _, c := range sent {
				var obj map[string]any
				if err := json.Unmarshal([]byte(c.Function.Arguments), &obj); err != nil || obj == nil {
					t.Errorf("call %s went back with arguments %q", c.ID, c.Function.Arguments)
				}
			}
			if got := sent[2].Function.Arguments; got != `{"id":"c3"}` {
				t.Errorf("a valid call went back as %q", got)
			}
			// The conversation itself keeps what the model sent.
			if got := res.Messages[len(user)].ToolCalls[0].Function.Arguments; got != `{"id":` {
				t.Errorf("the conversation holds %q", got)
			}
		})
	}
}
