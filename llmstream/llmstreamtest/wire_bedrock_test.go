package llmstreamtest

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/eventstream"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

var bedrockTurn = Turn{
	Reasoning: "Two files to read.",
	Text:      "Reading both — ünïcødé.",
	ToolCalls: []Call{
		{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`},
		{ID: "tooluse_given", Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`},
	},
	Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, TotalTokens: 65, CachedTokens: 8},
}

func bedrockClient(srv *Server) *llmstream.Client {
	return llmstream.NewClient(append(srv.ClientOptions(), llmstream.WithDialect(llmstream.DialectBedrock),
		llmstream.WithModel("us.anthropic.claude-test-v1:0"))...)
}

// TestBedrockWire: a turn served on /model/{id}/converse-stream decodes to
// the message the script describes, and the next request, with that
// message and two tool answers, decodes back to the neutral form with the
// reasoning in place.
func TestBedrockWire(t *testing.T) {
	srv := NewTestServer(t, WithTurns(bedrockTurn, Turn{Text: "Done."}))
	c := bedrockClient(srv)
	msgs := []llmstream.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "read them"}}
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: msgs, Tools: []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "read_file"}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := llmstream.Message{
		Role: "assistant", Content: "Reading both — ünïcødé.", Reasoning: "Two files to read.",
		ToolCalls: []llmstream.ToolCall{
			{ID: "tooluse_1_0", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod","max_bytes":4096}`}},
			{ID: "tooluse_given", Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"README.md","note":"\"quoted\" 😀"}`}},
		},
		FinishReason: "tool_use", StopReason: llmstream.StopToolCalls, Model: "us.anthropic.claude-test-v1:0", // the request's: no stream event names it
		Usage: &llmstream.Usage{PromptTokens: 40, CompletionTokens: 25, TotalTokens: 65, CachedTokens: 8, PromptExcludesCache: true},
		Continuity: &llmstream.Continuity{Dialect: llmstream.DialectBedrock, Blocks: []llmstream.Block{
			{Type: "reasoningContent", Raw: json.RawMessage(`{"reasoningText":{"text":"Two files to read.","signature":"bGxtc3RyZWFtdGVzdCBzaWduYXR1cmUgMQ=="}}`)},
			{Type: llmstream.BlockText, Bytes: len("Reading both — ünïcødé.")},
			{Type: llmstream.BlockToolCall, Call: 0},
			{Type: llmstream.BlockToolCall, Call: 1},
		}},
	}
	if d := cmp.Diff(want, m); d != "" {
		t.Fatalf("message (-want +got):\n%s", d)
	}
	next := append(msgs, m,
		llmstream.Message{Role: "tool", ToolCallID: "tooluse_1_0", Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: "tooluse_given", Content: "no such file", IsError: true})
	if _, err := c.Stream(t.Context(), llmstream.Request{Messages: next, Tools: []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "read_file"}}}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[1]
	if r.Path != "/model/us.anthropic.claude-test-v1:0/converse-stream" || r.Model != "us.anthropic.claude-test-v1:0" || r.Dialect != llmstream.DialectBedrock ||
		r.Header.Get("Authorization") != "Bearer llmstreamtest-key" || len(r.Tools) != 1 {
		t.Errorf("request %+v", r)
	}
	sent := want
	sent.Reasoning, sent.FinishReason, sent.StopReason, sent.Usage, sent.Model = "", "", 0, nil, ""
	wantMsgs := append(msgs[:2:2], sent,
		llmstream.Message{Role: "tool", ToolCallID: "tooluse_1_0", Content: "module x"},
		llmstream.Message{Role: "tool", ToolCallID: "tooluse_given", Content: "no such file", IsError: true})
	if d := cmp.Diff(wantMsgs, r.Messages); d != "" {
		t.Errorf("decoded request (-want +got):\n%s", d)
	}
}

// TestBedrockWireFaults: every fault in Bedrock's own form.
func TestBedrockWireFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault Fault
		check func(t *testing.T, err error)
	}{
		{"exception frame", Fault{Kind: FaultErrorEvent, After: 2, Status: 429, Message: "Too many requests."}, func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Type != "throttlingException" || api.Message != "Too many requests." || !api.Retryable() || api.StatusCode != 0 {
				t.Errorf("%v (%+v)", err, api)
			}
		}},
		{"default exception", Fault{Kind: FaultErrorEvent, After: 1}, func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Type != "modelStreamErrorException" || api.Kind != llmstream.ErrorServer {
				t.Errorf("%v (%+v)", err, api)
			}
		}},
		{"HTTP error", Fault{Kind: FaultStatus, Status: 400, Message: "Malformed input."}, func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Type != "ValidationException" || api.Message != "Malformed input." || api.Kind != llmstream.ErrorInvalidRequest || api.StatusCode != 400 {
				t.Errorf("%v (%+v)", err, api)
			}
		}},
		// A fault written for every wire names its type in another
		// provider's words: Bedrock's exception is its own, never that word
		// (a client reads an exception type it does not know as no error).
		{"exception in another provider's words", Fault{Kind: FaultErrorEvent, After: 1, Type: "server_error"}, exceptionType("modelStreamErrorException", llmstream.ErrorServer)},
		{"the package's default type", Fault{Kind: FaultErrorEvent, After: 1, Type: DefaultFaultType, Status: 529}, exceptionType("serviceUnavailableException", llmstream.ErrorOverloaded)},
		{"OpenRouter's error finish", Fault{Kind: FaultErrorFinish, After: 1, Type: "rate_limit_error", Status: 429}, exceptionType("throttlingException", llmstream.ErrorRateLimited)},
		{"llama.cpp's error line", Fault{Kind: FaultErrorLine, After: 1, Type: "invalid_request_error", Status: 400}, exceptionType("validationException", llmstream.ErrorInvalidRequest)},
		{"a server error status in-stream", Fault{Kind: FaultErrorEvent, After: 1, Status: 502}, exceptionType("internalServerException", llmstream.ErrorServer)},
		{"Bedrock's own name, either case", Fault{Kind: FaultErrorEvent, After: 1, Type: "ThrottlingException"}, exceptionType("throttlingException", llmstream.ErrorRateLimited)},
		{"an HTTP-only name in-stream", Fault{Kind: FaultErrorEvent, After: 1, Type: "accessDeniedException"}, exceptionType("modelStreamErrorException", llmstream.ErrorServer)},
		{"HTTP error in another provider's words", Fault{Kind: FaultStatus, Status: 403, Type: "invalid_request_error"}, func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Type != "AccessDeniedException" || api.Kind != llmstream.ErrorPermission || api.StatusCode != 403 {
				t.Errorf("%v (%+v)", err, api)
			}
		}},
		{"HTTP error named by Bedrock", Fault{Kind: FaultStatus, Status: 400, Type: "modelNotReadyException"}, func(t *testing.T, err error) {
			var api *llmstream.APIError
			if !errors.As(err, &api) || api.Type != "ModelNotReadyException" || api.StatusCode != 400 {
				t.Errorf("%v (%+v)", err, api)
			}
		}},
		{"bad CRC", Fault{Kind: FaultMalformed, After: 2}, func(t *testing.T, err error) {
			if !errors.Is(err, eventstream.ErrBadMessageCRC) {
				t.Errorf("%v, want eventstream.ErrBadMessageCRC", err)
			}
		}},
		{"cut frame", Fault{Kind: FaultCut, After: 2}, func(t *testing.T, err error) {
			if !errors.Is(err, llmstream.ErrInterrupted) {
				t.Errorf("%v, want ErrInterrupted", err)
			}
		}},
		{"truncated", Fault{Kind: FaultTruncate, After: 3}, func(t *testing.T, err error) {
			if !errors.Is(err, llmstream.ErrTruncated) {
				t.Errorf("%v, want ErrTruncated", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := bedrockTurn
			turn.Fault = tc.fault
			srv := NewTestServer(t, WithTurns(turn))
			m, err := bedrockClient(srv).Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
			if err == nil {
				t.Fatal("no error")
			}
			if len(m.ToolCalls) > 0 {
				t.Errorf("a failed stream handed out calls")
			}
			tc.check(t, err)
		})
	}
}

// exceptionType checks an in-stream error is the exception frame typ, of
// kind k.
func exceptionType(typ string, k llmstream.ErrorKind) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var api *llmstream.APIError
		if !errors.As(err, &api) || api.Type != typ || api.Kind != k || api.StatusCode != 0 {
			t.Errorf("%v (%+v), want the exception frame %s", err, api, typ)
		}
	}
}
