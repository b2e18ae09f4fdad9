package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/airlock-go/airlock/llmstream"
)

// Turn is one scripted assistant response: what the fake model says, how
// the stream ends, and what goes wrong. The zero value is a valid turn that
// streams no content and finishes with "stop".
//
// The server checks a turn when it serves it; a turn that breaks a rule
// below fails its request with [ErrBadTurn] and streams nothing.
//
// Text, reasoning and refusal are sent in word-sized pieces (a word with
// the whitespace after it, long words cut at 16 bytes, never inside a UTF-8
// sequence); the order in the stream is reasoning, text, refusal, tool calls.
//
// In each dialect a turn streams as its provider streams one:
//
//   - Chat: chat.completion.chunk events ending with "data: [DONE]"; [Flavor]
//     selects whose shapes to imitate ([OpenAI], the default, [Azure],
//     [Ollama], [Gemini]'s OpenAI endpoint, [VLLM], [LlamaCpp]);
//     [WithInterleavedCalls] mixes the fragments of parallel calls. The finish
//     reason defaults to "tool_calls" for a turn with calls and "stop"
//     otherwise; usage is sent when the turn has one (most flavours only when
//     the request asked for it).
//
//   - Anthropic: message_start, a ping, a thinking block with its signature
//     ([Turn.Signature]), text, refusal and tool_use blocks, message_delta with
//     the stop reason and usage, message_stop.
//
//   - Responses: response.created and in_progress, then output items — a
//     reasoning item (its encrypted_content is [Turn.Signature]), the message
//     with its content parts and obfuscated deltas, function_call items
//     (interleaved with [WithInterleavedCalls]) — each with its *.done events,
//     and response.completed with usage (response.incomplete for a length or
//     other finish reason).
//
//   - Gemini: one GenerateContentResponse per event (CRLF-framed, as Google
//     writes them), thought parts with their thoughtSignature, text, whole
//     functionCall parts (streamed as partialArgs with [WithStreamedArguments]),
//     the finishReason and usageMetadata on the last chunk.
//
//   - Bedrock: ConverseStream's AWS event-stream frames, not SSE: messageStart,
//     a reasoningContent block with its signature, text (a refusal is sent as
//     text: Bedrock has none), toolUse blocks whose input comes in 1–6 byte
//     pieces, messageStop with the stop reason ("tool_use" with calls, else
//     "end_turn") and metadata with the usage (cache reads and writes as
//     cacheReadInputTokens and cacheWriteInputTokens, outside inputTokens, as
//     Bedrock counts). Over HTTP/1.1 only: real Bedrock speaks HTTP/2, so a
//     client that insists on h2 cannot be tested here.
//
// A Turn is a plain value. The server takes a deep copy of every turn it is
// given (by [WithTurns] or returned by a responder), so the caller may reuse
// or change its own afterwards.
type Turn struct {
	// Text is the answer text. Must be valid UTF-8.
	Text string
	// Reasoning is the reasoning text, streamed before the answer in the
	// flavour's field ("reasoning_content", or "reasoning" for [Ollama]).
	// Must be valid UTF-8.
	Reasoning string
	// Refusal is refusal text, streamed in "refusal". Must be valid UTF-8.
	Refusal string
	// ToolCalls are the calls the model makes, in index order.
	ToolCalls []Call
	// Signature signs the reasoning in the dialects that sign it
	// (Anthropic's thinking signature; Gemini's thoughtSignature, on the
	// last thought part, the first call, or else the last part); empty
	// means one made up from the request number. Must be valid UTF-8 (and
	// base64 for Google's own SDK, which decodes it).
	Signature string
	// FinishReason is the finish reason sent; empty means "tool_calls" when
	// there are calls and "stop" otherwise ("stop" always for [Gemini]).
	FinishReason string
	// Model is the model the stream names (chat's and Responses' "model",
	// Anthropic's message.model, Gemini's modelVersion, and for Bedrock a
	// prompt router's trace.promptRouter.invokedModelId); empty means the
	// request's model, else "llmstreamtest" (and, for Bedrock, no trace).
	// Must be valid UTF-8.
	Model string
	// Usage is the token accounting sent, nil for none. Most flavours send
	// it only when the request asked stream_options.include_usage; see
	// [Flavor].
	Usage *llmstream.Usage
	// KeepAlive, when positive, writes that many ": keep-alive" comment
	// lines before the first chunk and one before each later chunk.
	// Negative is invalid.
	KeepAlive int
	// Fault is the failure to inject; the zero value injects none.
	Fault Fault
}

// Call is one scripted tool call, a plain value like [Turn].
type Call struct {
	// ID is the call's id. Empty means "call_<request seq>_<index>",
	// except for [Gemini], which sends it as it is ("id":"").
	ID string
	// Name is the function name. Must be non-empty and valid UTF-8.
	Name string
	// Arguments is the arguments JSON text, sent in fragments. It is not
	// checked, so a test can script arguments a client must reject; empty
	// sends none (clients then use "{}"). Must be valid UTF-8.
	Arguments string
	// Extra holds more members of the tool-call object, as a JSON object
	// (for example {"extra_content":{"google":{"thought_signature":"..."}}}),
	// sent on the call's first fragment; nil for none. Anything but a JSON
	// object, or an object with an "id", "index", "type" or "function"
	// member, is invalid.
	Extra json.RawMessage
}

// finishReason returns the finish reason the turn sends in flavour f.
func (t Turn) finishReason(f Flavor) string {
	switch {
	case t.FinishReason != "":
		return t.FinishReason
	case len(t.ToolCalls) > 0 && f != Gemini:
		return "tool_calls"
	}
	return "stop"
}

// callID returns the id call i of request seq is sent with.
func (c Call) callID(f Flavor, seq, i int) string {
	if c.ID == "" && f != Gemini {
		return "call_" + strconv.Itoa(seq) + "_" + strconv.Itoa(i)
	}
	return c.ID
}

// check returns what is wrong with the turn, "" when nothing is.
func (t Turn) check() string {
	for _, f := range []struct{ name, s string }{{"Text", t.Text}, {"Reasoning", t.Reasoning}, {"Refusal", t.Refusal}, {"Signature", t.Signature}, {"Model", t.Model}} {
		if !utf8.ValidString(f.s) {
			return f.name + " is not valid UTF-8"
		}
	}
	if t.KeepAlive < 0 {
		return fmt.Sprintf("KeepAlive is %d, below 0", t.KeepAlive)
	}
	for i, c := range t.ToolCalls {
		if msg := c.check(); msg != "" {
			return fmt.Sprintf("ToolCalls[%d]: %s", i, msg)
		}
	}
	if msg := t.Fault.check(); msg != "" {
		return "Fault: " + msg
	}
	return ""
}

func (c Call) check() string {
	switch {
	case c.Name == "":
		return "Name is empty"
	case !utf8.ValidString(c.Name):
		return "Name is not valid UTF-8"
	case !utf8.ValidString(c.ID):
		return "ID is not valid UTF-8"
	case !utf8.ValidString(c.Arguments):
		return "Arguments is not valid UTF-8"
	}
	if c.Extra != nil {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(c.Extra, &members); err != nil || members == nil {
			return "Extra is not a JSON object"
		}
		for _, k := range []string{"id", "index", "type", "function"} {
			if _, ok := members[k]; ok {
				return "Extra has the member " + strconv.Quote(k) + ", which the server writes itself"
			}
		}
	}
	return ""
}

func (f Fault) check() string {
	switch {
	case f.Kind >= faultKindEnd:
		return "Kind " + f.Kind.String() + " is unknown"
	case f.After < 0:
		return fmt.Sprintf("After is %d, below 0", f.After)
	case f.Attempts < 0:
		return fmt.Sprintf("Attempts is %d, below 0", f.Attempts)
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Sprintf("Status is %d, outside 400–599", f.Status)
	case f.Code != nil && !json.Valid(f.Code):
		return "Code is not valid JSON"
	case !utf8.ValidString(f.Message):
		return "Message is not valid UTF-8"
	case !utf8.ValidString(f.Type):
		return "Type is not valid UTF-8"
	case strings.ContainsFunc(f.RetryAfter, isControl):
		return "RetryAfter contains a control character"
	}
	return ""
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// clone returns a copy of the turn that shares no memory with t, so a
// script cannot change under a server after it was handed over.
func (t Turn) clone() Turn {
	t.ToolCalls = append([]Call(nil), t.ToolCalls...)
	for i := range t.ToolCalls {
		t.ToolCalls[i].Extra = bytes.Clone(t.ToolCalls[i].Extra)
	}
	if t.Usage != nil {
		u := *t.Usage
		t.Usage = &u
	}
	t.Fault.Code = bytes.Clone(t.Fault.Code)
	return t
}
