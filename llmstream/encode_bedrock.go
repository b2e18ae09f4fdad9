package llmstream

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file writes Bedrock ConverseStream requests from the neutral
// Request. The model is in the URL, so the body has no "model" member.

type bedrockRequest struct {
	Messages        []bedrockMessage `json:"messages"`
	System          []bedrockText    `json:"system,omitempty"`
	InferenceConfig *bedrockInfer    `json:"inferenceConfig,omitempty"`
	ToolConfig      *bedrockTools    `json:"toolConfig,omitempty"`
	Additional      map[string]any   `json:"additionalModelRequestFields,omitempty"`
	OutputConfig    any              `json:"outputConfig,omitempty"`
}

type bedrockMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

type bedrockText struct {
	Text string `json:"text"`
}

type bedrockInfer struct {
	MaxTokens     *int     `json:"maxTokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"topP,omitempty"`
	StopSequences []string `json:"stopSequences,omitempty"`
}

type bedrockTools struct {
	Tools      []bedrockToolSpec `json:"tools"`
	ToolChoice map[string]any    `json:"toolChoice,omitempty"`
}

type bedrockToolSpec struct {
	ToolSpec struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		InputSchema struct {
			JSON json.RawMessage `json:"json"`
		} `json:"inputSchema"`
	} `json:"toolSpec"`
}

// encode writes the Converse request: system messages become "system",
// consecutive tool answers one user message of toolResult blocks, an
// assistant's calls toolUse blocks with their input objects, and its
// reasoning blocks go back where they were. Bedrock refuses blank text
// blocks and two messages of one role in a row, so blank text is left out
// and such messages are joined.
func (bedrockProtocol) encode(r *Request, _ *config) ([]byte, error) {
	r.Messages = portable(r.Messages, DialectBedrock) // a conversation may come from another dialect
	w := bedrockRequest{Messages: []bedrockMessage{}, OutputConfig: bedrockOutput(r.Output)}
	toolBlocks := false
	for i := range r.Messages {
		m := &r.Messages[i]
		if m.Role == "system" || m.Role == "developer" {
			if strings.TrimSpace(m.Content) != "" {
				w.System = append(w.System, bedrockText{m.Content})
			}
			continue
		}
		role, blocks, err := bedrockBlocks(m)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			continue
		}
		toolBlocks = toolBlocks || m.Role == "tool" || len(m.ToolCalls) > 0
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
			w.Messages[n-1].Content = append(w.Messages[n-1].Content, blocks...)
			continue
		}
		w.Messages = append(w.Messages, bedrockMessage{Role: role, Content: blocks})
	}

	// Bedrock has no "none" choice: tools are left out instead, unless the
	// conversation holds calls, which it refuses without a toolConfig.
	if len(r.Tools) > 0 && (r.ToolChoice.Mode != ToolChoiceNone || toolBlocks) {
		tc := &bedrockTools{}
		for _, t := range r.Tools {
			var spec bedrockToolSpec
			spec.ToolSpec.Name, spec.ToolSpec.Description = t.Function.Name, t.Function.Description
			spec.ToolSpec.InputSchema.JSON = t.Function.Parameters
			if len(spec.ToolSpec.InputSchema.JSON) == 0 {
				spec.ToolSpec.InputSchema.JSON = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			tc.Tools = append(tc.Tools, spec)
		}
		switch r.ToolChoice.Mode {
		case ToolChoiceAuto:
			tc.ToolChoice = map[string]any{"auto": struct{}{}}
		case ToolChoiceRequired:
			tc.ToolChoice = map[string]any{"any": struct{}{}}
		case ToolChoiceFunction:
			tc.ToolChoice = map[string]any{"tool": map[string]string{"name": r.ToolChoice.Name}}
		}
		w.ToolConfig = tc
	}

	inf := bedrockInfer{MaxTokens: r.maxTokens(), Temperature: r.Temperature, TopP: r.TopP, StopSequences: r.Stop}
	budget, err := bedrockBudget(r)
	if err != nil {
		return nil, err
	}
	switch {
	case budget > 0:
		if err := thinkingWithForcedTool(r); err != nil {
			return nil, err
		}
		w.Additional = map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}}
		if inf.MaxTokens == nil {
			// Claude wants maxTokens above the budget; leave room for the answer.
			n := budget + DefaultAnthropicMaxTokens
			inf.MaxTokens = &n
		}
	case budget < 0:
		w.Additional = map[string]any{"thinking": map[string]any{"type": "disabled"}}
	}
	if inf.MaxTokens != nil || inf.Temperature != nil || inf.TopP != nil || len(inf.StopSequences) > 0 {
		w.InferenceConfig = &inf
	}
	return json.Marshal(w)
}

// bedrockBudget is the thinking budget a request asks of an Anthropic
// model on Bedrock (ThinkingBudget, else the effort's budget as
// DialectAnthropic takes it), -1 for thinking off, 0 for nothing to send.
// Bedrock has no common reasoning setting: another model family's is for
// Request.Extra's "additionalModelRequestFields", and a reasoning setting
// for one is refused rather than dropped.
func bedrockBudget(r *Request) (int, error) {
	if r.ThinkingBudget == nil && r.ReasoningEffort == "" {
		return 0, nil
	}
	if !strings.Contains(r.Model, "anthropic.") {
		return 0, fmt.Errorf("a reasoning setting for Bedrock model %q: only Anthropic models take one here (send it in Request.Extra's additionalModelRequestFields)", r.Model)
	}
	if r.ThinkingBudget != nil {
		if *r.ThinkingBudget <= 0 {
			return -1, nil
		}
		return *r.ThinkingBudget, nil
	}
	if r.ReasoningEffort == "none" {
		return -1, nil
	}
	budget := anthropicBudgets[r.ReasoningEffort]
	if budget == 0 {
		return 0, fmt.Errorf("reasoning effort %q has no thinking budget (want minimal, low, medium, high or none, or set ThinkingBudget)", r.ReasoningEffort)
	}
	return budget, nil
}

// bedrockBlocks is a message's role and content blocks.
func bedrockBlocks(m *Message) (string, []json.RawMessage, error) {
	switch m.Role {
	case "tool":
		status := "success"
		if m.IsError {
			status = "error"
		}
		content := []bedrockText{}
		if m.Content != "" {
			content = append(content, bedrockText{m.Content})
		}
		raw, err := json.Marshal(map[string]any{"toolResult": map[string]any{
			"toolUseId": m.ToolCallID, "content": content, "status": status,
		}})
		return "user", []json.RawMessage{raw}, err
	case "assistant":
		blocks, err := bedrockAssistant(m)
		return "assistant", blocks, err
	}
	if strings.TrimSpace(m.Content) == "" {
		return "user", nil, nil
	}
	raw, err := json.Marshal(bedrockText{m.Content})
	return "user", []json.RawMessage{raw}, err
}

// bedrockAssistant writes an assistant's blocks: from its continuity state
// when it came from Bedrock (reasoning where it was), else its text and
// then its calls.
func bedrockAssistant(m *Message) ([]json.RawMessage, error) {
	var out []json.RawMessage
	if c := m.Continuity; c != nil && c.Dialect == DialectBedrock {
		if placed, ok := placeBlocks(m, c.Blocks); ok {
			for _, p := range placed {
				raw, err := bedrockContent(p)
				if err != nil {
					return nil, err
				}
				if raw != nil {
					out = append(out, raw)
				}
			}
			return out, nil
		}
		for _, blk := range c.Blocks {
			if blk.Type == bedrockReasoningBlock && len(blk.Raw) > 0 {
				raw, err := bedrockReasoningRaw(blk.Raw)
				if err != nil {
					return nil, err
				}
				out = append(out, raw)
			}
		}
	}
	if strings.TrimSpace(m.Content) != "" {
		raw, err := json.Marshal(bedrockText{m.Content})
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	for i := range m.ToolCalls {
		raw, err := bedrockToolUse(&m.ToolCalls[i])
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// bedrockContent writes one placed block as a Converse content block; blank
// text is left out, and so is a block of a type Bedrock does not know (from
// a hand-made Continuity).
func bedrockContent(p placed) (json.RawMessage, error) {
	switch {
	case p.call != nil:
		return bedrockToolUse(p.call)
	case p.text:
		if strings.TrimSpace(p.content) == "" {
			return nil, nil
		}
		return json.Marshal(bedrockText{p.content})
	case p.block != nil && p.block.Type == bedrockReasoningBlock && len(p.raw) > 0:
		return bedrockReasoningRaw(p.raw)
	}
	return nil, nil
}

// bedrockReasoningRaw is a reasoningContent block around its kept value.
func bedrockReasoningRaw(raw json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(raw) {
		return nil, fmt.Errorf("a Bedrock reasoning block's Raw is not JSON")
	}
	return json.Marshal(map[string]json.RawMessage{"reasoningContent": raw})
}

// bedrockToolUse is a call as a toolUse block; arguments that are not a
// JSON object are sent as {}, the only input Bedrock takes.
func bedrockToolUse(c *ToolCall) (json.RawMessage, error) {
	input := json.RawMessage(strings.TrimSpace(sentArguments(c.Function.Arguments)))
	return json.Marshal(map[string]any{"toolUse": map[string]any{
		"toolUseId": c.ID, "name": c.Function.Name, "input": input,
	}})
}

// bedrockOutput is the outputConfig that asks for a structured answer,
// nil for none: {"textFormat": {"type": "json_schema", "structure":
// {"jsonSchema": {"name", "schema"}}}}, the schema a JSON string, as
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_OutputConfig.html,
// API_runtime_OutputFormat.html and API_runtime_JsonSchemaDefinition.html
// document (Converse structured outputs,
// https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html).
// Converse has no strict flag: the format is enforced. A model without
// structured outputs refuses it: send the schema AsTool then.
func bedrockOutput(o *OutputSchema) any {
	if o == nil {
		return nil
	}
	type definition struct {
		Name   string `json:"name"`
		Schema string `json:"schema"`
	}
	type structure struct {
		JSONSchema definition `json:"jsonSchema"`
	}
	type format struct {
		Type      string    `json:"type"`
		Structure structure `json:"structure"`
	}
	return struct {
		TextFormat format `json:"textFormat"`
	}{format{"json_schema", structure{definition{o.name(), string(o.Schema)}}}}
}
