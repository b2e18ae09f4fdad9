package llmstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Message is one chat message in the OpenAI chat-completions shape.
//
// It marshals to and from the OpenAI chat message JSON (role, content,
// tool_calls, tool_call_id, name, refusal), so a Message returned by
// [Client.Stream] or [ReadMessage] can be appended to the next request as it
// is. Reasoning, FinishReason and Usage describe the response and are never
// marshaled: several servers reject reasoning text sent back to them.
//
// Content is always present in the JSON, except for an assistant message that
// carries tool calls and no text, which OpenAI-compatible servers accept
// without it. When unmarshaling, content may be a string, null, or an array of
// content parts, whose "text" members are joined.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string
	// Content is the message text.
	Content string
	// ToolCalls are the complete tool calls of an assistant message, in the
	// order the model emitted them (ascending stream index).
	ToolCalls []ToolCall
	// ToolCallID names the call a "tool" message answers.
	ToolCallID string
	// Name is the optional participant name.
	Name string

	// Reasoning is the reasoning text ("reasoning_content" or "reasoning")
	// some models stream before their answer. Not marshaled.
	Reasoning string
	// Refusal is the model's refusal text, if it refused.
	Refusal string
	// FinishReason is the provider's finish reason ("stop", "tool_calls",
	// "length", "content_filter", ...) as sent; empty if none arrived. A
	// message with tool calls is a tool-call turn whatever it says. Not marshaled.
	FinishReason string
	// Usage is the token accounting of the response, nil when the provider
	// sent none. Not marshaled.
	Usage *Usage
}

// ToolCall is one complete tool call of an assistant message.
type ToolCall struct {
	// ID identifies the call; the "tool" message that answers it carries
	// the same ID. Calls whose provider sent no ID get "call_<index>".
	ID string
	// Type is "function".
	Type string
	// Function names the function and carries its arguments.
	Function FunctionCall
	// Extra holds the provider's other members of the tool-call object as
	// one JSON object (for example Gemini's "extra_content" with its
	// thought signature), nil when there were none. They are written back
	// when the message is marshaled, because some providers degrade when a
	// call comes back without them.
	Extra json.RawMessage
}

// FunctionCall is the function part of a [ToolCall].
type FunctionCall struct {
	// Name is the function's name.
	Name string `json:"name"`
	// Arguments is the arguments as JSON text, as the model produced them
	// ("{}" when none arrived). In a message from this package it has been
	// validated as JSON.
	Arguments string `json:"arguments"`
}

// Usage is the token accounting a provider reports for one response.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedTokens is prompt_tokens_details.cached_tokens, 0 if absent.
	CachedTokens int `json:"-"`
	// ReasoningTokens is completion_tokens_details.reasoning_tokens, 0 if absent.
	ReasoningTokens int `json:"-"`
}

// Tool is a tool offered to the model in a request, in the OpenAI shape
// {"type":"function","function":{"name","description","parameters"}}.
type Tool struct {
	// Type is "function"; empty marshals as "function".
	Type string
	// Function describes the function.
	Function ToolFunction
}

// ToolFunction is the function part of a [Tool].
type ToolFunction struct {
	// Name is the function name the model will call.
	Name string `json:"name"`
	// Description tells the model what the function does.
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object; nil is sent as
	// an empty object schema.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// Strict asks for structured-output adherence where supported.
	Strict *bool `json:"strict,omitempty"`
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Refusal    string          `json:"refusal,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes the OpenAI chat message JSON.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, Refusal: m.Refusal, Name: m.Name, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	if !(m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) > 0) {
		c, err := json.Marshal(m.Content)
		if err != nil {
			return nil, err
		}
		w.Content = c
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the OpenAI chat message JSON. Content may be a string,
// null, or an array of content parts.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	content, err := contentText(w.Content)
	if err != nil {
		return err
	}
	*m = Message{Role: w.Role, Content: content, Refusal: w.Refusal, Name: w.Name, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID}
	return nil
}

// contentText turns a content value into text: a string as it is, null as
// "", an array of parts as the concatenation of their "text" members.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b []byte
		for _, p := range parts {
			b = append(b, p.Text...)
		}
		return string(b), nil
	}
	return "", fmt.Errorf("llmstream: message content is neither a string, null nor an array: %.40s", raw)
}

// MarshalJSON writes {"id","type","function":{"name","arguments"}} followed
// by the members of Extra.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	typ := c.Type
	if typ == "" {
		typ = "function"
	}
	b, err := json.Marshal(struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function FunctionCall `json:"function"`
	}{c.ID, typ, c.Function})
	if err != nil {
		return nil, err
	}
	extra := bytes.TrimSpace(c.Extra)
	if len(extra) == 0 || string(extra) == "null" {
		return b, nil
	}
	if extra[0] != '{' || !json.Valid(extra) {
		return nil, errors.New("llmstream: ToolCall.Extra is not a JSON object")
	}
	inner := bytes.TrimSpace(extra[1 : len(extra)-1])
	if len(inner) == 0 {
		return b, nil
	}
	out := make([]byte, 0, len(b)+len(inner)+1)
	out = append(out, b[:len(b)-1]...)
	out = append(out, ',')
	out = append(out, inner...)
	return append(out, '}'), nil
}

// UnmarshalJSON reads a tool-call object; members other than id, type,
// function and index are kept in Extra.
func (c *ToolCall) UnmarshalJSON(data []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	var out ToolCall
	for k, v := range members {
		var err error
		switch k {
		case "id":
			err = json.Unmarshal(v, &out.ID)
		case "type":
			err = json.Unmarshal(v, &out.Type)
		case "function":
			err = out.Function.unmarshal(v)
		case "index":
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("llmstream: tool call %q: %w", k, err)
		}
		delete(members, k)
	}
	delete(members, "index")
	if len(members) > 0 {
		extra, err := json.Marshal(members)
		if err != nil {
			return err
		}
		out.Extra = extra
	}
	*c = out
	return nil
}

// unmarshal reads a function object whose arguments may be a JSON string
// or, as some proxies send them, a JSON value taken as its own text.
func (f *FunctionCall) unmarshal(data []byte) error {
	var w struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	f.Name = w.Name
	args := bytes.TrimSpace(w.Arguments)
	switch {
	case len(args) == 0 || string(args) == "null":
		f.Arguments = ""
	case args[0] == '"':
		return json.Unmarshal(args, &f.Arguments)
	default:
		f.Arguments = string(args)
	}
	return nil
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details,omitempty"`
}

// UnmarshalJSON reads the OpenAI usage object, including the cached and
// reasoning token details.
func (u *Usage) UnmarshalJSON(data []byte) error {
	var w wireUsage
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*u = Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, TotalTokens: w.TotalTokens}
	if w.PromptTokensDetails != nil {
		u.CachedTokens = w.PromptTokensDetails.CachedTokens
	}
	if w.CompletionTokensDetails != nil {
		u.ReasoningTokens = w.CompletionTokensDetails.ReasoningTokens
	}
	return nil
}

// MarshalJSON writes the OpenAI usage object.
func (u Usage) MarshalJSON() ([]byte, error) {
	w := wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CachedTokens != 0 {
		w.PromptTokensDetails = &struct {
			CachedTokens int `json:"cached_tokens"`
		}{u.CachedTokens}
	}
	if u.ReasoningTokens != 0 {
		w.CompletionTokensDetails = &struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		}{u.ReasoningTokens}
	}
	return json.Marshal(w)
}

// MarshalJSON writes {"type":"function","function":{...}}; a nil
// Parameters is sent as {"type":"object","properties":{}}.
func (t Tool) MarshalJSON() ([]byte, error) {
	typ := t.Type
	if typ == "" {
		typ = "function"
	}
	fn := t.Function
	if len(fn.Parameters) == 0 {
		fn.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return json.Marshal(struct {
		Type     string       `json:"type"`
		Function ToolFunction `json:"function"`
	}{typ, fn})
}

// UnmarshalJSON reads the OpenAI tool object.
func (t *Tool) UnmarshalJSON(data []byte) error {
	var w struct {
		Type     string       `json:"type"`
		Function ToolFunction `json:"function"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Tool{Type: w.Type, Function: w.Function}
	return nil
}
