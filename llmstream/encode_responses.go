package llmstream

import (
	"encoding/json"
	"strings"
)

// This file writes Responses API requests from the neutral Request.
//
// The request is stateless by default: "store": false, with "include":
// ["reasoning.encrypted_content"] (left out for models that do not reason,
// which refuse it), so that the reasoning items a response carries come
// back with their encrypted content and go back in the next request whole,
// with no state kept on the server. Request.Extra may set
// "store", "include" and "reasoning" itself for this dialect: what it sets
// replaces what the dialect would write (the only members Extra may
// replace), so {"store": true} keeps the conversation on the server and
// {"reasoning": {"effort": "high"}} asks for no reasoning summary.
//
// Stop sequences, the seed and a thinking budget have no Responses
// setting and are not sent.

type respRequest struct {
	Model             string                `json:"model,omitempty"`
	Instructions      string                `json:"instructions,omitempty"`
	Input             []json.RawMessage     `json:"input"`
	Tools             []respTool            `json:"tools,omitempty"`
	ToolChoice        any                   `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool                 `json:"parallel_tool_calls,omitempty"`
	Temperature       *float64              `json:"temperature,omitempty"`
	TopP              *float64              `json:"top_p,omitempty"`
	MaxOutputTokens   *int                  `json:"max_output_tokens,omitempty"`
	Reasoning         *respReasoningSetting `json:"reasoning,omitempty"`
	Store             *bool                 `json:"store,omitempty"`
	Include           []string              `json:"include,omitempty"`
	Text              any                   `json:"text,omitempty"`
	Stream            bool                  `json:"stream"`
}

type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type respReasoningSetting struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// nonReasoningModel reports whether model names one of OpenAI's models
// that do not reason, which refuse "include":
// ["reasoning.encrypted_content"] with a 400 ("Encrypted content is not
// supported with this model"): the GPT-4 and GPT-3.5 families, chatgpt-*
// and the *-chat-latest aliases (gpt-5-chat-latest). A provider prefix
// ("openai/gpt-4o") is looked through. Any other name, and no name, may
// reason: a model that reasons and is not asked for its encrypted
// reasoning loses it between turns without a word, which is worse than a
// 400 that names the cause.
func nonReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return strings.HasPrefix(m, "gpt-4") || strings.HasPrefix(m, "gpt-3.5") ||
		strings.HasPrefix(m, "chatgpt-") || strings.Contains(m, "chat-latest")
}

// encode writes the Responses request: system and developer messages
// become "instructions"; user messages, an assistant's text and calls
// (function_call items), tool answers (function_call_output items) become
// input items; an assistant's continuity state (reasoning items and other
// items, the ids of its message and call items) goes back in its place.
func (responsesProtocol) encode(r *Request, _ *config) ([]byte, error) {
	r.Messages = portable(r.Messages, DialectResponses) // a conversation may come from another dialect
	w := respRequest{
		Model: r.Model, Stream: true, Input: []json.RawMessage{},
		ParallelToolCalls: r.ParallelToolCalls, Temperature: r.Temperature, TopP: r.TopP,
		MaxOutputTokens: r.maxTokens(),
	}
	w.Text = responsesOutput(r.Output)
	_, extraStore := r.Extra["store"]
	if !extraStore {
		w.Store = new(bool)
	}
	if _, ok := r.Extra["include"]; !ok && (r.ReasoningEffort != "" || !nonReasoningModel(r.Model)) {
		w.Include = []string{"reasoning.encrypted_content"}
	}
	if _, ok := r.Extra["reasoning"]; !ok && r.ReasoningEffort != "" {
		w.Reasoning = &respReasoningSetting{Effort: r.ReasoningEffort, Summary: "auto"}
	}
	// Without the server's copy, a reasoning item with no encrypted content
	// cannot be resolved by its id.
	stateless := !extraStore || r.Extra["store"] == false

	var system []string
	for i := range r.Messages {
		m := &r.Messages[i]
		var items []json.RawMessage
		var err error
		switch m.Role {
		case "system", "developer":
			if m.Content != "" {
				system = append(system, m.Content)
			}
			continue
		case "assistant":
			items, err = responsesAssistant(m, stateless)
		case "tool":
			items, err = marshalItems(struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
				Output string `json:"output"`
			}{"function_call_output", m.ToolCallID, m.Content})
		default:
			if m.Content == "" {
				continue
			}
			items, err = marshalItems(inputMessage{Type: "message", Role: m.Role, Content: m.Content})
		}
		if err != nil {
			return nil, err
		}
		w.Input = append(w.Input, items...)
	}
	w.Instructions = strings.Join(system, "\n\n")
	for _, t := range r.Tools {
		rt := respTool{Type: "function", Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}
		if len(rt.Parameters) == 0 {
			rt.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		// The Responses API makes a tool strict when "strict" is left out,
		// which rejects or bends most schemas written for chat: unset
		// means false, as in chat.
		if t.Function.Strict != nil {
			rt.Strict = *t.Function.Strict
		}
		w.Tools = append(w.Tools, rt)
	}
	switch c := r.ToolChoice; c.Mode {
	case ToolChoiceAuto, ToolChoiceNone, ToolChoiceRequired:
		w.ToolChoice = c.Mode.String()
	case ToolChoiceFunction:
		w.ToolChoice = map[string]string{"type": "function", "name": c.Name}
	}
	return json.Marshal(w)
}

// inputMessage is a message input item whose content is plain text.
type inputMessage struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

// outputMessage is an assistant's message item as the response gave it,
// with its id.
type outputMessage struct {
	Type    string       `json:"type"`
	ID      string       `json:"id"`
	Role    string       `json:"role"`
	Status  string       `json:"status"`
	Content []outputText `json:"content"`
}

type outputText struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func marshalItems(vs ...any) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return out, nil
}

// responsesAssistant writes an assistant message's items: from its
// continuity state when it came from this dialect (in the response's
// order, with the ids of its message and call items), else its text, its
// refusal, then its calls.
func responsesAssistant(m *Message, stateless bool) ([]json.RawMessage, error) {
	var out []json.RawMessage
	ids := false
	var placedBlocks []placed
	if c := m.Continuity; c != nil && c.Dialect == DialectResponses {
		var ok bool
		placedBlocks, ok = placeBlocks(m, c.Blocks)
		// The server ties call and message ids to the reasoning item
		// before them: send the ids only when all of it goes back.
		ids = ok
		for _, blk := range c.Blocks {
			if len(blk.Raw) > 0 && !keepRaw(&blk, stateless) {
				ids = false
			}
		}
		if !ok {
			placedBlocks = nil
			for _, blk := range c.Blocks {
				if len(blk.Raw) > 0 && keepRaw(&blk, stateless) {
					out = append(out, blk.Raw)
				}
			}
		}
	}
	if placedBlocks != nil {
		for _, p := range placedBlocks {
			raw, err := responsesItem(p, stateless, ids)
			if err != nil {
				return nil, err
			}
			if raw != nil {
				out = append(out, raw)
			}
		}
	} else {
		if m.Content != "" {
			raw, err := json.Marshal(inputMessage{Type: "message", Role: "assistant", Content: m.Content})
			if err != nil {
				return nil, err
			}
			out = append(out, raw)
		}
		for i := range m.ToolCalls {
			raw, err := functionCall(&m.ToolCalls[i], "")
			if err != nil {
				return nil, err
			}
			out = append(out, raw)
		}
	}
	// A refusal goes back as the assistant's text: a refusal part belongs
	// only to an output message, whose id and status the API requires and
	// a refusal kept here has none of; an input message's content takes
	// input parts, not a refusal.
	if m.Refusal != "" {
		raw, err := json.Marshal(inputMessage{Type: "message", Role: "assistant", Content: m.Refusal})
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	// The API takes a reasoning item only with the output item that
	// followed it ("... was provided without its required following
	// item"): one the turn ended on (a length stop while reasoning) stays
	// out.
	for len(out) > 0 && isReasoning(out[len(out)-1]) {
		out = out[:len(out)-1]
	}
	return out, nil
}

// isReasoning reports whether raw is a reasoning item.
func isReasoning(raw json.RawMessage) bool {
	var item struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &item) == nil && item.Type == "reasoning"
}

// keepRaw reports whether a raw block goes back: a reasoning item with no
// encrypted content names state the server does not have when nothing is
// stored, and the API refuses it.
func keepRaw(blk *Block, stateless bool) bool {
	if blk.Type != "reasoning" || !stateless {
		return true
	}
	var item struct {
		EncryptedContent string `json:"encrypted_content"`
	}
	return json.Unmarshal(blk.Raw, &item) == nil && item.EncryptedContent != ""
}

// responsesItem writes one placed block as a Responses input item; nil
// for none.
func responsesItem(p placed, stateless, ids bool) (json.RawMessage, error) {
	id := ""
	if ids && p.block != nil {
		id = p.block.ID
	}
	switch {
	case p.call != nil:
		return functionCall(p.call, id)
	case p.text:
		if p.content == "" {
			return nil, nil
		}
		if id == "" {
			return json.Marshal(inputMessage{Type: "message", Role: "assistant", Content: p.content})
		}
		return json.Marshal(outputMessage{Type: "message", ID: id, Role: "assistant", Status: "completed",
			Content: []outputText{{Type: "output_text", Text: p.content, Annotations: []any{}}}})
	}
	if len(p.raw) == 0 || !keepRaw(p.block, stateless) {
		return nil, nil
	}
	return p.raw, nil
}

// functionCall is a call as a function_call item; id is the item's id, ""
// for none.
func functionCall(c *ToolCall, id string) (json.RawMessage, error) {
	return json.Marshal(functionCallItem{Type: "function_call", ID: id, CallID: c.ID, Name: c.Function.Name, Arguments: sentArguments(c.Function.Arguments)})
}

// responsesOutput is the "text" member that asks for a structured
// answer, nil for none: {"format": {"type": "json_schema", "name",
// "schema", "strict"}}, as
// https://platform.openai.com/docs/api-reference/responses/create#responses-create-text
// documents (the format sits flat in "text.format", unlike chat's
// response_format.json_schema).
func responsesOutput(o *OutputSchema) any {
	if o == nil {
		return nil
	}
	type format struct {
		Type   string          `json:"type"`
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	return struct {
		Format format `json:"format"`
	}{format{"json_schema", o.name(), o.Schema, o.Strict}}
}
