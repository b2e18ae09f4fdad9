package llmstreamtest

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden streams in testdata/golden")

// richTurn has every kind of content: reasoning, text with characters
// encoding/json must escape, and two calls, one with provider extras.
var richTurn = Turn{
	Reasoning: "Let me look at the module file first.",
	Text:      "Reading \"go.mod\" — naïve <ok> & done.\n",
	ToolCalls: []Call{
		{Name: "read_file", Arguments: `{"path":"go.mod","note":"naïve ✓"}`,
			Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"c2ln"}}}`)},
		{ID: "call_given", Name: "list_dir", Arguments: `{"dir":"."}`},
	},
	Usage: &llmstream.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18},
}

var richUsage = &llmstream.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}

// richCalls returns the calls of richTurn as a client should assemble
// them, the first with id id.
func richCalls(id string) []llmstream.ToolCall {
	return []llmstream.ToolCall{
		{ID: id, Type: "function", Function: llmstream.FunctionCall{Name: "read_file", Arguments: `{"path":"go.mod","note":"naïve ✓"}`},
			Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"c2ln"}}}`)},
		{ID: "call_given", Type: "function", Function: llmstream.FunctionCall{Name: "list_dir", Arguments: `{"dir":"."}`}},
	}
}

const (
	richText      = "Reading \"go.mod\" — naïve <ok> & done.\n"
	richReasoning = "Let me look at the module file first."
)

// roundTripCases are turns with the message a client must assemble from
// their streams. Each case is decoded by the in-test decoder here and by
// llmstream.ReadMessage in roundtrip_test.go.
var roundTripCases = []struct {
	name       string
	flavor     Flavor
	interleave bool
	body       string
	turn       Turn
	want       llmstream.Message
}{
	{"openai rich usage", OpenAI, false, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"openai rich no usage asked", OpenAI, false, chatBody, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls"}},
	{"openai rich interleaved", OpenAI, true, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"openai calls only", OpenAI, false, chatBody, Turn{ToolCalls: richTurn.ToolCalls}, llmstream.Message{Role: "assistant", ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls"}},
	{"openai empty turn", OpenAI, false, chatBody, Turn{}, llmstream.Message{Role: "assistant", FinishReason: "stop"}},
	{"openai refusal", OpenAI, false, chatBody, Turn{Refusal: "I can't help with that."}, llmstream.Message{Role: "assistant", Refusal: "I can't help with that.", FinishReason: "stop"}},
	{"openai finish given", OpenAI, false, chatBody, Turn{Text: "cut", FinishReason: "length"}, llmstream.Message{Role: "assistant", Content: "cut", FinishReason: "length"}},
	{"azure rich usage", Azure, false, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"azure rich interleaved", Azure, true, chatBody, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls"}},
	{"azure empty turn", Azure, false, chatBody, Turn{}, llmstream.Message{Role: "assistant", FinishReason: "stop"}},
	{"ollama rich usage", Ollama, false, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"ollama rich no usage asked", Ollama, true, chatBody, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls"}},
	{"ollama empty turn", Ollama, false, chatBody, Turn{}, llmstream.Message{Role: "assistant", FinishReason: "stop"}},
	{"gemini rich usage", Gemini, false, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls(""), FinishReason: "stop", Usage: richUsage}},
	{"gemini usage even unasked", Gemini, false, chatBody, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls(""), FinishReason: "stop", Usage: richUsage}},
	{"gemini empty turn", Gemini, false, chatBody, Turn{}, llmstream.Message{Role: "assistant", FinishReason: "stop"}},
	{"gemini finish given", Gemini, false, chatBody, Turn{ToolCalls: richTurn.ToolCalls, FinishReason: "tool_calls"}, llmstream.Message{Role: "assistant", ToolCalls: richCalls(""), FinishReason: "tool_calls"}},
	{"vllm rich usage", VLLM, false, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"vllm rich interleaved", VLLM, true, chatBody, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls"}},
	{"vllm text only", VLLM, false, chatBody, Turn{Text: "Hello there"}, llmstream.Message{Role: "assistant", Content: "Hello there", FinishReason: "stop"}},
	{"llamacpp rich usage", LlamaCpp, false, chatBodyUsage, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"llamacpp usage even unasked", LlamaCpp, true, chatBody, richTurn, llmstream.Message{Role: "assistant", Content: richText, Reasoning: richReasoning, ToolCalls: richCalls("call_1_0"), FinishReason: "tool_calls", Usage: richUsage}},
	{"llamacpp empty turn", LlamaCpp, false, chatBody, Turn{}, llmstream.Message{Role: "assistant", FinishReason: "stop"}},
}

func TestFlavorRoundTrip(t *testing.T) {
	for _, tt := range roundTripCases {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithFlavor(tt.flavor), WithInterleavedCalls(tt.interleave), WithTurns(tt.turn))
			d := stream(t, srv, tt.body)
			if diff := cmp.Diff(tt.want, d.msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if !d.done || d.afterDone != 0 {
				t.Errorf("done %t with %d lines after it, want [DONE] last", d.done, d.afterDone)
			}
			checkChunkShapes(t, d.chunks)
		})
	}
}

// checkChunkShapes checks that every chunk is chat.completion.chunk JSON
// with the members every client relies on. Azure's prompt-filter chunk
// (no id) and its no-delta choice (content filter results only) are the
// two shapes allowed to lack some.
func checkChunkShapes(t *testing.T, chunks []json.RawMessage) {
	t.Helper()
	for i, raw := range chunks {
		var c map[string]json.RawMessage
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		_, promptFilter := c["prompt_filter_results"]
		for _, k := range []string{"id", "object", "created", "model", "choices"} {
			if _, ok := c[k]; !ok {
				t.Errorf("chunk %d has no %q: %s", i, k, raw)
			}
		}
		if !promptFilter && string(c["object"]) != `"chat.completion.chunk"` {
			t.Errorf("chunk %d: object %s", i, c["object"])
		}
		var choices []map[string]json.RawMessage
		if err := json.Unmarshal(c["choices"], &choices); err != nil {
			t.Fatalf("chunk %d choices: %v", i, err)
		}
		for _, ch := range choices {
			_, filterOnly := ch["content_filter_results"]
			_, hasDelta := ch["delta"]
			filterOnly = filterOnly && !hasDelta
			for _, k := range []string{"index", "delta", "logprobs", "finish_reason"} {
				if _, ok := ch[k]; !ok && !(filterOnly && (k == "delta" || k == "logprobs")) {
					t.Errorf("chunk %d: choice has no %q: %s", i, k, raw)
				}
			}
		}
	}
}

// TestGolden compares whole streams with the files in testdata/golden,
// which were checked by hand against the shapes in the Flavor docs. Run
// with -update to rewrite them after a deliberate change, and read the diff.
func TestGolden(t *testing.T) {
	tests := []struct {
		name       string
		flavor     Flavor
		interleave bool
		body       string
		turn       Turn
	}{
		{"openai", OpenAI, false, chatBodyUsage, richTurn},
		{"openai-interleaved", OpenAI, true, chatBody, richTurn},
		{"openai-calls-first", OpenAI, false, chatBody, Turn{ToolCalls: richTurn.ToolCalls[:1]}},
		{"azure", Azure, false, chatBodyUsage, richTurn},
		{"ollama", Ollama, false, chatBodyUsage, richTurn},
		{"gemini", Gemini, false, chatBody, richTurn},
		{"vllm", VLLM, false, chatBodyUsage, richTurn},
		{"llamacpp", LlamaCpp, false, chatBody, richTurn},
		{"keepalive", OpenAI, false, chatBody, Turn{Text: "a b", KeepAlive: 2}},
		{"error-event", OpenAI, false, chatBody, Turn{Text: "a b", Fault: Fault{Kind: FaultErrorEvent, After: 2, Message: "overloaded", Type: "server_error", Code: json.RawMessage(`"overloaded"`)}}},
		{"error-event-vllm", VLLM, false, chatBody, Turn{Text: "a b", Fault: Fault{Kind: FaultErrorEvent, After: 1, Message: "bad: \"x\", y", Type: "BadRequestError", Code: json.RawMessage(`400`)}}},
		{"error-finish", OpenAI, false, chatBody, Turn{Text: "a b", Fault: Fault{Kind: FaultErrorFinish, After: 2, Message: "Provider disconnected", Code: json.RawMessage(`502`)}}},
		{"error-line", LlamaCpp, false, chatBody, Turn{Text: "a b", Fault: Fault{Kind: FaultErrorLine, After: 2, Message: "context full", Code: json.RawMessage(`500`)}}},
		{"malformed", OpenAI, false, chatBody, Turn{Text: "a b", Fault: Fault{Kind: FaultMalformed, After: 1}}},
		{"truncate", OpenAI, false, chatBody, Turn{Text: "a b", Fault: Fault{Kind: FaultTruncate, After: 99}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewTestServer(t, WithFlavor(tt.flavor), WithInterleavedCalls(tt.interleave), WithTurns(tt.turn))
			r := post(t, srv, "/chat/completions", tt.body)
			if r.readErr != nil {
				t.Fatal(r.readErr)
			}
			path := filepath.Join("testdata", "golden", tt.name+".sse")
			if *update {
				if err := os.WriteFile(path, r.body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(r.body)); diff != "" {
				t.Errorf("stream differs from %s (-want +got):\n%s", path, diff)
			}
		})
	}
}
