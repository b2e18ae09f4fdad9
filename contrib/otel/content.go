package otel

import (
	"encoding/json"

	"github.com/airlock-go/airlock/llmstream"
	"go.opentelemetry.io/otel/attribute"
)

// chatMessage and part are the conventions' message JSON (the input and
// output messages schemas): a role and its parts.
type chatMessage struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  *string         `json:"response,omitempty"`
}

// messageParts turns one llmstream message into the conventions' form:
// reasoning, text, refusal and tool calls of an assistant; a tool's answer
// as a tool_call_response. Arguments that are valid JSON go in as they
// are (the conventions want an object), others as a JSON string.
func messageParts(m *llmstream.Message) chatMessage {
	c := chatMessage{Role: m.Role, Parts: []part{}}
	if m.Role == "tool" {
		c.Parts = append(c.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Response: &m.Content})
		return c
	}
	if m.Reasoning != "" {
		c.Parts = append(c.Parts, part{Type: "reasoning", Content: m.Reasoning})
	}
	if m.Content != "" {
		c.Parts = append(c.Parts, part{Type: "text", Content: m.Content})
	}
	if m.Refusal != "" {
		c.Parts = append(c.Parts, part{Type: "refusal", Content: m.Refusal})
	}
	for _, tc := range m.ToolCalls {
		c.Parts = append(c.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Function.Name, Arguments: jsonValue(tc.Function.Arguments)})
	}
	return c
}

// jsonValue is s itself when it is JSON text, else s as a JSON string.
func jsonValue(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// appendInput adds the gen_ai.input.messages and (when there are any)
// gen_ai.system_instructions of a request. System messages go to the
// instructions in the dialects that send them apart from the conversation
// (all but chat), as the conventions ask.
func appendInput(attrs []attribute.KeyValue, d llmstream.Dialect, msgs []llmstream.Message) []attribute.KeyValue {
	in := make([]chatMessage, 0, len(msgs))
	var sys []part
	for i := range msgs {
		if msgs[i].Role == "system" && d != llmstream.DialectChat {
			sys = append(sys, part{Type: "text", Content: msgs[i].Content})
			continue
		}
		in = append(in, messageParts(&msgs[i]))
	}
	b, _ := json.Marshal(in)
	attrs = append(attrs, keyInputMessages.String(string(b)))
	if sys != nil {
		b, _ = json.Marshal(sys)
		attrs = append(attrs, keySystem.String(string(b)))
	}
	return attrs
}

// outputContent gives the gen_ai.output.messages JSON of a response.
func outputContent(m *llmstream.Message) string {
	c := messageParts(m)
	c.Role = "assistant"
	c.FinishReason = m.FinishReason
	b, _ := json.Marshal([]chatMessage{c})
	return string(b)
}
