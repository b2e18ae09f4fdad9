package llmstream

import (
	"encoding/json"
	"regexp"
	"testing"
)

// The chat request's shape, written from OpenAI's API reference "Create
// chat completion" (platform.openai.com/docs/api-reference/chat/create)
// and the request types of its SDK generated from the same OpenAPI spec
// (openai-go's ChatCompletionNewParams and its message, tool and
// response_format params): members this package sends, every other one
// left out. OpenAI answers a member it does not define with 400
// "Unrecognized request argument". Unions (messages by role, tool_choice,
// stop) are one struct of all their members and checked per variant.
//
// Two members are outside OpenAI's schema and allowed on purpose, each
// only where it is written back to the server that sent it:
// "reasoning_details" on an assistant message is OpenRouter's (its
// reasoning-tokens guide asks for the entries back unchanged to keep the
// model's reasoning across turns), sent only for a message whose answer
// carried them, which OpenAI's never do; "extra_content" on a tool call is
// Google's, from Gemini's OpenAI-compatible endpoint (its thought
// signature, which that endpoint requires back), sent only for a call
// that came with it.

type chatReqShape struct {
	Model         string         `json:"model"`
	Messages      []chatMsgShape `json:"messages"`
	Stream        bool           `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Strict      *bool           `json:"strict"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"` // "none" | "auto" | "required" | {"type":"function","function":{"name"}}
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"` // a string or up to 4 strings
	Seed                *int64          `json:"seed"`
	ReasoningEffort     *string         `json:"reasoning_effort"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type chatMsgShape struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       *string         `json:"name"`
	Refusal    *string         `json:"refusal"`
	ToolCalls  []chatCallShape `json:"tool_calls"`
	ToolCallID *string         `json:"tool_call_id"`

	ReasoningDetails []json.RawMessage `json:"reasoning_details"` // OpenRouter's, see above
}

type chatCallShape struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`

	ExtraContent *struct { // Google's, see above
		Google struct {
			ThoughtSignature string `json:"thought_signature"`
		} `json:"google"`
	} `json:"extra_content"`
}

// schemaName is the pattern OpenAI gives response_format.json_schema.name
// (and a function's name).
var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// chatShape is what of body OpenAI's chat schema does not allow: a
// member it does not define, a member on a role that has no such member,
// a value of the wrong type or outside its enum.
func chatShape(body []byte) []string {
	var c shapeCheck
	var v chatReqShape
	if !c.decode(body, &v) {
		return c.errs
	}
	if !v.Stream || v.Model == "" || len(v.Messages) == 0 {
		c.errorf("stream %v, model %q, %d messages in %s", v.Stream, v.Model, len(v.Messages), body)
	}
	for _, m := range v.Messages {
		switch m.Role {
		case "system", "developer", "user":
			if jsonKind(m.Content) != "string" || m.Refusal != nil || m.ToolCalls != nil || m.ToolCallID != nil || m.ReasoningDetails != nil {
				c.errorf("%s message with other than content and name: %s", m.Role, body)
			}
		case "assistant":
			if k := jsonKind(m.Content); k != "string" && k != "null" && !(k == "" && len(m.ToolCalls) > 0) {
				c.errorf("assistant content %q with %d calls in %s", k, len(m.ToolCalls), body)
			}
			if m.ToolCallID != nil {
				c.errorf("assistant message with tool_call_id: %s", body)
			}
			for _, call := range m.ToolCalls {
				if call.Type != "function" || call.ID == "" || !schemaName.MatchString(call.Function.Name) || !json.Valid([]byte(call.Function.Arguments)) {
					c.errorf("tool call %+v in %s", call, body)
				}
			}
			for _, d := range m.ReasoningDetails {
				if jsonKind(d) != "object" {
					c.errorf("reasoning_details entry %s", d)
				}
			}
		case "tool":
			if jsonKind(m.Content) != "string" || m.ToolCallID == nil || *m.ToolCallID == "" || m.Name != nil || m.Refusal != nil || m.ToolCalls != nil || m.ReasoningDetails != nil {
				c.errorf("tool message %+v in %s", m, body)
			}
		default:
			c.errorf("role %q in %s", m.Role, body)
		}
	}
	for _, tool := range v.Tools {
		if tool.Type != "function" || !schemaName.MatchString(tool.Function.Name) || jsonKind(tool.Function.Parameters) != "object" {
			c.errorf("tool %+v in %s", tool, body)
		}
	}
	switch jsonKind(v.ToolChoice) {
	case "":
	case "string":
		var s string
		if json.Unmarshal(v.ToolChoice, &s); !oneOf(s, "none auto required") {
			c.errorf("tool_choice %s", v.ToolChoice)
		}
	default:
		var tc struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if c.decode(v.ToolChoice, &tc); tc.Type != "function" || tc.Function.Name == "" {
			c.errorf("tool_choice %s", v.ToolChoice)
		}
	}
	switch jsonKind(v.Stop) {
	case "", "string":
	case "array":
		var stop []string
		if c.decode(v.Stop, &stop); len(stop) > 4 {
			c.errorf("stop %s", v.Stop)
		}
	default:
		c.errorf("stop %s", v.Stop)
	}
	if e := v.ReasoningEffort; e != nil && !oneOf(*e, "none minimal low medium high xhigh") {
		c.errorf("reasoning_effort %q", *e)
	}
	if f := v.ResponseFormat; f != nil {
		switch {
		case !oneOf(f.Type, "text json_object json_schema"),
			(f.Type == "json_schema") != (f.JSONSchema != nil),
			f.JSONSchema != nil && (!schemaName.MatchString(f.JSONSchema.Name) || jsonKind(f.JSONSchema.Schema) != "object"):
			c.errorf("response_format in %s", body)
		}
	}
	return c.errs
}

// TestChatRequestShape: every request the chat encoder writes has only
// the members OpenAI's Chat Completions API defines (and the two
// extensions above where they belong), each of its type and enum; and
// the check fails a body that breaks the schema in each way it looks for.
func TestChatRequestShape(t *testing.T) {
	var bodies [][]byte
	for _, r := range shapeRequests(t, "gpt-5") {
		bodies = append(bodies, sentBody(t, DialectChat, r))
	}
	valid := []byte(`{"model":"gpt-5","stream":true,"stream_options":{"include_usage":true},` +
		`"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},` +
		`{"role":"assistant","content":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"x"}],` +
		`"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"sig"}}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"r"}],` +
		`"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"},"strict":true}}],` +
		`"tool_choice":{"type":"function","function":{"name":"f"}},"stop":["END"],"reasoning_effort":"low",` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"},"strict":true}}}`)
	checkShapes(t, bodies, chatShape, valid, []shapeBreak{
		{"unknown top-level member", `"stop":`, `"is_error":true,"stop":`},
		{"unknown message member", `"role":"user",`, `"role":"user","continuity":{},`},
		{"unknown tool-call member", `"id":"c1",`, `"id":"c1","caller":{},`},
		{"unknown extra_content member", `"google":{`, `"openai":{},"google":{`},
		{"unknown function member", `"name":"f","parameters"`, `"name":"f","input_schema":{},"parameters"`},
		{"unknown response_format member", `"name":"answer",`, `"name":"answer","format":1,`},
		{"tool_call_id on a user message", `"role":"user",`, `"role":"user","tool_call_id":"c1",`},
		{"reasoning_details on a user message", `"role":"user",`, `"role":"user","reasoning_details":[],`},
		{"tool message without its call", `"tool_call_id":"c1",`, ``},
		{"content as a number", `"content":"u"`, `"content":1`},
		{"arguments as an object", `"arguments":"{}"`, `"arguments":{}`},
		{"temperature as a string", `"stop":`, `"temperature":"0.5","stop":`},
		{"tool_choice outside its enum", `"tool_choice":{"type":"function","function":{"name":"f"}}`, `"tool_choice":"any"`},
		{"reasoning_effort outside its enum", `"reasoning_effort":"low"`, `"reasoning_effort":"max"`},
		{"response_format type outside its enum", `"type":"json_schema"`, `"type":"schema"`},
		{"role outside its enum", `"role":"system"`, `"role":"model"`},
		{"five stop sequences", `["END"]`, `["a","b","c","d","e"]`},
	})
}
