package llmstream

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// geminiModelParts returns, for each model content of r's Gemini request,
// its parts as "call <name>", "text" or "thought", each followed by
// " sig=<signature>" when it carries one.
func geminiModelParts(t *testing.T, r Request) [][]string {
	t.Helper()
	body, err := geminiProtocol{}.encode(&r, &config{})
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Contents []struct {
			Role  string
			Parts []struct {
				Text             *string
				Thought          bool
				FunctionCall     *struct{ Name string }
				ThoughtSignature *string
			}
		}
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, c := range w.Contents {
		if c.Role != "model" {
			continue
		}
		var parts []string
		for _, p := range c.Parts {
			var s string
			switch {
			case p.FunctionCall != nil:
				s = "call " + p.FunctionCall.Name
			case p.Thought:
				s = "thought"
			case p.Text != nil:
				s = "text"
			default:
				s = "other"
			}
			if p.ThoughtSignature != nil {
				s += " sig=" + *p.ThoughtSignature
			}
			parts = append(parts, s)
		}
		out = append(out, parts)
	}
	return out
}

// TestGeminiUnsignedCalls: Gemini 3 refuses a request whose model turn has
// a functionCall without a thoughtSignature (400 "Function call is missing
// a thought_signature in functionCall parts"), and a conversation has such
// calls whenever they did not come from Gemini with their state: another
// dialect, a hand-built or trimmed history, a message edited so that its
// state no longer fits. Google documents a sentinel for these
// (ai.google.dev/gemini-api/docs/thought-signatures): each step whose calls
// are all unsigned gets it on its first call, as Gemini itself signs only
// the first call of parallel ones. Real signatures stay; models before
// Gemini 3 get nothing.
func TestGeminiUnsignedCalls(t *testing.T) {
	const skip = "sig=skip_thought_signature_validator"
	call := func(id, name string) ToolCall {
		return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: `{}`}}
	}
	unsigned := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", Content: "Reading.", ToolCalls: []ToolCall{call("call_0", "a")}},
		{Role: "tool", ToolCallID: "call_0", Content: "done"},
	}
	parallel := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{call("call_0", "a"), call("call_1", "b"), call("call_2", "c")}},
		{Role: "tool", ToolCallID: "call_0", Content: "1"},
		{Role: "tool", ToolCallID: "call_1", Content: "2"},
		{Role: "tool", ToolCallID: "call_2", Content: "3"},
	}
	// Gemini's own message: the first of two parallel calls signed.
	signed := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{call("call_0", "a"), call("call_1", "b")}, Continuity: &Continuity{
			Dialect: DialectGemini, Blocks: []Block{{Type: BlockToolCall, Call: 0, Signature: "real"}, {Type: BlockToolCall, Call: 1}},
		}},
		{Role: "tool", ToolCallID: "call_0", Content: "1"},
		{Role: "tool", ToolCallID: "call_1", Content: "2"},
	}
	// A signature Gemini's OpenAI endpoint put on the call.
	fromOpenAIEndpoint := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c", Function: FunctionCall{Name: "a", Arguments: `{}`},
			Extra: json.RawMessage(`{"extra_content":{"google":{"thought_signature":"openai-sig"}}}`)}}},
		{Role: "tool", ToolCallID: "c", Content: "1"},
	}
	// A chat-dialect conversation: a text answer, then a step of two calls
	// and one of a single call, then the answer.
	chat := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "hi"},
		{Role: "assistant", Content: "Hello."},
		{Role: "user", Content: "read go.mod and main.go"},
		{Role: "assistant", ToolCalls: []ToolCall{call("call_abc", "read_file"), call("call_def", "read_file")}},
		{Role: "tool", ToolCallID: "call_abc", Content: "module x"},
		{Role: "tool", ToolCallID: "call_def", Content: "package main"},
		{Role: "assistant", Content: "Listing too.", ToolCalls: []ToolCall{call("call_ghi", "list_dir")}},
		{Role: "tool", ToolCallID: "call_ghi", Content: "a b"},
	}
	// Anthropic's state is not Gemini's: its calls go unsigned.
	anthropic := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{call("toolu_1", "a")}, Continuity: &Continuity{Dialect: DialectAnthropic, Blocks: []Block{
			{Type: "thinking", Raw: json.RawMessage(`{"type":"thinking","thinking":"t","signature":"anthropic-sig"}`)}, {Type: BlockToolCall, Call: 0},
		}}},
		{Role: "tool", ToolCallID: "toolu_1", Content: "1"},
	}
	// Gemini's state that no longer fits the edited text: the thought goes
	// back with its signature, the calls without theirs.
	edited := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", Content: "Edited.", ToolCalls: []ToolCall{call("call_0", "a"), call("call_1", "b")}, Continuity: &Continuity{Dialect: DialectGemini, Blocks: []Block{
			{Type: "thought", Raw: json.RawMessage(`{"text":"hm","thought":true,"thoughtSignature":"thought-sig"}`), Signature: "thought-sig"},
			{Type: BlockText, Bytes: 3},
			{Type: BlockToolCall, Call: 0, Signature: "call-sig"},
			{Type: BlockToolCall, Call: 1},
		}}},
		{Role: "tool", ToolCallID: "call_0", Content: "1"},
		{Role: "tool", ToolCallID: "call_1", Content: "2"},
	}
	// Consecutive assistant messages go as one model content; each message
	// is one step of the model's, signed on its own.
	merged := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", Content: "Let me look."},
		{Role: "assistant", ToolCalls: []ToolCall{call("call_0", "a"), call("call_1", "b")}},
		{Role: "assistant", ToolCalls: []ToolCall{call("call_2", "c")}},
		signed[1],
		{Role: "assistant", ToolCalls: []ToolCall{call("call_3", "d")}},
	}

	for _, tc := range []struct {
		name  string
		model string
		msgs  []Message
		want  [][]string
	}{
		{"unsigned call", "gemini-3-pro-preview", unsigned, [][]string{{"text", "call a " + skip}}},
		{"parallel unsigned calls", "gemini-3-flash-preview", parallel, [][]string{{"call a " + skip, "call b", "call c"}}},
		{"signed call", "gemini-3-pro-preview", signed, [][]string{{"call a sig=real", "call b"}}},
		{"signed on the OpenAI endpoint", "gemini-3-pro-preview", fromOpenAIEndpoint, [][]string{{"call a sig=openai-sig"}}},
		{"chat conversation", "gemini-3.1-pro-preview", chat, [][]string{{"text"}, {"call read_file " + skip, "call read_file"}, {"text", "call list_dir " + skip}}},
		{"anthropic state", "gemini-3-pro-preview", anthropic, [][]string{{"call a " + skip}}},
		{"state that no longer fits", "gemini-3-pro-preview", edited, [][]string{{"thought sig=thought-sig", "text", "call a " + skip, "call b"}}},
		{"merged assistant messages", "gemini-3-pro-preview", merged, [][]string{{"text", "call a " + skip, "call b", "call c " + skip, "call a sig=real", "call b", "call d " + skip}}},
		{"models/ prefix", "models/gemini-3-pro-preview", unsigned, [][]string{{"text", "call a " + skip}}},
		{"Vertex publisher path", "publishers/google/models/gemini-3-pro-preview", unsigned, [][]string{{"text", "call a " + skip}}},
		{"spaces around", " gemini-3-pro-preview ", unsigned, [][]string{{"text", "call a " + skip}}},
		{"later major", "gemini-4-pro", unsigned, [][]string{{"text", "call a " + skip}}},
		{"two-digit major", "gemini-10.5-flash", unsigned, [][]string{{"text", "call a " + skip}}},
		{"gemini-2.5", "gemini-2.5-flash", unsigned, [][]string{{"text", "call a"}}},
		{"gemini-2.5 parallel", "models/gemini-2.5-pro", parallel, [][]string{{"call a", "call b", "call c"}}},
		{"gemini-2.0", "gemini-2.0-flash-001", unsigned, [][]string{{"text", "call a"}}},
		{"experimental", "gemini-exp-1206", unsigned, [][]string{{"text", "call a"}}},
		{"learnlm", "learnlm-2.0-flash-experimental", unsigned, [][]string{{"text", "call a"}}},
		{"major alone", "gemini-3", unsigned, [][]string{{"text", "call a"}}},
		{"tuned model", "tunedModels/gemini-3-tuned", unsigned, [][]string{{"text", "call a"}}},
		{"no model", "", unsigned, [][]string{{"text", "call a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := geminiModelParts(t, Request{Model: tc.model, Messages: tc.msgs})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("model parts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGeminiReasoningEffort: an effort is a thinkingLevel of Gemini's enum
// in its case, "none" a zero budget, and an effort outside the enum
// ("xhigh", which chat and Responses pass on) an ErrInvalidRequest naming
// it, nothing sent — Gemini would refuse the request.
func TestGeminiReasoningEffort(t *testing.T) {
	for effort, want := range map[string]string{
		"minimal": `{"includeThoughts":true,"thinkingLevel":"MINIMAL"}`,
		"high":    `{"includeThoughts":true,"thinkingLevel":"HIGH"}`,
		"LOW":     `{"includeThoughts":true,"thinkingLevel":"LOW"}`,
		"none":    `{"thinkingBudget":0}`,
		"xhigh":   "error",
		"max":     "error",
	} {
		if want == "error" {
			sent := false
			c := NewClient(WithDialect(DialectGemini), WithModel("m"), WithHTTPClient(countingDoer{&sent}))
			_, err := c.Stream(t.Context(), Request{ReasoningEffort: effort})
			if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), effort) || sent {
				t.Errorf("%q: err %v, sent %v; want ErrInvalidRequest naming it, nothing sent", effort, err, sent)
			}
			continue
		}
		body, err := geminiProtocol{}.encode(&Request{ReasoningEffort: effort}, &config{})
		var w struct {
			GenerationConfig struct{ ThinkingConfig json.RawMessage }
		}
		if err != nil || json.Unmarshal(body, &w) != nil {
			t.Fatalf("%q: %v", effort, err)
		}
		var got, exp any
		json.Unmarshal(w.GenerationConfig.ThinkingConfig, &got)
		json.Unmarshal([]byte(want), &exp)
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Errorf("%q: thinkingConfig (-want +got):\n%s", effort, diff)
		}
	}
}
