package llmstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Message is one message of a conversation, the same for every [Dialect].
//
// It marshals to and from the OpenAI chat message JSON (role, content,
// tool_calls, tool_call_id, name, refusal), plus "continuity" when it has
// [Continuity] and "is_error" for a failed tool's answer, so a Message
// returned by [Client.Stream] or [ReadMessage] can be saved, reloaded and
// appended to the next request as it is. Reasoning, FinishReason,
// StopReason, Usage and Model describe the response and are never marshaled:
// several servers reject reasoning text sent back to them.
//
// Content is always present in the JSON, except for an assistant message that
// carries tool calls and no text, which OpenAI-compatible servers accept
// without it. When unmarshaling, content may be a string, null, or an array of
// content parts, whose "text" members are joined.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string
	// Content is the message text: for an assistant, the answer text only
	// (not reasoning, not a compaction summary, citation or server-side
	// tool result, which the dialects keep in Continuity).
	Content string
	// ToolCalls are the complete tool calls of an assistant message, in the
	// order the model emitted them (ascending stream index).
	ToolCalls []ToolCall
	// ToolCallID names the call a "tool" message answers.
	ToolCallID string
	// Name is the optional participant name.
	Name string
	// IsError marks a "tool" message that reports the tool's failure
	// (Anthropic's tool_result "is_error"; the other dialects have no such
	// flag and send the text alone).
	IsError bool

	// Reasoning is the reasoning text, for display: chat's
	// "reasoning_content" or "reasoning", Anthropic's thinking, Responses'
	// reasoning summary or text, Gemini's thought parts. Not marshaled;
	// what a provider needs back is in Continuity.
	Reasoning string
	// Refusal is the model's refusal text, if it refused.
	Refusal string
	// FinishReason is the provider's finish reason as sent ("stop",
	// "tool_calls", "end_turn", "MAX_TOKENS", ...); empty if none arrived.
	// Not marshaled.
	FinishReason string
	// StopReason is what FinishReason means, the same for every dialect
	// (see [StopReason] for the mapping). A message with tool calls is a
	// tool-call turn whatever the provider said. Not marshaled.
	StopReason StopReason
	// Usage is the token accounting of the response, nil when the provider
	// sent none. Not marshaled.
	Usage *Usage
	// Model is the model that wrote an assistant message: the name the
	// provider's stream gave (chat's and Responses' "model", Anthropic's
	// message.model, Gemini's modelVersion, a Bedrock prompt router's
	// invokedModelId), the first non-empty one when it came more than
	// once (a name over 256 bytes is not taken), with the credentials a
	// [Client] or [WithSecrets] knows masked; else, from a Client, the
	// model the request was sent for (Request.Model, else the Client's
	// default). Empty when nothing named it. A [Failover]'s is the
	// answering attempt's. Not marshaled.
	Model string
	// Continuity is the provider state the next request of the
	// conversation must carry back, nil when there is none. Keep it with
	// the message: it marshals with it, and a Client of the same dialect
	// writes it back exactly; another dialect leaves it out.
	Continuity *Continuity
}

// Continuity is the provider state an assistant message carries into the
// next request of its conversation — Anthropic's thinking blocks with their
// signatures and redacted thinking, the Responses API's reasoning items
// with their encrypted content, Gemini's thought signatures — and the
// provider's other pieces that the neutral fields cannot hold (server-side
// tool blocks, Responses tool items other than function calls), in the
// order the provider sent them relative to the message's text and calls.
//
// It is opaque: keep it, do not edit it. A [Client] of the same Dialect
// rebuilds the provider's content from Blocks, taking the text from
// Content and the calls from ToolCalls; if they no longer match (text
// edited, calls removed), it falls back to the text, then the calls, with
// the raw blocks before them.
type Continuity struct {
	// Dialect is the wire the state came from.
	Dialect Dialect `json:"dialect"`
	// Blocks are the message's pieces in the provider's order.
	Blocks []Block `json:"blocks"`
	// Container is the code-execution container the response ran in, as
	// Anthropic sent it ({"id","expires_at"}), nil for none. The next
	// Anthropic request of the conversation names it, so the code's state
	// goes on.
	Container json.RawMessage `json:"container,omitempty"`
}

// Block is one piece of an assistant message in the provider's order. Its
// fields may grow; compare them, not whole Blocks.
type Block struct {
	// Type is [BlockText], [BlockToolCall], or the provider's own type
	// ("thinking", "redacted_thinking", "reasoning", "server_tool_use",
	// "web_search_call", "thought", ...) for a piece kept whole in Raw.
	Type string `json:"type"`
	// Bytes is how many bytes of Content a text block holds.
	Bytes int `json:"bytes,omitempty"`
	// Call is the position in ToolCalls of a tool-call block.
	Call int `json:"call,omitempty"`
	// ID is the provider's id of the piece, where the dialect sends it
	// back (Responses' message and function-call item ids).
	ID string `json:"id,omitempty"`
	// Signature is the provider's signature on the piece (Gemini's
	// thoughtSignature on a text or function-call part).
	Signature string `json:"signature,omitempty"`
	// Raw is the piece as the provider sent it, written back exactly, for
	// the provider's own types.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// The [Block] types that stand for a message's own text and calls.
const (
	BlockText     = "text"
	BlockToolCall = "tool_call"
)

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
	// thought signature, or Anthropic's "caller", which says the call came
	// from code the code-execution tool ran: {"caller":{"type":
	// "code_execution_20250825","tool_id":"srvtoolu_..."}}), nil when there
	// were none. They are written back
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
//
//	field             chat                     Anthropic                    Responses                              Gemini                                      Bedrock
//	PromptTokens      prompt_tokens            input_tokens                 input_tokens                           promptTokenCount                            inputTokens
//	CompletionTokens  completion_tokens        output_tokens                output_tokens                          candidatesTokenCount (+ thoughtsTokenCount) outputTokens
//	TotalTokens       total_tokens             the sum of all four          total_tokens                           totalTokenCount                             totalTokens, else the sum
//	CachedTokens      ..cached_tokens          cache_read_input_tokens      input_tokens_details.cached_tokens     cachedContentTokenCount                     cacheReadInputTokens
//	CacheWriteTokens  —                        cache_creation_input_tokens  —                                      —                                           cacheWriteInputTokens
//	ReasoningTokens   ..reasoning_tokens       ..thinking_tokens            output_tokens_details.reasoning_tokens thoughtsTokenCount                          —
//
// Anthropic's and Bedrock's input counts leave out the cached tokens, so
// their totals add them. Anthropic's thinking_tokens are in
// output_tokens_details; its reports are cumulative and the last one stands, even when it is smaller than an
// earlier one (with compaction, message_start counts the compaction step
// and the last message_delta the answer); a count the last report gives
// as 0 or leaves out keeps the earlier one. Where a provider sends no
// total, it is the sum.
//
// With compaction (or server tools sampling more than once) Anthropic
// bills every sampling step of the request, listed in usage.iterations:
// BilledPromptTokens and BilledCompletionTokens are their sums (input with
// its cache reads and writes, and output), 0 when no iterations came. The
// other fields are the last step's, as the top-level usage says.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedTokens is how many prompt tokens were read from the
	// provider's cache (prompt_tokens_details.cached_tokens in chat), 0
	// if absent.
	CachedTokens int `json:"-"`
	// CacheWriteTokens is how many prompt tokens were written to the
	// provider's cache (Anthropic's cache_creation_input_tokens), 0 if
	// absent.
	CacheWriteTokens int `json:"-"`
	// ReasoningTokens is how many output tokens went to reasoning
	// (completion_tokens_details.reasoning_tokens in chat), 0 if absent.
	ReasoningTokens int `json:"-"`
	// BilledPromptTokens and BilledCompletionTokens are the input and
	// output tokens of every sampling step the provider billed for this
	// response (Anthropic's usage.iterations, summed; input with its cache
	// reads and writes), 0 when it listed none: then [Usage.InputTokens]
	// and CompletionTokens are the bill.
	BilledPromptTokens     int `json:"-"`
	BilledCompletionTokens int `json:"-"`
	// PromptExcludesCache is true when PromptTokens leaves out the tokens
	// read from and written to the cache (CachedTokens, CacheWriteTokens),
	// as Anthropic's input_tokens and Bedrock's inputTokens do; false when
	// it holds them, as the chat, Responses and Gemini counts do. The
	// decoder sets it; [Usage.InputTokens] reads it.
	PromptExcludesCache bool `json:"-"`
}

// InputTokens is every input token of the request, cached ones included,
// in every dialect alike (the OpenTelemetry GenAI conventions'
// gen_ai.usage.input_tokens): PromptTokens, plus CachedTokens and
// CacheWriteTokens when [Usage.PromptExcludesCache] says PromptTokens
// leaves them out.
func (u Usage) InputTokens() int {
	if u.PromptExcludesCache {
		return u.PromptTokens + u.CachedTokens + u.CacheWriteTokens
	}
	return u.PromptTokens
}

// Add adds every count of v to u's (a sum of several responses' usage,
// as agentloop's Result.Usage); a nil v adds nothing. Usages that count
// PromptTokens alike keep that meaning ([Usage.PromptExcludesCache]); when
// they differ (a run that moved between dialects), the sum's PromptTokens
// holds the cache, so InputTokens stays every input token of both. When
// either lists billed counts, the sum's are every bill: each one's Billed
// counts where set, else its InputTokens and CompletionTokens — so the
// bill of a sum is the same however its parts were grouped.
func (u *Usage) Add(v *Usage) {
	if v == nil {
		return
	}
	if *u == (Usage{}) {
		u.PromptExcludesCache = v.PromptExcludesCache
	}
	if u.BilledPromptTokens != 0 || u.BilledCompletionTokens != 0 || v.BilledPromptTokens != 0 || v.BilledCompletionTokens != 0 {
		// Where either bills its sampling steps, the sum's bill is each
		// one's: its Billed counts when set, else its plain ones.
		up, uc := u.bill()
		vp, vc := v.bill()
		u.BilledPromptTokens, u.BilledCompletionTokens = up+vp, uc+vc
	}
	vPrompt := v.PromptTokens
	if u.PromptExcludesCache != v.PromptExcludesCache {
		if u.PromptExcludesCache {
			u.PromptTokens += u.CachedTokens + u.CacheWriteTokens
			u.PromptExcludesCache = false
		} else {
			vPrompt += v.CachedTokens + v.CacheWriteTokens
		}
	}
	u.PromptTokens += vPrompt
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
	u.CachedTokens += v.CachedTokens
	u.CacheWriteTokens += v.CacheWriteTokens
	u.ReasoningTokens += v.ReasoningTokens
}

// bill is what u was billed for input (its cache included) and output.
func (u *Usage) bill() (prompt, completion int) {
	if u.BilledPromptTokens != 0 || u.BilledCompletionTokens != 0 {
		return u.BilledPromptTokens, u.BilledCompletionTokens
	}
	return u.InputTokens(), u.CompletionTokens
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

// messageJSON is a Message's own JSON: the members of an OpenAI chat
// message, which tools that read conversations know, plus this package's
// "is_error" and "continuity". It is not a wire format: each dialect
// writes its own (the chat dialect's is wireMessage).
type messageJSON struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	Refusal    string          `json:"refusal,omitempty"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	IsError    bool            `json:"is_error,omitempty"`
	Continuity *Continuity     `json:"continuity,omitempty"`
}

// MarshalJSON writes the message as messageJSON: the OpenAI chat message
// members, with "is_error" and "continuity" when they are set. Content is
// left out of an assistant message that has only calls.
func (m Message) MarshalJSON() ([]byte, error) {
	w := messageJSON{Role: m.Role, Refusal: m.Refusal, Name: m.Name, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, IsError: m.IsError, Continuity: m.Continuity}
	if !m.callsOnly() {
		c, err := json.Marshal(m.Content)
		if err != nil {
			return nil, err
		}
		w.Content = c
	}
	return json.Marshal(w)
}

// callsOnly reports an assistant message with calls and no text, whose
// content is left out rather than sent as "".
func (m *Message) callsOnly() bool {
	return m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) > 0
}

// UnmarshalJSON reads a Message's JSON (see MarshalJSON). Content may be a
// string, null, or an array of content parts.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w messageJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	content, err := contentText(w.Content)
	if err != nil {
		return err
	}
	*m = Message{Role: w.Role, Content: content, Refusal: w.Refusal, Name: w.Name, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, IsError: w.IsError, Continuity: w.Continuity}
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
	PromptTokens            int            `json:"prompt_tokens"`
	CompletionTokens        int            `json:"completion_tokens"`
	TotalTokens             int            `json:"total_tokens"`
	PromptTokensDetails     *promptDetails `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details,omitempty"`
}

// promptDetails is prompt_tokens_details; cache_write_tokens is this
// package's own member, for what Anthropic reports.
type promptDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
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
		u.CacheWriteTokens = w.PromptTokensDetails.CacheWriteTokens
	}
	if w.CompletionTokensDetails != nil {
		u.ReasoningTokens = w.CompletionTokensDetails.ReasoningTokens
	}
	return nil
}

// MarshalJSON writes the OpenAI usage object.
func (u Usage) MarshalJSON() ([]byte, error) {
	w := wireUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CachedTokens != 0 || u.CacheWriteTokens != 0 {
		w.PromptTokensDetails = &promptDetails{u.CachedTokens, u.CacheWriteTokens}
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
