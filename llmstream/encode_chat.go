package llmstream

import (
	"encoding/json"
	"slices"
)

// This file writes the OpenAI Chat Completions request (DialectChat).

// wireMessage is a message as the chat dialect sends it: the OpenAI
// message alone (continuity and is_error are this package's, and servers
// reject members they do not know).
type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Refusal    string          `json:"refusal,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	// ReasoningDetails are the encrypted reasoning entries an
	// OpenRouter-style server sent, back as it documents: on the assistant
	// message, each entry unchanged.
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
}

// chatWire is m as the chat dialect sends it, its calls' arguments made
// sendable (sentCalls).
func chatWire(m *Message) (wireMessage, error) {
	w := wireMessage{Role: m.Role, Refusal: m.Refusal, Name: m.Name, ToolCalls: sentCalls(m.ToolCalls), ToolCallID: m.ToolCallID}
	if m.Role == "tool" {
		// OpenAI's tool message has no name (the call's id says what it
		// answers), and servers that check the schema refuse one; a Name
		// set for Gemini, which pairs answers by name, stays out.
		w.Name = ""
	}
	if !m.callsOnly() {
		c, err := json.Marshal(m.Content)
		if err != nil {
			return w, err
		}
		w.Content = c
	}
	if m.Continuity != nil && m.Continuity.Dialect == DialectChat {
		for _, blk := range m.Continuity.Blocks {
			if blk.Type == chatReasoningBlock && json.Valid(blk.Raw) {
				w.ReasoningDetails = append(w.ReasoningDetails, blk.Raw)
			}
		}
	}
	return w, nil
}

type chatRequest struct {
	Model               string         `json:"model,omitempty"`
	Messages            []wireMessage  `json:"messages"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	Tools               []Tool         `json:"tools,omitempty"`
	ToolChoice          any            `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool          `json:"parallel_tool_calls,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	TopP                *float64       `json:"top_p,omitempty"`
	MaxTokens           *int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int           `json:"max_completion_tokens,omitempty"`
	Stop                []string       `json:"stop,omitempty"`
	Seed                *int64         `json:"seed,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	ResponseFormat      any            `json:"response_format,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// encode writes the chat.completions request.
func (chatProtocol) encode(r *Request, cfg *config) ([]byte, error) {
	r.Messages = portable(r.Messages, DialectChat) // a conversation may come from another dialect
	w := chatRequest{
		Model: r.Model, Messages: make([]wireMessage, len(r.Messages)), Stream: true, Tools: r.Tools,
		ParallelToolCalls: r.ParallelToolCalls, Temperature: r.Temperature, TopP: r.TopP,
		MaxTokens: r.MaxTokens, MaxCompletionTokens: r.MaxCompletionTokens, Stop: r.Stop,
		Seed: r.Seed, ReasoningEffort: r.ReasoningEffort,
	}
	for i := range r.Messages {
		var err error
		if w.Messages[i], err = chatWire(&r.Messages[i]); err != nil {
			return nil, err
		}
	}
	switch c := r.ToolChoice; c.Mode {
	case ToolChoiceAuto, ToolChoiceNone, ToolChoiceRequired:
		w.ToolChoice = c.Mode.String()
	case ToolChoiceFunction:
		w.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": c.Name}}
	}
	w.ResponseFormat = chatOutput(r.Output)
	if !cfg.noUsage {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	return json.Marshal(w)
}

// sentCalls is calls as a request sends them: with arguments that are not
// one JSON object (a call agentloop refused and answered) written as {}.
// vLLM, SGLang and llama.cpp's server parse the arguments of every call in
// a conversation and refuse the request when they are not an object, and
// would refuse every later turn of it the same way; the tool message that
// answers the call says what the model sent wrong. calls itself is
// returned when every call is sendable, else a copy.
func sentCalls(calls []ToolCall) []ToolCall {
	for i := range calls {
		if args := sentArguments(calls[i].Function.Arguments); args != calls[i].Function.Arguments {
			out := slices.Clone(calls)
			for j := i; j < len(out); j++ {
				out[j].Function.Arguments = sentArguments(out[j].Function.Arguments)
			}
			return out
		}
	}
	return calls
}

// chatOutput is the response_format that asks for a structured answer,
// nil for none: {"type": "json_schema", "json_schema": {"name", "schema",
// "strict"}}, as
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format
// and https://platform.openai.com/docs/guides/structured-outputs document.
func chatOutput(o *OutputSchema) any {
	if o == nil {
		return nil
	}
	type jsonSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	return struct {
		Type       string     `json:"type"`
		JSONSchema jsonSchema `json:"json_schema"`
	}{"json_schema", jsonSchema{o.name(), o.Schema, o.Strict}}
}
