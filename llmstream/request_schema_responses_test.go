package llmstream

import (
	"encoding/json"
	"testing"
)

// The Responses request's shape, written from OpenAI's API reference
// "Create a model response" (platform.openai.com/docs/api-reference/responses/create)
// and its SDK's request types generated from the same OpenAPI spec
// (openai-go's ResponseNewParams, ResponseInputItemUnionParam and the item
// params it names: EasyInputMessage, ResponseOutputMessage, FunctionCall,
// FunctionCallOutput, Reasoning, WebSearchCall, CustomToolCall): members
// this package sends, every other one left out. Input items are a union
// by "type" (and, for "message", by whether it is an output message with
// its id), each decoded with unknown members refused.

type respReqShape struct {
	Model        string            `json:"model"`
	Instructions *string           `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	} `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"` // "none" | "auto" | "required" | {"type":"function","name"}
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	Temperature       *float64        `json:"temperature"`
	TopP              *float64        `json:"top_p"`
	MaxOutputTokens   *int            `json:"max_output_tokens"`
	Reasoning         *struct {
		Effort  *string `json:"effort"`
		Summary *string `json:"summary"`
	} `json:"reasoning"`
	Store   *bool    `json:"store"`
	Include []string `json:"include"`
	Text    *struct {
		Format *struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict"`
		} `json:"format"`
	} `json:"text"`
	Stream bool `json:"stream"`
}

// respMessageShape is a "message" item: an easy input message (role and
// content, a string or input parts) or, with its id, an output message
// as the response gave it (id, role assistant, status, output_text or
// refusal parts).
type respMessageShape struct {
	Type    string          `json:"type"`
	ID      *string         `json:"id"`
	Role    string          `json:"role"`
	Status  *string         `json:"status"`
	Content json.RawMessage `json:"content"`
}

type respOutputPartShape struct {
	Type        string            `json:"type"` // output_text, refusal
	Text        *string           `json:"text"`
	Annotations []json.RawMessage `json:"annotations"`
	Logprobs    []json.RawMessage `json:"logprobs"`
	Refusal     *string           `json:"refusal"`
}

type respInputPartShape struct {
	Type string `json:"type"` // input_text
	Text string `json:"text"`
}

type respCallShape struct {
	Type      string  `json:"type"`
	ID        *string `json:"id"`
	CallID    string  `json:"call_id"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Status    *string `json:"status"`
}

type respCallOutputShape struct {
	Type   string          `json:"type"`
	ID     *string         `json:"id"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"` // a string or content parts
	Status *string         `json:"status"`
}

type respReasoningShape struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Summary []struct {
		Type string `json:"type"` // summary_text
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type string `json:"type"` // reasoning_text
		Text string `json:"text"`
	} `json:"content"`
	EncryptedContent *string `json:"encrypted_content"`
	Status           *string `json:"status"`
}

type respWebSearchShape struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Status string `json:"status"`
	Action struct {
		Type    string `json:"type"` // search, open_page, find
		Query   string `json:"query"`
		Sources []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"sources"`
		URL     string `json:"url"`
		Pattern string `json:"pattern"`
	} `json:"action"`
}

// respCustomCallShape is a custom_tool_call item. Its "status" is not in
// the published input type; it is allowed because the item is the
// server's own output item, sent back unchanged as OpenAI's conversation
// state guide asks, and the recorded stream's item carries it.
type respCustomCallShape struct {
	Type   string  `json:"type"`
	ID     *string `json:"id"`
	CallID string  `json:"call_id"`
	Name   string  `json:"name"`
	Input  string  `json:"input"`
	Status *string `json:"status"`
}

// responsesShape is what of body the Responses schema does not allow: a
// member it does not define, a value of the wrong type or outside its
// enum, an item of no type it knows.
func responsesShape(body []byte) []string {
	var c shapeCheck
	var v respReqShape
	if !c.decode(body, &v) {
		return c.errs
	}
	if !v.Stream || v.Model == "" || v.Input == nil {
		c.errorf("stream %v, model %q, input %v in %s", v.Stream, v.Model, v.Input != nil, body)
	}
	for _, raw := range v.Input {
		var item struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &item) != nil {
			c.errorf("input item %s", raw)
			continue
		}
		switch item.Type {
		case "message":
			var m respMessageShape
			if c.decode(raw, &m) {
				responsesMessage(&c, &m)
			}
		case "function_call":
			var f respCallShape
			if c.decode(raw, &f) && (f.CallID == "" || !schemaName.MatchString(f.Name) || !json.Valid([]byte(f.Arguments))) {
				c.errorf("function_call %s", raw)
			}
		case "function_call_output":
			var f respCallOutputShape
			if c.decode(raw, &f) && (f.CallID == "" || (jsonKind(f.Output) != "string" && jsonKind(f.Output) != "array")) {
				c.errorf("function_call_output %s", raw)
			}
		case "reasoning":
			var r respReasoningShape
			if c.decode(raw, &r) && (r.ID == "" || r.Summary == nil) {
				c.errorf("reasoning item without id or summary: %s", raw)
			}
			for _, s := range r.Summary {
				if s.Type != "summary_text" {
					c.errorf("summary part %q", s.Type)
				}
			}
			for _, s := range r.Content {
				if s.Type != "reasoning_text" {
					c.errorf("reasoning content part %q", s.Type)
				}
			}
		case "web_search_call":
			var w respWebSearchShape
			if c.decode(raw, &w) && (w.ID == "" || !oneOf(w.Action.Type, "search open_page find")) {
				c.errorf("web_search_call %s", raw)
			}
		case "custom_tool_call":
			var w respCustomCallShape
			if c.decode(raw, &w) && (w.CallID == "" || w.Name == "") {
				c.errorf("custom_tool_call %s", raw)
			}
		default:
			c.errorf("input item of type %q: %s", item.Type, raw)
		}
	}
	for _, tool := range v.Tools {
		if tool.Type != "function" || !schemaName.MatchString(tool.Name) || jsonKind(tool.Parameters) != "object" || tool.Strict == nil {
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
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if c.decode(v.ToolChoice, &tc) && (tc.Type != "function" || tc.Name == "") {
			c.errorf("tool_choice %s", v.ToolChoice)
		}
	}
	if r := v.Reasoning; r != nil {
		if r.Effort != nil && !oneOf(*r.Effort, "none minimal low medium high xhigh") {
			c.errorf("reasoning.effort %q", *r.Effort)
		}
		if r.Summary != nil && !oneOf(*r.Summary, "auto concise detailed") {
			c.errorf("reasoning.summary %q", *r.Summary)
		}
	}
	for _, inc := range v.Include {
		if !oneOf(inc, "reasoning.encrypted_content message.output_text.logprobs web_search_call.action.sources file_search_call.results code_interpreter_call.outputs message.input_image.image_url computer_call_output.output.image_url") {
			c.errorf("include %q", inc)
		}
	}
	if tx := v.Text; tx != nil && tx.Format != nil {
		if f := tx.Format; !oneOf(f.Type, "text json_object json_schema") || (f.Type == "json_schema" && (!schemaName.MatchString(f.Name) || jsonKind(f.Schema) != "object")) {
			c.errorf("text.format in %s", body)
		}
	}
	return c.errs
}

// responsesMessage checks a message item: with an id, an output message;
// without, an easy input message.
func responsesMessage(c *shapeCheck, m *respMessageShape) {
	if m.ID != nil {
		if m.Role != "assistant" || m.Status == nil || !oneOf(*m.Status, "in_progress completed incomplete") || jsonKind(m.Content) != "array" {
			c.errorf("output message %+v", m)
			return
		}
		var parts []respOutputPartShape
		if !c.decode(m.Content, &parts) {
			return
		}
		for _, p := range parts {
			switch {
			case p.Type == "output_text" && p.Text != nil && p.Annotations != nil && p.Refusal == nil:
			case p.Type == "refusal" && p.Refusal != nil && p.Text == nil && p.Annotations == nil:
			default:
				c.errorf("output message part %+v", p)
			}
		}
		return
	}
	if !oneOf(m.Role, "user assistant system developer") || m.Status != nil {
		c.errorf("input message role %q, status %v", m.Role, m.Status)
	}
	switch jsonKind(m.Content) {
	case "string":
	case "array":
		var parts []respInputPartShape
		if !c.decode(m.Content, &parts) {
			return
		}
		for _, p := range parts {
			if p.Type != "input_text" {
				c.errorf("input message part of type %q: %s", p.Type, m.Content)
			}
		}
	default:
		c.errorf("input message content %s", m.Content)
	}
}

// TestResponsesRequestShape: every request the Responses encoder writes
// has only the members the Responses API defines, each of its type and
// enum, every input item of a type it takes; and the check fails a body
// that breaks the schema in each way it looks for.
func TestResponsesRequestShape(t *testing.T) {
	var bodies [][]byte
	for _, r := range shapeRequests(t, "gpt-5") {
		bodies = append(bodies, sentBody(t, DialectResponses, r))
	}
	valid := []byte(`{"model":"gpt-5","stream":true,"store":false,"include":["reasoning.encrypted_content"],"instructions":"s",` +
		`"input":[{"type":"message","role":"user","content":"u"},` +
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"gA"},` +
		`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"a","annotations":[]}]},` +
		`{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c1","output":"r"},` +
		`{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}}],` +
		`"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"strict":false}],` +
		`"tool_choice":{"type":"function","name":"f"},"reasoning":{"effort":"low","summary":"auto"},` +
		`"text":{"format":{"type":"json_schema","name":"answer","schema":{"type":"object"},"strict":true}}}`)
	checkShapes(t, bodies, responsesShape, valid, []shapeBreak{
		{"unknown top-level member", `"store":false,`, `"store":false,"stop":["x"],`},
		{"chat's messages member", `"store":false,`, `"store":false,"messages":[],`},
		{"unknown input message member", `"role":"user",`, `"role":"user","name":"n",`},
		{"unknown reasoning member", `"id":"rs_1",`, `"id":"rs_1","signature":"s",`},
		{"unknown output part member", `"text":"a",`, `"text":"a","logprob":1,`},
		{"unknown function_call member", `"call_id":"c1","name"`, `"call_id":"c1","caller":{},"name"`},
		{"unknown function_call_output member", `"output":"r"`, `"output":"r","is_error":true`},
		{"unknown tool member", `"name":"f","parameters"`, `"name":"f","function":{},"parameters"`},
		{"unknown text.format member", `"name":"answer",`, `"name":"answer","json_schema":{},`},
		{"an item of no known type", `{"type":"function_call_output"`, `{"type":"tool_result"`},
		{"refusal part in an input message", `"content":"u"`, `"content":[{"type":"refusal","refusal":"no"}]`},
		{"output message without status", `"status":"completed","content":[{"type":"output_text"`, `"content":[{"type":"output_text"`},
		{"output_text without annotations", `,"annotations":[]`, ``},
		{"reasoning without summary", `"summary":[{"type":"summary_text","text":"t"}],`, ``},
		{"arguments as an object", `"arguments":"{}"`, `"arguments":{}`},
		{"store as a string", `"store":false`, `"store":"false"`},
		{"tool_choice in chat's shape", `"tool_choice":{"type":"function","name":"f"}`, `"tool_choice":{"type":"function","function":{"name":"f"}}`},
		{"tool_choice outside its enum", `"tool_choice":{"type":"function","name":"f"}`, `"tool_choice":"any"`},
		{"effort outside its enum", `"effort":"low"`, `"effort":"max"`},
		{"summary outside its enum", `"summary":"auto"`, `"summary":"full"`},
		{"include outside its enum", `"reasoning.encrypted_content"`, `"reasoning.content"`},
		{"tool without strict", `,"strict":false`, ``},
	})
}
