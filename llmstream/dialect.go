package llmstream

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/airlock-go/airlock/sse"
)

// Dialect is the wire protocol a [Client] speaks and a [Bridge] reads. Every
// dialect gives the same [Message], with the same guarantees: bounded,
// independent of how the bytes were split, typed errors, no half-formed
// call. The zero value means [DialectChat].
type Dialect uint8

const (
	// DialectChat is OpenAI Chat Completions and every server compatible
	// with it (Azure, vLLM, Ollama, llama.cpp, OpenRouter, Groq, DeepSeek,
	// Mistral, Gemini's OpenAI endpoint, ...): POST {base}/chat/completions
	// with "Authorization: Bearer <key>". Each event's data is one
	// chat.completion.chunk; of its choices only index 0 is followed:
	//
	//	{"error":{...}} (non-null)        → *APIError, message/type/code kept exactly
	//	data that is not one JSON object  → *EventError (ErrBadEvent), raw data kept
	//	delta.content                     → text (a string, or parts: "text" parts are
	//	                                    text, "thinking"/"reasoning" parts reasoning)
	//	delta.reasoning_content/reasoning → reasoning (both in one delta: the first)
	//	delta.refusal                     → refusal
	//	delta.tool_calls                  → the toolcall.Assembler
	//	finish_reason                     → kept; "error" fails the stream (OpenRouter)
	//	usage, x_groq.usage               → kept, the last one wins
	//	event: error, an "error:" field   → *APIError (llama.cpp reports failures so)
	//
	// Empty or absent choices, a choice with no delta, null for any member,
	// role on every chunk and unknown members are normal; a delta and a
	// finish reason in one chunk apply the delta first. The stream ends
	// properly with "[DONE]", or at its end after a finish reason. A whole
	// JSON completion (a server that ignored "stream") is read too.
	DialectChat Dialect = iota + 1
	// DialectAnthropic is Anthropic's Messages API: POST {base}/messages
	// (base [DefaultAnthropicBaseURL]) with "x-api-key" and
	// "anthropic-version: 2023-06-01":
	//
	//	message_start                       → input usage
	//	text blocks (text_delta)            → text, in block order, nothing inserted
	//	thinking blocks (thinking_delta,    → reasoning; the block with its signature
	//	  signature_delta)                    kept whole in Continuity
	//	tool_use blocks (input_json_delta)  → calls by block index; the start's empty
	//	                                      input is replaced, never merged
	//	other blocks (redacted_thinking,    → kept whole in Continuity, never in
	//	  server_tool_use, *_tool_result,     Content or the calls
	//	  compaction, ...)
	//	message_delta                       → stop reason; usage (cumulative)
	//	message_stop                        → the proper end
	//	event: error                        → *APIError
	//
	// A second message_start, an event for a block never started or
	// already stopped, or a block started twice is [ErrOutOfOrder]; pings
	// and unknown event types are ignored. Requests send system messages
	// as "system", tool answers as tool_result blocks (is_error for a
	// failed tool), calls as tool_use blocks, Continuity back in place, and
	// max_tokens always ([DefaultAnthropicMaxTokens] when unset); the shapes
	// Anthropic refuses are mended: all-blank assistant text is left out,
	// an empty tool answer has no content (a failed one a short text), and
	// a tool id with bytes outside [A-Za-z0-9_-] (made by another provider)
	// gets them as '_' plus a hash of the id, on the call and its answer.
	DialectAnthropic
	// DialectResponses is OpenAI's Responses API: POST {base}/responses
	// (base [DefaultResponsesBaseURL]) with "Authorization: Bearer <key>":
	//
	//	response.output_text.delta           → text (by output item, in order)
	//	response.refusal.delta               → refusal
	//	response.reasoning_summary_text /    → reasoning; the reasoning item itself (its
	//	  reasoning_text deltas                encrypted_content) kept in Continuity
	//	function_call items by output_index  → calls (ID is call_id); the full arguments
	//	  (function_call_arguments.delta)      of *.done / output_item.done win
	//	other tool items (custom_tool_call,  → kept whole in Continuity, never run
	//	  web_search_call, shell_call, ...)
	//	response.completed                   → the proper end, with usage
	//	response.incomplete                  → the proper end of a length or filter stop
	//	response.failed, error events        → *APIError
	//
	// Items are followed by output_index, never by item id (a proxy
	// rotates those); *.done text is used only where no delta came.
	// Requests are stateless by default ("store": false, "include":
	// ["reasoning.encrypted_content"]): the reasoning items come back in
	// [Message.Continuity] and go back in the next request.
	// [Request.Extra] may set "store", "include" and "reasoning" in place of
	// the dialect's own. OpenAI refuses that include for a model that does
	// not reason ("Encrypted content is not supported with this model"), so
	// it is left out for the GPT-4 and GPT-3.5 families, chatgpt-* and the
	// *-chat-latest aliases unless [Request.ReasoningEffort] is set;
	// another model that does not reason (an Azure deployment's own name)
	// needs Extra {"include": []}. OpenAI refuses the reasoning summary
	// asked for with [Request.ReasoningEffort] for an organization it has
	// not verified: Extra {"reasoning": {"effort": "low"}} asks for none.
	DialectResponses
	// DialectGemini is Google's Gemini API: POST
	// {base}/models/{model}:streamGenerateContent?alt=sse (base
	// [DefaultGeminiBaseURL]) with "x-goog-api-key"; each event is one
	// GenerateContentResponse, and of its candidates the first is
	// followed:
	//
	//	text parts                        → text
	//	text parts with "thought": true   → reasoning (kept in Continuity too)
	//	functionCall parts                → calls, whole (args an object; an id made
	//	                                    up as call_<n> when none came), or
	//	                                    streamed as partialArgs whose JSON paths
	//	                                    build the arguments ([ErrArgumentPath])
	//	thoughtSignature on any part      → kept with that part in Continuity and
	//	                                    written back on it
	//	executableCode, inlineData, ...   → kept in Continuity, out of Content
	//	finishReason                      → kept; SAFETY and its kin and
	//	                                    MALFORMED_FUNCTION_CALL fail the stream
	//	promptFeedback.blockReason        → fails the stream
	//	usageMetadata                     → usage, the last one wins
	//
	// The stream ends properly at its end after a candidate carried a
	// finishReason. A request without a model fails with
	// [ErrInvalidRequest]: the URL names it. Gemini 3 and later models
	// refuse calls sent back without their thoughtSignature, so for them an
	// assistant message whose calls are all unsigned (from another dialect,
	// or saved without its Continuity) gets Google's documented placeholder,
	// "skip_thought_signature_validator", on its first call.
	DialectGemini
	// DialectBedrock is Amazon Bedrock's Converse API, streamed: POST
	// {base}/model/{modelId}/converse-stream (base [DefaultBedrockBaseURL],
	// or [BedrockBaseURL] of a region) with a Bedrock API key as
	// "Authorization: Bearer" (or no key, and a Doer that signs the request
	// with SigV4: contrib/aws). The answer is AWS event-stream frames
	// (package eventstream), not SSE; each frame's payload is one event:
	//
	//	contentBlockDelta text               → text
	//	contentBlockStart toolUse +          → calls by contentBlockIndex (ID is
	//	  contentBlockDelta toolUse.input      toolUseId), the input fragments joined
	//	contentBlockDelta reasoningContent   → reasoning; the block with its signature,
	//	  (text, signature, redactedContent)   or its redactedContent, kept in
	//	                                       Continuity and written back in place
	//	messageStop stopReason               → kept; guardrail_intervened and
	//	                                       content_filtered are StopContentFilter
	//	metadata usage                       → usage (before or after messageStop)
	//	exception frames (throttlingException, → *APIError with the exception type and
	//	  modelStreamErrorException, ...)       message kept exactly
	//
	// The stream ends properly at messageStop; reading goes on until its
	// metadata arrived or the body ended. A second messageStart, a delta for
	// a block that stopped, a tool-use delta for a block never started, or
	// content after messageStop is [ErrOutOfOrder]. A bad frame (a CRC, a
	// cut frame) is the eventstream package's error, in the chain. A
	// request without a model fails with [ErrInvalidRequest]: the URL names
	// it.
	DialectBedrock

	dialectEnd
)

// String returns the dialect's name: "chat", "anthropic", "responses",
// "gemini" or "bedrock" ("chat" for the zero value, which means it).
func (d Dialect) String() string {
	switch d.normal() {
	case DialectChat:
		return "chat"
	case DialectAnthropic:
		return "anthropic"
	case DialectResponses:
		return "responses"
	case DialectGemini:
		return "gemini"
	case DialectBedrock:
		return "bedrock"
	}
	return fmt.Sprintf("Dialect(%d)", uint8(d))
}

// ParseDialect returns the dialect named s, as flags and configuration
// files give it: "chat", "anthropic", "responses", "gemini" or "bedrock", in any case;
// "openai" is taken for "chat". Any other name is an error that lists the
// names.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "chat", "openai":
		return DialectChat, nil
	case "anthropic":
		return DialectAnthropic, nil
	case "responses":
		return DialectResponses, nil
	case "gemini":
		return DialectGemini, nil
	case "bedrock":
		return DialectBedrock, nil
	}
	return 0, fmt.Errorf("llmstream: unknown dialect %q (want chat, anthropic, responses, gemini or bedrock)", s)
}

// MarshalText returns the dialect's name, so a Dialect marshals as a JSON
// string and works with flag.TextVar.
func (d Dialect) MarshalText() ([]byte, error) {
	if d >= dialectEnd {
		return nil, fmt.Errorf("llmstream: unknown dialect %d", uint8(d))
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads a name as [ParseDialect] does.
func (d *Dialect) UnmarshalText(text []byte) error {
	v, err := ParseDialect(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// normal is d with the zero value resolved to DialectChat.
func (d Dialect) normal() Dialect {
	if d == 0 {
		return DialectChat
	}
	return d
}

// protocol is one wire dialect: how to build its request, read its stream
// and read its errors. One implementation per dialect_*.go file.
type protocol interface {
	// defaultBase is the base URL when none is set; emptyPath is the path
	// a base URL with none gets ("/v1").
	defaultBase() string
	emptyPath() string
	// endpoint returns the request URL for a normalized base URL.
	endpoint(base *url.URL, model string) (string, error)
	// header sets the dialect's authentication and protocol headers.
	header(h http.Header, apiKey string)
	// encode writes the request body for r, with every default applied.
	encode(r *Request, cfg *config) ([]byte, error)
	// doneSentinel is the SSE data that ends the stream, "" for none.
	doneSentinel() string
	// newDecoder returns the decoder of one stream into b.
	newDecoder(b *Bridge) decoder
	// parseError reads an error body or an in-stream error, its Kind set;
	// ok is false when raw is of no known shape.
	parseError(raw []byte, status int) (e *APIError, ok bool)
}

// framedProtocol is a protocol whose stream is not SSE (Bedrock's AWS
// event stream): it names the answer's media type and reads the body into
// events itself.
type framedProtocol interface {
	mediaType() string
	newSource(r io.Reader, b *Bridge) EventSource
}

// headerErrorParser is a protocol whose HTTP error answers may name their
// type in a header only (Bedrock's x-amzn-ErrorType); it is used instead
// of parseError for them.
type headerErrorParser interface {
	parseErrorHeader(raw []byte, status int, h http.Header) (*APIError, bool)
}

// decoder reads one stream's events into its Bridge. A decoder applies
// nothing of an event that fails: it validates the whole event first.
type decoder interface {
	// event applies one SSE event and returns the Bridge's error.
	event(ev *sse.Event) error
	// complete reports whether the stream, ending now, ended properly.
	complete() bool
}

// protocol returns d's implementation.
func (d Dialect) protocol() protocol {
	switch d.normal() {
	case DialectAnthropic:
		return anthropicProtocol{}
	case DialectResponses:
		return responsesProtocol{}
	case DialectGemini:
		return geminiProtocol{}
	case DialectBedrock:
		return bedrockProtocol{}
	}
	return chatProtocol{}
}
