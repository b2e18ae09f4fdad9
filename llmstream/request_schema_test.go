package llmstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The request shapes below are written from the providers' API references
// (Anthropic: docs.anthropic.com/en/api/messages, "Create a Message";
// Bedrock: docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
// and the ContentBlock, ToolConfiguration, InferenceConfiguration types it
// names), members this package sends included, every other one left out:
// decoded with unknown members refused at every level, a member the
// provider does not define fails the test. Unions (content blocks, tool
// choice) are one struct of all their members.

type antReqSchema struct {
	Model         string              `json:"model"`
	MaxTokens     int                 `json:"max_tokens"`
	Messages      []antMessageSchema  `json:"messages"`
	System        json.RawMessage     `json:"system"` // a string or text blocks
	Stream        bool                `json:"stream"`
	Tools         []antToolSchema     `json:"tools"`
	ToolChoice    *antToolChoiceSchem `json:"tool_choice"`
	Thinking      *antThinkingSchema  `json:"thinking"`
	Temperature   *float64            `json:"temperature"`
	TopP          *float64            `json:"top_p"`
	TopK          *int                `json:"top_k"`
	StopSequences []string            `json:"stop_sequences"`
	Metadata      *struct {
		UserID string `json:"user_id"`
	} `json:"metadata"`
	Container    json.RawMessage `json:"container"`
	OutputConfig *struct {
		Format struct {
			Type   string          `json:"type"` // json_schema
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"output_config"` // platform.claude.com/docs/en/build-with-claude/structured-outputs
}

type antMessageSchema struct {
	Role    string           `json:"role"`
	Content []antBlockSchema `json:"content"`
}

type antBlockSchema struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Caller    json.RawMessage `json:"caller"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

type antToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type antToolChoiceSchem struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name"`
	DisableParallelToolUse *bool  `json:"disable_parallel_tool_use"`
}

type antThinkingSchema struct {
	Type         string `json:"type"` // enabled, disabled
	BudgetTokens int    `json:"budget_tokens"`
}

type bedrockReqSchema struct {
	Messages []struct {
		Role    string               `json:"role"`
		Content []bedrockBlockSchema `json:"content"`
	} `json:"messages"`
	System     []struct{ Text string } `json:"system"`
	ToolConfig *struct {
		Tools []struct {
			ToolSpec struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				InputSchema struct {
					JSON json.RawMessage `json:"json"`
				} `json:"inputSchema"`
			} `json:"toolSpec"`
		} `json:"tools"`
		ToolChoice *struct {
			Auto *struct{} `json:"auto"`
			Any  *struct{} `json:"any"`
			Tool *struct {
				Name string `json:"name"`
			} `json:"tool"`
		} `json:"toolChoice"`
	} `json:"toolConfig"`
	InferenceConfig *struct {
		MaxTokens     *int     `json:"maxTokens"`
		Temperature   *float64 `json:"temperature"`
		TopP          *float64 `json:"topP"`
		StopSequences []string `json:"stopSequences"`
	} `json:"inferenceConfig"`
	AdditionalModelRequestFields json.RawMessage `json:"additionalModelRequestFields"` // model-defined
	OutputConfig                 *struct {
		TextFormat struct {
			Type      string `json:"type"` // json_schema
			Structure struct {
				JSONSchema struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					Schema      string `json:"schema"` // the schema as JSON text
				} `json:"jsonSchema"`
			} `json:"structure"`
		} `json:"textFormat"`
	} `json:"outputConfig"` // API_runtime_OutputConfig.html
}

type bedrockBlockSchema struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
	ToolResult *struct {
		ToolUseID string `json:"toolUseId"`
		Content   []struct {
			Text *string         `json:"text"`
			JSON json.RawMessage `json:"json"`
		} `json:"content"`
		Status string `json:"status"`
	} `json:"toolResult"`
	ReasoningContent *struct {
		ReasoningText *struct {
			Text      string `json:"text"`
			Signature string `json:"signature"`
		} `json:"reasoningText"`
		RedactedContent []byte `json:"redactedContent"`
	} `json:"reasoningContent"`
}

// schemaRequests are requests of every shape the encoders write: text,
// tools with each tool choice, calls and their answers (one failed),
// sampling settings, and thinking on and off.
func schemaRequests(model string) []Request {
	tools := []Tool{{Type: "function", Function: ToolFunction{Name: "get_weather", Description: "Weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}}}
	conv := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Weather in Lyon?"},
		{Role: "assistant", Content: "Looking.", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "get_weather", Arguments: `{"city":"Lyon"}`}}}},
		{Role: "tool", ToolCallID: "c1", Content: "sunny"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c2", Type: "function", Function: FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: "tool", ToolCallID: "c2", Content: "no data", IsError: true},
		{Role: "user", Content: "Thanks"},
	}
	temp, top, budget, off := 0.5, 0.9, 2048, 0
	var out []Request
	for _, tc := range []ToolChoice{{}, {Mode: ToolChoiceAuto}, {Mode: ToolChoiceNone}, {Mode: ToolChoiceRequired}, {Mode: ToolChoiceFunction, Name: "get_weather"}} {
		out = append(out, Request{Model: model, Messages: conv, Tools: tools, ToolChoice: tc, Temperature: &temp, TopP: &top, Stop: []string{"END"}})
	}
	out = append(out,
		Request{Model: model, Messages: conv[1:2], ThinkingBudget: &budget},
		Request{Model: model, Messages: conv[1:2], ThinkingBudget: &off},
		Request{Model: model, Messages: conv, Tools: tools, ToolChoice: ToolChoice{Mode: ToolChoiceAuto}, ReasoningEffort: "low"},
		Request{Model: model, Messages: conv[1:2], ReasoningEffort: "none"},
	)
	return out
}

func strictDecode(t *testing.T, body []byte, v any) {
	t.Helper()
	var c shapeCheck
	if !c.decode(body, v) {
		t.Fatal(c.errs[0])
	}
}

// TestAnthropicRequestSchema: every request the Anthropic encoder writes
// has only the members the Messages API defines, at every level.
func TestAnthropicRequestSchema(t *testing.T) {
	for _, r := range shapeRequests(t, "claude-sonnet-4-5") {
		body, err := anthropicProtocol{}.encode(&r, &config{})
		if err != nil {
			t.Fatal(err)
		}
		var v antReqSchema
		strictDecode(t, body, &v)
		if v.Thinking != nil && v.Thinking.Type != "enabled" && v.Thinking.Type != "disabled" {
			t.Errorf("thinking type %q", v.Thinking.Type)
		}
		if v.ToolChoice != nil && !strings.Contains(" auto any tool none ", " "+v.ToolChoice.Type+" ") {
			t.Errorf("tool_choice type %q", v.ToolChoice.Type)
		}
	}
}

// TestBedrockRequestSchema: likewise for ConverseStream's request body.
func TestBedrockRequestSchema(t *testing.T) {
	for _, r := range shapeRequests(t, "anthropic.claude-sonnet-4-5-v1:0") {
		body, err := bedrockProtocol{}.encode(&r, &config{})
		if err != nil {
			t.Fatal(err)
		}
		var v bedrockReqSchema
		strictDecode(t, body, &v)
		for _, m := range v.Messages {
			for _, b := range m.Content {
				n := 0
				for _, set := range []bool{b.Text != nil, b.ToolUse != nil, b.ToolResult != nil, b.ReasoningContent != nil} {
					if set {
						n++
					}
				}
				if n != 1 {
					t.Errorf("a content block with %d members (a union holds one)", n)
				}
			}
		}
	}
}

// TestGeminiThinkingConfig: an effort is a thinkingLevel in the enum's own
// case; "none" is thinking off (a budget of 0, thoughts not included), no
// level; a budget of 0 likewise.
func TestGeminiThinkingConfig(t *testing.T) {
	zero := 0
	for _, tc := range []struct {
		effort string
		budget *int
		want   string
	}{
		{"minimal", nil, `{"thinkingLevel":"MINIMAL","includeThoughts":true}`},
		{"low", nil, `{"thinkingLevel":"LOW","includeThoughts":true}`},
		{"medium", nil, `{"thinkingLevel":"MEDIUM","includeThoughts":true}`},
		{"high", nil, `{"thinkingLevel":"HIGH","includeThoughts":true}`},
		{"none", nil, `{"thinkingBudget":0}`},
		{"", &zero, `{"thinkingBudget":0}`},
	} {
		r := Request{Model: "gemini-3-pro", Messages: []Message{{Role: "user", Content: "hi"}}, ReasoningEffort: tc.effort, ThinkingBudget: tc.budget}
		body, err := geminiProtocol{}.encode(&r, &config{})
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			GenerationConfig struct {
				ThinkingConfig json.RawMessage `json:"thinkingConfig"`
			} `json:"generationConfig"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		if got := string(v.GenerationConfig.ThinkingConfig); got != tc.want {
			t.Errorf("effort %q: thinkingConfig %s, want %s", tc.effort, got, tc.want)
		}
	}
}

// TestThinkingWithForcedToolChoice: Claude refuses thinking together with
// a forced tool choice, on Anthropic and on Bedrock: the call fails with
// ErrInvalidRequest naming both settings, before anything is sent; thinking
// off, or a choice that forces nothing, goes through.
func TestThinkingWithForcedToolChoice(t *testing.T) {
	budget, off := 2048, 0
	tools := []Tool{{Function: ToolFunction{Name: "f"}}}
	for _, d := range []struct {
		dialect Dialect
		model   string
	}{{DialectAnthropic, "claude-sonnet-4-5"}, {DialectBedrock, "anthropic.claude-sonnet-4-5-v1:0"}} {
		for _, tc := range []struct {
			name    string
			choice  ToolChoice
			budget  *int
			effort  string
			refused []string
		}{
			{"required+budget", ToolChoice{Mode: ToolChoiceRequired}, &budget, "", []string{"ThinkingBudget", "ToolChoiceRequired"}},
			{"function+effort", ToolChoice{Mode: ToolChoiceFunction, Name: "f"}, nil, "high", []string{`ReasoningEffort "high"`, "ToolChoiceFunction"}},
			{"required+off", ToolChoice{Mode: ToolChoiceRequired}, &off, "", nil},
			{"required+none", ToolChoice{Mode: ToolChoiceRequired}, nil, "none", nil},
			{"auto+budget", ToolChoice{Mode: ToolChoiceAuto}, &budget, "", nil},
			{"none+budget", ToolChoice{Mode: ToolChoiceNone}, &budget, "", nil},
		} {
			t.Run(d.dialect.String()+"/"+tc.name, func(t *testing.T) {
				sent := false
				c := NewClient(WithDialect(d.dialect), WithAPIKey("k"), WithBaseURL("http://127.0.0.1:1"), WithHTTPClient(sentDoer{&sent}))
				_, err := c.Stream(context.Background(), Request{Model: d.model, Messages: []Message{{Role: "user", Content: "hi"}}, Tools: tools, ToolChoice: tc.choice, ThinkingBudget: tc.budget, ReasoningEffort: tc.effort})
				if tc.refused == nil {
					if !sent {
						t.Fatalf("not sent: %v", err)
					}
					return
				}
				if sent || !errors.Is(err, ErrInvalidRequest) {
					t.Fatalf("sent %v, err = %v; want ErrInvalidRequest before sending", sent, err)
				}
				for _, s := range tc.refused {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("err %q does not name %s", err, s)
					}
				}
			})
		}
	}
}

// sentDoer records that a request was sent and answers none.
type sentDoer struct{ sent *bool }

func (d sentDoer) Do(*http.Request) (*http.Response, error) {
	*d.sent = true
	return nil, errors.New("not sent in this test")
}

// shapeRequests are the requests every dialect's shape test sends:
// schemaRequests, then every other setting those encoders
// write (structured output native and as a tool, token limits, the seed,
// parallel calls, strict and parameterless tools, every effort, a
// refusal), then one follow-up per recorded answer in testdata/providers
// (every dialect's, so that a conversation carried over from another
// dialect is checked too): the answer as the assistant turn, with its
// continuity state, each call answered (the first one failed), else a
// user turn after it.
func shapeRequests(t *testing.T, model string) []Request {
	t.Helper()
	out := schemaRequests(model)
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`)
	strict, no := true, false
	maxTok, seed := 512, int64(7)
	user := []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}}
	tools := []Tool{
		{Function: ToolFunction{Name: "strict_one", Description: "d", Parameters: schema, Strict: &strict}},
		{Function: ToolFunction{Name: "no_params"}},
	}
	out = append(out,
		Request{Model: model, Messages: user, Output: &OutputSchema{Name: "answer", Schema: schema, Strict: true}},
		Request{Model: model, Messages: user, Output: &OutputSchema{Schema: schema}},
		Request{Model: model, Messages: user, Output: &OutputSchema{Name: "answer", Schema: schema, AsTool: true}},
		Request{Model: model, Messages: user, Tools: tools, Output: &OutputSchema{Schema: schema, AsTool: true}},
		Request{Model: model, Messages: user, Tools: tools, ParallelToolCalls: &no, MaxTokens: &maxTok, Seed: &seed},
		Request{Model: model, Messages: user, MaxCompletionTokens: &maxTok},
		Request{Model: model, Messages: append(slices.Clone(user), Message{Role: "assistant", Refusal: "I can't."}, Message{Role: "user", Content: "ok"})},
		// Names on every role: a tool message's Name is set for Gemini,
		// which pairs an answer with its call by name.
		Request{Model: model, Messages: []Message{
			{Role: "user", Name: "ann", Content: "hi"},
			{Role: "assistant", Name: "bot", ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "get_weather", Arguments: "{}"}}}},
			{Role: "tool", Name: "get_weather", ToolCallID: "c1", Content: "sunny"},
		}},
	)
	for _, effort := range []string{"minimal", "medium", "high"} {
		out = append(out, Request{Model: model, Messages: user, ReasoningEffort: effort})
	}
	files, err := filepath.Glob("testdata/providers/*.golden.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded answers: %v", err)
	}
	for _, f := range files {
		var g struct {
			Message *Message `json:"message"`
		}
		if err := json.Unmarshal(readTestdata(t, strings.TrimPrefix(f, "testdata/")), &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if g.Message == nil || g.Message.Role != "assistant" {
			continue
		}
		conv := append(slices.Clone(user), *g.Message)
		for i, c := range g.Message.ToolCalls {
			conv = append(conv, Message{Role: "tool", ToolCallID: c.ID, Content: `{"ok":true}`, IsError: i == 0})
		}
		if len(g.Message.ToolCalls) == 0 {
			conv = append(conv, Message{Role: "user", Content: "go on"})
		}
		out = append(out, Request{Model: model, Messages: conv, Tools: tools, ReasoningEffort: "low"})
	}
	return out
}

// sentBody is the body a client of dialect d sends for r: the client's
// defaults, Output and Extra applied as Stream applies them.
func sentBody(t *testing.T, d Dialect, r Request) []byte {
	t.Helper()
	c := NewClient(WithDialect(d), WithAPIKey("k"), WithBaseURL("http://127.0.0.1:1"))
	c.resolve(&r)
	if _, err := c.outputAsTool(&r); err != nil {
		t.Fatal(err)
	}
	req, err := c.newRequest(context.Background(), &r)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// oneOf reports whether s is one of the space-separated words of set.
func oneOf(s, set string) bool {
	return slices.Contains(strings.Fields(set), s)
}

// jsonKind is the JSON type of raw: "string", "number", "object",
// "array", "bool" or "null"; "" for none.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// shapeCheck collects what a body's check finds, so that a test can
// assert both that real bodies pass and that bad ones fail.
type shapeCheck struct{ errs []string }

func (c *shapeCheck) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// decode decodes raw into v with unknown members refused, at every level
// of v; it reports whether that went through.
func (c *shapeCheck) decode(raw []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		c.errorf("%v in %s", err, raw)
		return false
	}
	return true
}

// shapeBreaks are edits of a valid body that each break a provider's
// schema: old is replaced once by new; check must then fail.
type shapeBreak struct{ name, old, new string }

// checkShapes runs check on every body (each must pass) and on each break
// of valid (each must fail, so the check can fail).
func checkShapes(t *testing.T, bodies [][]byte, check func([]byte) []string, valid []byte, breaks []shapeBreak) {
	t.Helper()
	for _, b := range bodies {
		for _, e := range check(b) {
			t.Error(e)
		}
	}
	if errs := check(valid); len(errs) > 0 {
		t.Fatalf("the valid body fails: %v", errs)
	}
	for _, br := range breaks {
		if !bytes.Contains(valid, []byte(br.old)) {
			t.Fatalf("%s: %q is not in %s", br.name, br.old, valid)
		}
		bad := bytes.Replace(valid, []byte(br.old), []byte(br.new), 1)
		if len(check(bad)) == 0 {
			t.Errorf("%s: passes: %s", br.name, bad)
		}
	}
}
