package llmstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
)

// readWhole reads a non-streaming chat completion, which some servers send
// when they ignore "stream": true, into s as a decoder would a stream: the
// same materialized message, with the same deltas delivered (all at once)
// and the same validation of its tool calls by the assembler.
// Bodies over limit bytes (maxWholeBytes in production) fail with
// sse.ErrEventTooLarge; a body that broke off is [ErrInterrupted], as a
// stream would be.
func (chatProtocol) readWhole(s sink, r io.Reader, limit int) {
	data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	switch {
	case err != nil:
		s.fail(interrupted(err))
		return
	case len(data) > limit:
		s.fail(fmt.Errorf("llmstream: a whole JSON completion of more than %d bytes: %w", limit, sse.ErrEventTooLarge))
		return
	}
	var resp struct {
		Choices []struct {
			Index        int             `json:"index"`
			Message      json.RawMessage `json:"message"`
			FinishReason string          `json:"finish_reason"`
		} `json:"choices"`
		Usage *Usage          `json:"usage"`
		Error json.RawMessage `json:"error"`
		Model json.RawMessage `json:"model"` // a string, else ignored
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		s.fail(s.eventError(data, 0, fmt.Errorf("a JSON completion: %w", err)))
		return
	}
	if len(resp.Error) > 0 && string(resp.Error) != "null" {
		s.fail(s.apiError(resp.Error))
		return
	}
	s.setUsage(resp.Usage)
	s.setModelName(jsonString(resp.Model))
	for _, ch := range resp.Choices {
		if ch.Index == 0 {
			wholeChoice(s, data, ch.Message)
			s.setFinish(ch.FinishReason, chatStopReason(ch.FinishReason))
			break
		}
	}
	if !s.failed() && s.finish() == "error" {
		s.fail(finishError())
	}
	s.end()
}

// wholeChoice applies the message of choice 0, read as the streaming path
// reads a delta: a content array split into text and reasoning parts, a
// member of another type than expected ignored.
func wholeChoice(s sink, data, raw json.RawMessage) {
	var m struct {
		Content   json.RawMessage `json:"content"`
		Refusal   json.RawMessage `json:"refusal"`
		ToolCalls []ToolCall      `json:"tool_calls"`
	}
	err := json.Unmarshal(raw, &m)
	var reasoning string
	if err == nil {
		reasoning, err = firstReasoning(raw)
	}
	if err != nil {
		s.fail(s.eventError(data, 0, fmt.Errorf("a JSON completion's message: %w", err)))
		return
	}
	content, partReasoning := contentParts(m.Content)
	for _, t := range []struct {
		kind bufKind
		text string
	}{{inReasoning, reasoning + partReasoning}, {inContent, content}, {inRefusal, jsonString(m.Refusal)}} {
		if t.text != "" && s.appendRaw(t.kind, t.text) != nil {
			return
		}
	}
	for i, c := range m.ToolCalls {
		f := toolcall.Fragment{Index: i, ID: c.ID, Type: c.Type, Name: c.Function.Name, Arguments: c.Function.Arguments, Extra: c.Extra}
		if s.addFragment(f) != nil {
			return
		}
	}
}

// contentParts splits a message's content as the streaming path does
// (chatDecoder.contentPart): a string is answer text; in an array, a
// "text" part or one with no type is answer text, a "thinking" or
// "reasoning" part is reasoning (its "thinking" member, else its "text";
// a string, or nested parts whose "text" is taken, as Mistral sends
// thinking), and every other element is skipped.
func contentParts(raw json.RawMessage) (text, reasoning string) {
	if s := jsonString(raw); s != "" {
		return s, ""
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return "", ""
	}
	var out [2][]byte // answer text, reasoning
	for _, p := range parts {
		var part map[string]json.RawMessage
		if json.Unmarshal(p, &part) != nil {
			continue // not an object
		}
		kind, value := 0, part["text"]
		if typ, ok := part["type"]; ok && len(typ) > 0 && typ[0] == '"' {
			switch jsonString(typ) {
			case "text":
			case "thinking", "reasoning":
				kind = 1
				if th, ok := part["thinking"]; ok {
					value = th
				}
			default:
				continue
			}
		}
		if s := jsonString(value); s != "" {
			out[kind] = append(out[kind], s...)
			continue
		}
		var nested []json.RawMessage
		if json.Unmarshal(value, &nested) != nil {
			continue
		}
		for _, n := range nested {
			var inner struct {
				Text json.RawMessage `json:"text"`
			}
			if json.Unmarshal(n, &inner) == nil {
				out[kind] = append(out[kind], jsonString(inner.Text)...)
			}
		}
	}
	return string(out[0]), string(out[1])
}

// firstReasoning returns the message's reasoning text: of
// "reasoning_content" and "reasoning", the first non-empty string in member
// order, as the streaming path takes it (servers that send both send the
// same text).
func firstReasoning(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", err // Unmarshal into a Message already refused anything else
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", err
		}
		var text string
		if k := key.(string); (k == "reasoning_content" || k == "reasoning") && json.Unmarshal(v, &text) == nil && text != "" {
			return text, nil // a member that is not a string is ignored, as when streaming
		}
	}
	return "", nil
}
