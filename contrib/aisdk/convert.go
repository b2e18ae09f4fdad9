package aisdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
)

// ErrInvalidMessages reports UI messages that do not make a conversation:
// a role other than "user", "system" or "assistant", a part of a type this
// package does not read, tool input that is not a JSON object. The error
// is a [*MessageError] that unwraps to it.
var ErrInvalidMessages = errors.New("aisdk: invalid UI messages")

// MessageError says which message and part of a conversation is invalid.
// It unwraps to [ErrInvalidMessages].
type MessageError struct {
	// Message and Part are the indexes of the offending message and part
	// (Part is -1 when the message as a whole is wrong).
	Message, Part int
	// Reason says what is wrong.
	Reason string
}

// Error names the message, the part and the reason.
func (e *MessageError) Error() string {
	where := "message " + strconv.Itoa(e.Message)
	if e.Part >= 0 {
		where += " part " + strconv.Itoa(e.Part)
	}
	return "aisdk: invalid UI messages: " + where + ": " + e.Reason
}

// Unwrap returns [ErrInvalidMessages].
func (e *MessageError) Unwrap() error { return ErrInvalidMessages }

// ToUIMessages converts a conversation to UI messages, the form a chat UI
// shows: each user or system message becomes one with a text part; the
// assistant messages and tool answers between two user messages become
// one assistant message with a step per model call, each step its
// reasoning, its text and one tool part per call, in the state its answer
// gives (an answer marked IsError is "output-error", any other
// "output-available" with the answer as a JSON string; a call with no
// answer yet is "input-available"). A refusal is shown as text. Message
// ids are "m0", "m1", ... by position. msgs is not modified.
//
// [FromUIMessages] turns the result back into msgs, except for what a
// chat UI has no place for: the provider's continuity state, usage, the
// finish reason, and a refusal, which comes back as text. Approvals are
// not in msgs, so no part comes out "approval-requested" or
// "output-denied"; a denied call shows its answer.
func ToUIMessages(msgs []llmstream.Message) []UIMessage {
	var out []UIMessage
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			if n := len(out); n == 0 || out[n-1].Role != "assistant" {
				out = append(out, UIMessage{ID: "m" + strconv.Itoa(n), Role: "assistant", Parts: []UIPart{}})
			}
			a := &out[len(out)-1]
			a.Parts = append(a.Parts, UIPart{Type: "step-start"})
			if m.Reasoning != "" {
				a.Parts = append(a.Parts, UIPart{Type: "reasoning", Text: m.Reasoning, State: "done"})
			}
			if text := m.Content + m.Refusal; text != "" {
				a.Parts = append(a.Parts, UIPart{Type: "text", Text: text, State: "done"})
			}
			for _, c := range m.ToolCalls {
				a.Parts = append(a.Parts, UIPart{Type: toolPartPrefix + c.Function.Name, ToolCallID: c.ID, State: stateInputAvailable, Input: callInput(c.Function.Arguments)})
			}
		case "tool":
			if n := len(out); n > 0 && out[n-1].Role == "assistant" {
				if p := findToolPart(&out[n-1], m.ToolCallID); p != nil {
					setAnswer(p, m.Content, m.IsError)
				}
			}
		default:
			out = append(out, UIMessage{ID: "m" + strconv.Itoa(len(out)), Role: m.Role, Parts: []UIPart{{Type: "text", Text: m.Content}}})
		}
	}
	return out
}

// setAnswer puts a tool's answer in its part.
func setAnswer(p *UIPart, content string, isError bool) {
	if isError {
		p.State, p.ErrorText = stateOutputError, content
		return
	}
	out, _ := json.Marshal(content) // a string always encodes
	p.State, p.Output = stateOutputAvailable, out
}

// callInput is a call's arguments as the input of its tool part: the JSON
// as the model sent it, {} for none, or a JSON string holding the text
// when it is not JSON at all.
func callInput(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// FromUIMessages converts UI messages to a conversation, the inverse of
// [ToUIMessages]: a user or system message's text parts joined; each step
// of an assistant message one assistant message (reasoning and text
// joined, one call per tool part, its arguments the part's input as
// compact JSON) followed by one tool message per answered call, in call
// order: "output-available" gives the output (a JSON string's text, other
// JSON as it is), "output-error" the error text with IsError, and
// "output-denied" the answer a denial gets ("denied: " and the reason).
// A call in any other state has no answer yet. Invalid input is a
// [*MessageError]; ui is not modified.
func FromUIMessages(ui []UIMessage) ([]llmstream.Message, error) {
	var out []llmstream.Message
	for i, m := range ui {
		switch m.Role {
		case "user", "system":
			var b strings.Builder
			for j, p := range m.Parts {
				if p.Type != "text" {
					return nil, &MessageError{Message: i, Part: j, Reason: "a " + m.Role + " message part of type " + strconv.Quote(p.Type)}
				}
				b.WriteString(p.Text)
			}
			out = append(out, llmstream.Message{Role: m.Role, Content: b.String()})
		case "assistant":
			var err error
			if out, err = appendSteps(out, i, m.Parts); err != nil {
				return nil, err
			}
		default:
			return nil, &MessageError{Message: i, Part: -1, Reason: "role " + strconv.Quote(m.Role)}
		}
	}
	return out, nil
}

// appendSteps appends the steps of an assistant message's parts.
func appendSteps(out []llmstream.Message, i int, parts []UIPart) ([]llmstream.Message, error) {
	var step llmstream.Message
	var answers []llmstream.Message
	open := false
	flush := func() {
		if open {
			out = append(out, step)
			out = append(out, answers...)
		}
		step, answers, open = llmstream.Message{Role: "assistant"}, nil, false
	}
	for j, p := range parts {
		switch {
		case p.Type == "step-start":
			flush()
			open = true
		case p.Type == "text":
			step.Content += p.Text
			open = true
		case p.Type == "reasoning":
			step.Reasoning += p.Text
			open = true
		case p.isToolPart():
			args, err := callArguments(p.Input)
			if err != nil {
				return nil, &MessageError{Message: i, Part: j, Reason: err.Error()}
			}
			step.ToolCalls = append(step.ToolCalls, llmstream.ToolCall{ID: p.ToolCallID, Type: "function", Function: llmstream.FunctionCall{Name: p.toolName(), Arguments: args}})
			if a, ok := answerOf(&p); ok {
				answers = append(answers, a)
			}
			open = true
		default:
			return nil, &MessageError{Message: i, Part: j, Reason: "a part of type " + strconv.Quote(p.Type)}
		}
	}
	flush()
	return out, nil
}

// callArguments is a tool part's input as call arguments: compact JSON,
// or the text of a JSON string (input that was not JSON).
func callArguments(input json.RawMessage) (string, error) {
	if len(input) == 0 {
		return "{}", nil
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		return s, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, input); err != nil {
		return "", fmt.Errorf("tool input is not JSON: %v", err)
	}
	return b.String(), nil
}

// answerOf is the tool message a tool part's state gives, if any.
func answerOf(p *UIPart) (llmstream.Message, bool) {
	a := llmstream.Message{Role: "tool", ToolCallID: p.ToolCallID}
	switch p.State {
	case stateOutputAvailable:
		var s string
		if json.Unmarshal(p.Output, &s) == nil {
			a.Content = s
		} else {
			a.Content = string(p.Output)
		}
	case stateOutputError:
		a.Content, a.IsError = p.ErrorText, true
	case stateOutputDenied:
		a.Content = "denied: the call was not approved"
		if p.Approval != nil && p.Approval.Reason != "" {
			a.Content = "denied: " + p.Approval.Reason
		}
	default:
		return a, false
	}
	return a, true
}
