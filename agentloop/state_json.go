package agentloop

import (
	"encoding/json"

	"github.com/airlock-go/airlock/llmstream"
)

// A State is written with every field of its messages: an llmstream.Message
// marshals as a provider would read it (no usage, no stop reason, raw
// blocks compacted), which is not enough to go on exactly where a run
// stopped. Raw JSON is kept as text so its bytes come back as they were.

type stateJSON struct {
	Messages           []messageJSON       `json:"messages"`
	Turns              int                 `json:"turns"`
	ToolCalls          int                 `json:"tool_calls"`
	Usage              usageJSON           `json:"usage"`
	DroppedToolOutputs int                 `json:"dropped_tool_outputs"`
	Dropped            []int               `json:"dropped"`
	LastFailure        string              `json:"last_failure"`
	Pending            []Call              `json:"pending"`
	Decisions          map[string]Decision `json:"decisions"`
}

type messageJSON struct {
	Role         string               `json:"role"`
	Content      string               `json:"content"`
	ToolCalls    []toolCallJSON       `json:"tool_calls"`
	ToolCallID   string               `json:"tool_call_id"`
	Name         string               `json:"name"`
	IsError      bool                 `json:"is_error"`
	Reasoning    string               `json:"reasoning"`
	Refusal      string               `json:"refusal"`
	FinishReason string               `json:"finish_reason"`
	StopReason   llmstream.StopReason `json:"stop_reason"`
	Usage        *usageJSON           `json:"usage"`
	Continuity   *continuityJSON      `json:"continuity"`
}

type toolCallJSON struct {
	ID        string  `json:"id"`
	Type      string  `json:"type"`
	Name      string  `json:"name"`
	Arguments string  `json:"arguments"`
	Extra     *string `json:"extra"`
}

type usageJSON struct {
	Prompt, Completion, Total, Cached, CacheWrite, Reasoning int
}

type continuityJSON struct {
	Dialect llmstream.Dialect `json:"dialect"`
	Blocks  []blockJSON       `json:"blocks"`
}

type blockJSON struct {
	Type      string  `json:"type"`
	Bytes     int     `json:"bytes"`
	Call      int     `json:"call"`
	ID        string  `json:"id"`
	Signature string  `json:"signature"`
	Raw       *string `json:"raw"`
}

// MarshalJSON writes every field of the State, so that unmarshaling the
// result gives an equal State. Texts that are not valid UTF-8 come back
// with U+FFFD in place of the bad bytes, as encoding/json does.
func (st State) MarshalJSON() ([]byte, error) {
	w := stateJSON{
		Turns: st.Turns, ToolCalls: st.ToolCalls, Usage: toUsageJSON(st.Usage),
		DroppedToolOutputs: st.DroppedToolOutputs, Dropped: st.Dropped,
		LastFailure: st.LastFailure, Pending: st.Pending, Decisions: st.Decisions,
	}
	if st.Messages != nil {
		w.Messages = make([]messageJSON, len(st.Messages))
	}
	for i, m := range st.Messages {
		w.Messages[i] = toMessageJSON(m)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (st *State) UnmarshalJSON(b []byte) error {
	var w stateJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*st = State{
		Turns: w.Turns, ToolCalls: w.ToolCalls, Usage: w.Usage.usage(),
		DroppedToolOutputs: w.DroppedToolOutputs, Dropped: w.Dropped,
		LastFailure: w.LastFailure, Pending: w.Pending, Decisions: w.Decisions,
	}
	if w.Messages != nil {
		st.Messages = make([]llmstream.Message, len(w.Messages))
	}
	for i, m := range w.Messages {
		st.Messages[i] = m.message()
	}
	return nil
}

func toUsageJSON(u llmstream.Usage) usageJSON {
	return usageJSON{u.PromptTokens, u.CompletionTokens, u.TotalTokens, u.CachedTokens, u.CacheWriteTokens, u.ReasoningTokens}
}

func (u usageJSON) usage() llmstream.Usage {
	return llmstream.Usage{PromptTokens: u.Prompt, CompletionTokens: u.Completion, TotalTokens: u.Total, CachedTokens: u.Cached, CacheWriteTokens: u.CacheWrite, ReasoningTokens: u.Reasoning}
}

// rawText and rawBytes keep a nil json.RawMessage apart from an empty one.
func rawText(b json.RawMessage) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func rawBytes(s *string) json.RawMessage {
	if s == nil {
		return nil
	}
	return json.RawMessage(*s)
}

func toMessageJSON(m llmstream.Message) messageJSON {
	w := messageJSON{
		Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name, IsError: m.IsError,
		Reasoning: m.Reasoning, Refusal: m.Refusal, FinishReason: m.FinishReason, StopReason: m.StopReason,
	}
	if m.ToolCalls != nil {
		w.ToolCalls = make([]toolCallJSON, len(m.ToolCalls))
	}
	for i, c := range m.ToolCalls {
		w.ToolCalls[i] = toolCallJSON{ID: c.ID, Type: c.Type, Name: c.Function.Name, Arguments: c.Function.Arguments, Extra: rawText(c.Extra)}
	}
	if m.Usage != nil {
		u := toUsageJSON(*m.Usage)
		w.Usage = &u
	}
	if c := m.Continuity; c != nil {
		w.Continuity = &continuityJSON{Dialect: c.Dialect}
		if c.Blocks != nil {
			w.Continuity.Blocks = make([]blockJSON, len(c.Blocks))
		}
		for i, b := range c.Blocks {
			w.Continuity.Blocks[i] = blockJSON{Type: b.Type, Bytes: b.Bytes, Call: b.Call, ID: b.ID, Signature: b.Signature, Raw: rawText(b.Raw)}
		}
	}
	return w
}

func (w messageJSON) message() llmstream.Message {
	m := llmstream.Message{
		Role: w.Role, Content: w.Content, ToolCallID: w.ToolCallID, Name: w.Name, IsError: w.IsError,
		Reasoning: w.Reasoning, Refusal: w.Refusal, FinishReason: w.FinishReason, StopReason: w.StopReason,
	}
	if w.ToolCalls != nil {
		m.ToolCalls = make([]llmstream.ToolCall, len(w.ToolCalls))
	}
	for i, c := range w.ToolCalls {
		m.ToolCalls[i] = llmstream.ToolCall{ID: c.ID, Type: c.Type, Function: llmstream.FunctionCall{Name: c.Name, Arguments: c.Arguments}, Extra: rawBytes(c.Extra)}
	}
	if w.Usage != nil {
		u := w.Usage.usage()
		m.Usage = &u
	}
	if c := w.Continuity; c != nil {
		m.Continuity = &llmstream.Continuity{Dialect: c.Dialect}
		if c.Blocks != nil {
			m.Continuity.Blocks = make([]llmstream.Block, len(c.Blocks))
		}
		for i, b := range c.Blocks {
			m.Continuity.Blocks[i] = llmstream.Block{Type: b.Type, Bytes: b.Bytes, Call: b.Call, ID: b.ID, Signature: b.Signature, Raw: rawBytes(b.Raw)}
		}
	}
	return m
}
