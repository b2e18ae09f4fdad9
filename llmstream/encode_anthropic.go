package llmstream

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// This file writes Anthropic Messages requests from the neutral Request.

type antRequest struct {
	Model         string            `json:"model,omitempty"`
	MaxTokens     int               `json:"max_tokens"`
	System        string            `json:"system,omitempty"`
	Messages      []antMessage      `json:"messages"`
	Tools         []antTool         `json:"tools,omitempty"`
	ToolChoice    map[string]any    `json:"tool_choice,omitempty"`
	Temperature   *float64          `json:"temperature,omitempty"`
	TopP          *float64          `json:"top_p,omitempty"`
	StopSequences []string          `json:"stop_sequences,omitempty"`
	Thinking      map[string]any    `json:"thinking,omitempty"`
	Stream        bool              `json:"stream"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	Container     string            `json:"container,omitempty"`
	OutputConfig  any               `json:"output_config,omitempty"`
}

type antMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`

	answersCode bool // a user turn answering calls made from code execution
}

type antTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// encode writes the Messages request: system messages become "system",
// consecutive tool answers one user message of tool_result blocks, an
// assistant's calls tool_use blocks with their input objects, and its
// thinking blocks go back where they were.
func (anthropicProtocol) encode(r *Request, _ *config) ([]byte, error) {
	r.Messages = portable(r.Messages, DialectAnthropic) // a conversation may come from another dialect
	w := antRequest{
		Model: r.Model, Stream: true, Temperature: r.Temperature, TopP: r.TopP, StopSequences: r.Stop,
		Messages: []antMessage{}, OutputConfig: anthropicOutput(r.Output),
	}
	var system []string
	programmatic := map[string]bool{} // ids of calls made from code execution
	for i := range r.Messages {
		m := &r.Messages[i]
		if m.Role == "system" || m.Role == "developer" {
			if m.Content != "" {
				system = append(system, m.Content)
			}
			continue
		}
		role, blocks, err := anthropicBlocks(m)
		if err != nil {
			return nil, err
		}
		if len(blocks) == 0 {
			continue // Anthropic refuses empty content
		}
		answers := m.Role == "tool" && programmatic[m.ToolCallID]
		if m.Role == "assistant" {
			for _, c := range m.ToolCalls {
				if toolCaller(&c) != nil {
					programmatic[c.ID] = true
				}
			}
			if id := anthropicContainer(m); id != "" {
				w.Container = id
			}
		}
		// Anthropic wants user and assistant turns to alternate: tool
		// answers and a user message after them are one user turn. A turn
		// that answers calls made from code execution may hold only
		// tool_result blocks, which Anthropic checks.
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
			last := &w.Messages[n-1]
			if role == "user" && m.Role != "tool" && last.answersCode {
				return nil, fmt.Errorf("message %d (%s) would join the answers to calls made by code execution in one user turn; Anthropic takes only tool results there", i, m.Role)
			}
			last.Content = append(last.Content, blocks...)
			last.answersCode = last.answersCode || answers
			continue
		}
		w.Messages = append(w.Messages, antMessage{Role: role, Content: blocks, answersCode: answers})
	}
	w.System = strings.Join(system, "\n\n")
	for _, t := range r.Tools {
		schema := t.Function.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		w.Tools = append(w.Tools, antTool{Name: t.Function.Name, Description: t.Function.Description, InputSchema: schema})
	}
	w.ToolChoice = anthropicToolChoice(r.ToolChoice, r.ParallelToolCalls)

	budget := 0
	if r.ThinkingBudget != nil {
		budget = *r.ThinkingBudget
		if budget <= 0 {
			w.Thinking = map[string]any{"type": "disabled"}
		}
	} else if e := r.ReasoningEffort; e == "none" {
		w.Thinking = map[string]any{"type": "disabled"}
	} else if e != "" {
		// Not sent as it is, as the other dialects send it: an effort with
		// no budget would go silently without thinking.
		if budget = anthropicBudgets[e]; budget == 0 {
			return nil, fmt.Errorf("reasoning effort %q has no Anthropic thinking budget (want minimal, low, medium, high or none, or set ThinkingBudget)", e)
		}
	}
	if budget > 0 {
		if err := thinkingWithForcedTool(r); err != nil {
			return nil, err
		}
		w.Thinking = map[string]any{"type": "enabled", "budget_tokens": budget}
	}
	if mt := r.maxTokens(); mt != nil {
		w.MaxTokens = *mt
	} else {
		w.MaxTokens = DefaultAnthropicMaxTokens
		if budget >= w.MaxTokens {
			// max_tokens must exceed the budget; leave room for the answer.
			w.MaxTokens = budget + DefaultAnthropicMaxTokens
		}
	}
	return json.Marshal(w)
}

// anthropicToolChoice is the tool_choice object; nil sends none.
func anthropicToolChoice(c ToolChoice, parallel *bool) map[string]any {
	var tc map[string]any
	switch c.Mode {
	case ToolChoiceAuto:
		tc = map[string]any{"type": "auto"}
	case ToolChoiceNone:
		return map[string]any{"type": "none"}
	case ToolChoiceRequired:
		tc = map[string]any{"type": "any"}
	case ToolChoiceFunction:
		tc = map[string]any{"type": "tool", "name": c.Name}
	}
	if parallel != nil && !*parallel {
		if tc == nil {
			tc = map[string]any{"type": "auto"}
		}
		tc["disable_parallel_tool_use"] = true
	}
	return tc
}

// anthropicBlocks is a message's role and content blocks.
func anthropicBlocks(m *Message) (string, []json.RawMessage, error) {
	switch m.Role {
	case "tool":
		// Anthropic refuses empty content: a tool that printed nothing
		// answers with no content (which it documents), a failure with a
		// word of text (it wants one).
		b := map[string]any{"type": "tool_result", "tool_use_id": anthropicToolID(m.ToolCallID)}
		switch {
		case m.Content != "":
			b["content"] = m.Content
		case m.IsError:
			b["content"] = anthropicEmptyError
		}
		if m.IsError {
			b["is_error"] = true
		}
		raw, err := json.Marshal(b)
		return "user", []json.RawMessage{raw}, err
	case "assistant":
		blocks, err := anthropicAssistant(m)
		return "assistant", blocks, err
	}
	if m.Content == "" {
		return "user", nil, nil
	}
	raw, err := textBlock(m.Content)
	return "user", []json.RawMessage{raw}, err
}

func textBlock(text string) (json.RawMessage, error) {
	return json.Marshal(map[string]string{"type": "text", "text": text})
}

// anthropicAssistant writes an assistant's blocks: from its continuity
// state when it came from Anthropic (thinking first, where it was), else
// its text and then its calls. Text that is all blank is left out:
// Anthropic refuses a message whose text blocks are all blank, and its own
// replies can hold such text beside a call.
func anthropicAssistant(m *Message) ([]json.RawMessage, error) {
	var out []json.RawMessage
	blank := strings.TrimSpace(m.Content) == ""
	if c := m.Continuity; c != nil && c.Dialect == DialectAnthropic {
		if placed, ok := placeBlocks(m, c.Blocks); ok {
			for _, p := range placed {
				if p.text && blank {
					continue
				}
				raw, err := anthropicBlock(p, m)
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
			if len(blk.Raw) > 0 {
				out = append(out, blk.Raw)
			}
		}
	}
	if !blank {
		raw, err := textBlock(m.Content)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	for i := range m.ToolCalls {
		raw, err := toolUseBlock(&m.ToolCalls[i])
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// anthropicBlock writes one placed block as an Anthropic content block.
func anthropicBlock(p placed, m *Message) (json.RawMessage, error) {
	switch {
	case p.call != nil:
		return toolUseBlock(p.call)
	case p.text:
		if p.content == "" {
			return nil, nil
		}
		return textBlock(p.content)
	}
	return p.raw, nil
}

// toolUseBlock is a call as a tool_use block, with its caller when code
// execution made it; arguments that are not a JSON object (an invalid
// call answered by agentloop) are sent as {}, the only input Anthropic
// takes.
func toolUseBlock(c *ToolCall) (json.RawMessage, error) {
	input := json.RawMessage(strings.TrimSpace(sentArguments(c.Function.Arguments)))
	return json.Marshal(struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Input  json.RawMessage `json:"input"`
		Caller json.RawMessage `json:"caller,omitempty"`
	}{"tool_use", anthropicToolID(c.ID), c.Function.Name, input, toolCaller(c)})
}

// toolCaller is the "caller" object Anthropic put on a call made from
// code execution (kept in its Extra), nil for none.
func toolCaller(c *ToolCall) json.RawMessage {
	if len(c.Extra) == 0 {
		return nil
	}
	var extra struct {
		Caller json.RawMessage `json:"caller"`
	}
	if json.Unmarshal(c.Extra, &extra) != nil || len(extra.Caller) == 0 || extra.Caller[0] != '{' {
		return nil
	}
	return extra.Caller
}

// anthropicContainer is the id of the code-execution container an
// Anthropic assistant message ran in, "" for none.
func anthropicContainer(m *Message) string {
	c := m.Continuity
	if c == nil || c.Dialect != DialectAnthropic || len(c.Container) == 0 {
		return ""
	}
	var container struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(c.Container, &container) != nil {
		return ""
	}
	return container.ID
}

// anthropicToolID is id as Anthropic takes it, of [A-Za-z0-9_-] only: the
// id itself when it is so, else (an id another provider made, such as
// Kimi's "functions.read:0") every other byte made '_' and a hash of the
// id added, so that the call and its answer agree and two ids stay apart.
func anthropicToolID(id string) string {
	valid := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	i := 0
	for i < len(id) && valid(id[i]) {
		i++
	}
	if i == len(id) {
		return id
	}
	out := []byte(id)
	for j := i; j < len(out); j++ {
		if !valid(out[j]) {
			out[j] = '_'
		}
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return string(strconv.AppendUint(append(out, '_'), uint64(h.Sum32()), 36))
}

// anthropicEmptyError is the text of a failed tool's answer that said
// nothing: Anthropic refuses an error tool_result without content.
const anthropicEmptyError = "(the tool failed without output)"

// anthropicOutput is the output_config that asks for a structured answer,
// nil for none: {"format": {"type": "json_schema", "schema"}}, as
// https://platform.claude.com/docs/en/build-with-claude/structured-outputs
// documents (generally available; the beta's top-level output_format and
// its header are the old form). Anthropic takes no name and no strict
// flag: the format is always enforced.
func anthropicOutput(o *OutputSchema) any {
	if o == nil {
		return nil
	}
	type format struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	return struct {
		Format format `json:"format"`
	}{format{"json_schema", o.Schema}}
}
