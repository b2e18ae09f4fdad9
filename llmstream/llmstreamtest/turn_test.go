package llmstreamtest

import (
	"encoding/json"
	"testing"
)

func TestTurnCheck(t *testing.T) {
	tests := []struct {
		name string
		turn Turn
		want string // "" for a valid turn
	}{
		{"zero turn", Turn{}, ""},
		{"full turn", richTurn, ""},
		{"text not UTF-8", Turn{Text: "a\xffb"}, "Text is not valid UTF-8"},
		{"reasoning not UTF-8", Turn{Reasoning: "\xc3"}, "Reasoning is not valid UTF-8"},
		{"refusal not UTF-8", Turn{Refusal: "\xed\xa0\x80"}, "Refusal is not valid UTF-8"},
		{"model not UTF-8", Turn{Model: "gpt\xff"}, "Model is not valid UTF-8"},
		{"keep-alive at 0", Turn{KeepAlive: 0}, ""},
		{"keep-alive below 0", Turn{KeepAlive: -1}, "KeepAlive is -1, below 0"},
		{"call without name", Turn{ToolCalls: []Call{{Arguments: "{}"}}}, "ToolCalls[0]: Name is empty"},
		{"call name not UTF-8", Turn{ToolCalls: []Call{{Name: "a\xff"}}}, "ToolCalls[0]: Name is not valid UTF-8"},
		{"call id not UTF-8", Turn{ToolCalls: []Call{{Name: "a"}, {ID: "\xff", Name: "b"}}}, "ToolCalls[1]: ID is not valid UTF-8"},
		{"arguments not UTF-8", Turn{ToolCalls: []Call{{Name: "a", Arguments: "\xff"}}}, "ToolCalls[0]: Arguments is not valid UTF-8"},
		{"arguments not JSON are allowed", Turn{ToolCalls: []Call{{Name: "a", Arguments: `{"x":`}}}, ""},
		{"extra an array", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`[1]`)}}}, "ToolCalls[0]: Extra is not a JSON object"},
		{"extra null", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`null`)}}}, "ToolCalls[0]: Extra is not a JSON object"},
		{"extra not JSON", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`{`)}}}, "ToolCalls[0]: Extra is not a JSON object"},
		{"extra empty object", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`{}`)}}}, ""},
		{"extra with id", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`{"id":"x"}`)}}}, `ToolCalls[0]: Extra has the member "id", which the server writes itself`},
		{"extra with index", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`{"index":1}`)}}}, `ToolCalls[0]: Extra has the member "index", which the server writes itself`},
		{"extra with function", Turn{ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`{"function":{}}`)}}}, `ToolCalls[0]: Extra has the member "function", which the server writes itself`},
		{"fault kind unknown", Turn{Fault: Fault{Kind: faultKindEnd}}, "Fault: Kind FaultKind(9) is unknown"},
		{"fault kind last", Turn{Fault: Fault{Kind: FaultTruncate}}, ""},
		{"after at 0", Turn{Fault: Fault{Kind: FaultCut, After: 0}}, ""},
		{"after below 0", Turn{Fault: Fault{Kind: FaultCut, After: -1}}, "Fault: After is -1, below 0"},
		{"attempts at 0", Turn{Fault: Fault{Kind: FaultStatus, Attempts: 0}}, ""},
		{"attempts below 0", Turn{Fault: Fault{Kind: FaultStatus, Attempts: -1}}, "Fault: Attempts is -1, below 0"},
		{"status 0 means default", Turn{Fault: Fault{Kind: FaultStatus, Status: 0}}, ""},
		{"status 399", Turn{Fault: Fault{Kind: FaultStatus, Status: 399}}, "Fault: Status is 399, outside 400–599"},
		{"status 400", Turn{Fault: Fault{Kind: FaultStatus, Status: 400}}, ""},
		{"status 599", Turn{Fault: Fault{Kind: FaultStatus, Status: 599}}, ""},
		{"status 600", Turn{Fault: Fault{Kind: FaultStatus, Status: 600}}, "Fault: Status is 600, outside 400–599"},
		{"code a string", Turn{Fault: Fault{Kind: FaultErrorEvent, Code: json.RawMessage(`"rate_limit"`)}}, ""},
		{"code an integer", Turn{Fault: Fault{Kind: FaultErrorEvent, Code: json.RawMessage(`429`)}}, ""},
		{"code not JSON", Turn{Fault: Fault{Kind: FaultErrorEvent, Code: json.RawMessage(`rate_limit`)}}, "Fault: Code is not valid JSON"},
		{"message not UTF-8", Turn{Fault: Fault{Kind: FaultErrorEvent, Message: "\xff"}}, "Fault: Message is not valid UTF-8"},
		{"type not UTF-8", Turn{Fault: Fault{Kind: FaultErrorEvent, Type: "\xff"}}, "Fault: Type is not valid UTF-8"},
		{"retry-after with newline", Turn{Fault: Fault{Kind: FaultStatus, RetryAfter: "1\r\nX-Evil: 1"}}, "Fault: RetryAfter contains a control character"},
		{"retry-after a date", Turn{Fault: Fault{Kind: FaultStatus, RetryAfter: "Wed, 21 Oct 2015 07:28:00 GMT"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.turn.check(); got != tt.want {
				t.Errorf("check() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFinishReasonDefaults(t *testing.T) {
	calls := []Call{{Name: "a"}}
	tests := []struct {
		name   string
		turn   Turn
		flavor Flavor
		want   string
	}{
		{"text", Turn{Text: "x"}, OpenAI, "stop"},
		{"calls", Turn{ToolCalls: calls}, OpenAI, "tool_calls"},
		{"calls gemini", Turn{ToolCalls: calls}, Gemini, "stop"},
		{"given wins", Turn{ToolCalls: calls, FinishReason: "length"}, OpenAI, "length"},
		{"given wins gemini", Turn{ToolCalls: calls, FinishReason: "tool_calls"}, Gemini, "tool_calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.turn.finishReason(tt.flavor); got != tt.want {
				t.Errorf("finishReason(%v) = %q, want %q", tt.flavor, got, tt.want)
			}
		})
	}
}

func TestEnumStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"flavor unset", Flavor(0).String(), "unset"},
		{"flavor openai", OpenAI.String(), "openai"},
		{"flavor azure", Azure.String(), "azure"},
		{"flavor ollama", Ollama.String(), "ollama"},
		{"flavor gemini", Gemini.String(), "gemini"},
		{"flavor vllm", VLLM.String(), "vllm"},
		{"flavor llamacpp", LlamaCpp.String(), "llamacpp"},
		{"flavor unknown", Flavor(42).String(), "Flavor(42)"},
		{"fault none", FaultKind(0).String(), "none"},
		{"fault status", FaultStatus.String(), "status"},
		{"fault error event", FaultErrorEvent.String(), "error_event"},
		{"fault error finish", FaultErrorFinish.String(), "error_finish"},
		{"fault error line", FaultErrorLine.String(), "error_line"},
		{"fault cut", FaultCut.String(), "cut"},
		{"fault stall", FaultStall.String(), "stall"},
		{"fault malformed", FaultMalformed.String(), "malformed"},
		{"fault truncate", FaultTruncate.String(), "truncate"},
		{"fault unknown", FaultKind(200).String(), "FaultKind(200)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestOptionStrings(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"turns", WithTurns(Turn{}, Turn{}), "llmstreamtest.WithTurns(2 turns)"},
		{"responder", WithResponder(func(Request) Turn { return Turn{} }), "llmstreamtest.WithResponder(func)"},
		{"responder nil", WithResponder(nil), "llmstreamtest.WithResponder(nil)"},
		{"flavor", WithFlavor(VLLM), "llmstreamtest.WithFlavor(vllm)"},
		{"seed", WithSeed(9), "llmstreamtest.WithSeed(9)"},
		{"interleave", WithInterleavedCalls(true), "llmstreamtest.WithInterleavedCalls(true)"},
		{"delay", WithEventDelay(1500000), "llmstreamtest.WithEventDelay(1.5ms)"},
		{"max body", WithMaxRequestBytes(10), "llmstreamtest.WithMaxRequestBytes(10)"},
		{"options", Options{WithSeed(1), nil, WithFlavor(Gemini)}, "[llmstreamtest.WithSeed(1) <nil> llmstreamtest.WithFlavor(gemini)]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.opt.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWithTurnsCopies checks that a script cannot change under a server
// after it was handed over.
func TestWithTurnsCopies(t *testing.T) {
	turns := []Turn{{Text: "one", ToolCalls: []Call{{Name: "a", Extra: json.RawMessage(`{"x":1}`)}}}}
	opt := WithTurns(turns...)
	turns[0].Text = "changed"
	turns[0].ToolCalls[0].Name = "changed"
	turns[0].ToolCalls[0].Extra[5] = '2'
	c := newConfig([]Option{opt})
	if got := c.turns[0]; got.Text != "one" || got.ToolCalls[0].Name != "a" || string(got.ToolCalls[0].Extra) != `{"x":1}` {
		t.Errorf("the server's turn changed with the caller's: %+v", got)
	}
}
