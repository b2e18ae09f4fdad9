package llmstream

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/airlock-go/airlock/toolcall"
)

// whole reads a non-streaming chat completion, which some servers send
// when they ignore "stream": true, into the same materialized message. Its
// tool calls go through the assembler, so they are validated the same way.
func (b *Bridge) whole(r io.Reader) (Message, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		b.fail(err)
		return b.Message()
	}
	var resp struct {
		Choices []struct {
			Index        int             `json:"index"`
			Message      json.RawMessage `json:"message"`
			FinishReason string          `json:"finish_reason"`
		} `json:"choices"`
		Usage *Usage          `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		b.fail(&EventError{Data: data, Err: fmt.Errorf("a JSON completion: %w", err)})
		return b.Message()
	}
	if len(resp.Error) > 0 && string(resp.Error) != "null" {
		b.fail(apiErrorFrom(data, 0))
		return b.Message()
	}
	b.usage = resp.Usage
	for _, ch := range resp.Choices {
		if ch.Index != 0 {
			continue
		}
		var m Message
		var thinking struct {
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		}
		if err := json.Unmarshal(ch.Message, &m); err != nil {
			b.fail(&EventError{Data: data, Err: fmt.Errorf("a JSON completion's message: %w", err)})
			break
		}
		json.Unmarshal(ch.Message, &thinking) // same bytes, already decoded once
		b.role, b.finish = m.Role, ch.FinishReason
		b.content = append(b.content, m.Content...)
		b.reasoning = append(b.reasoning, thinking.ReasoningContent...)
		if len(b.reasoning) == 0 {
			b.reasoning = append(b.reasoning, thinking.Reasoning...)
		}
		b.refusal = append(b.refusal, m.Refusal...)
		for i, c := range m.ToolCalls {
			if err := b.asm.Add(toolcall.Fragment{Index: i, ID: c.ID, Type: c.Type, Name: c.Function.Name, Arguments: c.Function.Arguments, Extra: c.Extra}); err != nil {
				b.fail(err)
				break
			}
		}
	}
	b.done = true
	return b.Message()
}
