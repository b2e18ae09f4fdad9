package llmstreamtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
)

// anthropicWire is the Anthropic Messages dialect, served on /v1/messages.
//
// A turn streams as message_start (with the input usage), a ping, then one
// content block per part in the order reasoning (a thinking block with a
// signature), text, refusal (a text block; stop reason "refusal"), tool
// calls (tool_use blocks whose input arrives in 1–6 byte input_json_delta
// fragments after an empty one), then message_delta with the stop reason
// and the output usage, and message_stop. Every event is "event: <type>"
// plus its JSON data.
type anthropicWire struct{}

func (anthropicWire) dialect() llmstream.Dialect { return llmstream.DialectAnthropic }
func (anthropicWire) end() []byte                { return nil }

func (anthropicWire) keepAlive() []byte {
	return sseEvent("ping", []byte(`{"type": "ping"}`))
}

// anthropicEvent is one rendered event of a typed Anthropic stream.
func (r *renderer) anthropicEvent(typ string, o object, final bool) event {
	b, err := appendJSON(nil, object{{"type", typ}}.join(o))
	if err != nil && r.err == nil {
		r.err = err
	}
	return event{data: sseEvent(typ, b), final: final}
}

func (anthropicWire) render(r *renderer) []event {
	t := r.turn
	u := t.Usage
	if u == nil {
		u = &llmstream.Usage{}
	}
	usage := object{{"input_tokens", u.PromptTokens}, {"cache_creation_input_tokens", u.CacheWriteTokens},
		{"cache_read_input_tokens", u.CachedTokens}, {"output_tokens", 1}}
	msg := object{{"id", "msg_llmstreamtest_" + strconv.Itoa(r.seq)}, {"type", "message"}, {"role", "assistant"},
		{"model", r.model}, {"content", []any{}}, {"stop_reason", nil}, {"stop_sequence", nil}, {"usage", usage}}
	evs := []event{
		r.anthropicEvent("message_start", object{{"message", msg}}, false),
		r.anthropicEvent("ping", nil, false),
	}
	index := 0
	block := func(start object, deltas []object) {
		evs = append(evs, r.anthropicEvent("content_block_start", object{{"index", index}, {"content_block", start}}, false))
		for _, d := range deltas {
			evs = append(evs, r.anthropicEvent("content_block_delta", object{{"index", index}, {"delta", d}}, false))
		}
		evs = append(evs, r.anthropicEvent("content_block_stop", object{{"index", index}}, false))
		index++
	}
	if t.Reasoning != "" {
		var ds []object
		for _, p := range textPieces(t.Reasoning) {
			ds = append(ds, object{{"type", "thinking_delta"}, {"thinking", p}})
		}
		ds = append(ds, object{{"type", "signature_delta"}, {"signature", r.signature()}})
		block(object{{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}, ds)
	}
	for _, s := range []string{t.Text, t.Refusal} {
		if s == "" {
			continue
		}
		var ds []object
		for _, p := range textPieces(s) {
			ds = append(ds, object{{"type", "text_delta"}, {"text", p}})
		}
		block(object{{"type", "text"}, {"text", ""}}, ds)
	}
	for i, c := range t.ToolCalls {
		ds := []object{{{"type", "input_json_delta"}, {"partial_json", ""}}}
		for _, f := range argFragments(c.Arguments, r.rng) {
			ds = append(ds, object{{"type", "input_json_delta"}, {"partial_json", f}})
		}
		block(object{{"type", "tool_use"}, {"id", r.anthropicCallID(c, i)}, {"name", c.Name}, {"input", object{}}}, ds)
	}
	stop := t.FinishReason
	switch {
	case stop != "":
	case len(t.ToolCalls) > 0:
		stop = "tool_use"
	case t.Refusal != "":
		stop = "refusal"
	default:
		stop = "end_turn"
	}
	evs = append(evs,
		r.anthropicEvent("message_delta", object{{"delta", object{{"stop_reason", stop}, {"stop_sequence", nil}}},
			{"usage", object{{"output_tokens", u.CompletionTokens}}}}, true),
		r.anthropicEvent("message_stop", nil, true))
	return evs
}

// anthropicCallID is call i's id: as scripted, else toolu_<seq>_<i>.
func (r *renderer) anthropicCallID(c Call, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return "toolu_" + strconv.Itoa(r.seq) + "_" + strconv.Itoa(i)
}

// signature is the turn's reasoning signature: as scripted, else one made
// from the request number, so a test can look for it in the next request.
func (r *renderer) signature() string {
	if r.turn.Signature != "" {
		return r.turn.Signature
	}
	return base64.StdEncoding.EncodeToString([]byte("llmstreamtest signature " + strconv.Itoa(r.seq)))
}

// anthropicErrorType is the error type for status when a fault names none.
func anthropicErrorType(status int, f Fault) string {
	if f.Type != "" {
		return f.Type
	}
	switch status {
	case 400, 404, 405, 413:
		if status == 404 {
			return "not_found_error"
		}
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

func anthropicError(status int, f Fault) []byte {
	b, _ := json.Marshal(object{{"type", "error"}, {"error", object{{"type", anthropicErrorType(status, f)}, {"message", f.message()}}},
		{"request_id", "req_llmstreamtest"}})
	return b
}

func (anthropicWire) errorBody(status int, f Fault) []byte { return anthropicError(status, f) }

// errorEvent is Anthropic's in-stream error: an "error" event whose data
// is the error body, after which the stream ends.
func (anthropicWire) errorEvent(_ *renderer, f Fault) []byte {
	status := f.Status
	if status == 0 {
		status = 529 // what Anthropic reports mid-stream in practice
	}
	return sseEvent("error", anthropicError(status, f))
}

func (anthropicWire) malformed(r *renderer) []byte {
	return []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"unterminated\n\n")
}

// decode reads a Messages request into the neutral form: "system" becomes
// a system message, tool_result blocks tool messages, an assistant's
// tool_use blocks its calls and its other blocks (thinking, ...) its
// Continuity, in their order.
func (anthropicWire) decode(r *Request) error {
	var w struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Stream   bool            `json:"stream"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		MaxTokens *int `json:"max_tokens"`
	}
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	if w.MaxTokens == nil {
		return errors.New(`"max_tokens" is missing; Anthropic requires it`)
	}
	r.Model, r.Stream = w.Model, w.Stream
	if sys, err := anthropicText(w.System); err != nil {
		return fmt.Errorf("system: %w", err)
	} else if sys != "" {
		r.Messages = append(r.Messages, llmstream.Message{Role: "system", Content: sys})
	}
	for i, m := range w.Messages {
		msgs, err := anthropicMessage(m.Role, m.Content)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		r.Messages = append(r.Messages, msgs...)
	}
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, llmstream.Tool{Type: "function", Function: llmstream.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	return nil
}

// anthropicText reads content that is a string or an array of text blocks.
func anthropicText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, blk := range blocks {
		b.WriteString(blk.Text)
	}
	return b.String(), nil
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// anthropicMessage reads one message into neutral messages: a user turn
// may hold tool results (each a tool message) and text.
func anthropicMessage(role string, content json.RawMessage) ([]llmstream.Message, error) {
	content = bytes.TrimSpace(content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return nil, err
		}
		return []llmstream.Message{{Role: role, Content: s}}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(content, &raws); err != nil {
		return nil, err
	}
	var out []llmstream.Message
	asst := llmstream.Message{Role: "assistant"}
	var blocks []llmstream.Block
	raw := false
	for _, rb := range raws {
		var b anthropicBlock
		if err := json.Unmarshal(rb, &b); err != nil {
			return nil, err
		}
		switch {
		case role == "assistant" && b.Type == "text":
			asst.Content += b.Text
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockText, Bytes: len(b.Text)})
		case role == "assistant" && b.Type == "tool_use":
			var args bytes.Buffer
			if err := json.Compact(&args, b.Input); err != nil {
				return nil, fmt.Errorf("tool_use %q input: %w", b.ID, err)
			}
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockToolCall, Call: len(asst.ToolCalls)})
			asst.ToolCalls = append(asst.ToolCalls, llmstream.ToolCall{ID: b.ID, Type: "function", Function: llmstream.FunctionCall{Name: b.Name, Arguments: args.String()}})
		case role == "assistant":
			blocks = append(blocks, llmstream.Block{Type: b.Type, Raw: bytes.Clone(rb)})
			raw = true
		case b.Type == "tool_result":
			text, err := anthropicText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result %q content: %w", b.ToolUseID, err)
			}
			out = append(out, llmstream.Message{Role: "tool", ToolCallID: b.ToolUseID, Content: text, IsError: b.IsError})
		case b.Type == "text":
			if n := len(out); n > 0 && out[n-1].Role == role {
				out[n-1].Content += b.Text
			} else {
				out = append(out, llmstream.Message{Role: role, Content: b.Text})
			}
		}
	}
	if role != "assistant" {
		return out, nil
	}
	if raw {
		asst.Continuity = &llmstream.Continuity{Dialect: llmstream.DialectAnthropic, Blocks: blocks}
	}
	return []llmstream.Message{asst}, nil
}
