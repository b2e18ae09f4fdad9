// Package llmstream turns an OpenAI-compatible chat-completions stream into
// one materialized assistant [Message]: the text, the reasoning, and
// complete, validated tool calls. Nothing half-formed crosses that line: a
// tool call whose arguments are still arriving is shown as progress
// ([Delta]), never handed out as a call that may run.
//
// # Three ways in
//
//   - [Client.Stream] (or [Client.Complete]) sends a request to a server and
//     returns the message; *Client satisfies agentloop.Model.
//   - [ReadMessage] decodes a whole SSE body you already have (a recorded
//     stream, a body from your own HTTP client).
//   - [Bridge] takes events one at a time from any [EventSource], for code
//     that owns the SSE layer.
//
// # The stream contract
//
// Each event's data is one chat.completion.chunk JSON object. Per event:
//
//	{"error":{...}} (non-null)          → *APIError, message/type/code kept exactly
//	data that is not one JSON object    → *EventError (ErrBadEvent), raw data kept
//	choices[0].delta.content            → text (empty strings are not delivered)
//	  .reasoning_content / .reasoning   → reasoning
//	  .refusal                          → refusal
//	  .tool_calls                       → the toolcall.Assembler
//	choices[0].finish_reason            → kept; "error" fails the stream
//	usage, x_groq.usage                 → kept, the last one wins
//	event: error, or an "error:" field  → *APIError (llama.cpp reports failures this way)
//
// Empty or absent choices, a choice with no delta, null for any member,
// role on every chunk, and unknown members are all normal. When one chunk
// carries a delta and a finish reason, the delta is applied first.
//
// The stream ends properly with data "[DONE]", or at the end of the body
// after a finish reason. An end with neither is [ErrTruncated]; the partial
// message comes back with it for display, without tool calls. Then the
// assembler validates every call's arguments as JSON; a failure there fails
// the message. Reading stops at the first failure, and that failure's cause
// is the error returned. A message that carries tool calls is a tool-call
// turn whatever its finish reason says (Gemini sends "stop").
//
// # Gemini
//
// With [DialectGemini] each event is one GenerateContentResponse of
// streamGenerateContent: the parts of candidate 0 give the text, the
// thought parts the reasoning, functionCall parts the calls (whole, or
// streamed as partialArgs whose JSON paths build the arguments under the
// same limit, [ErrArgumentPath] when they cannot), and every
// thoughtSignature stays with its part in [Message.Continuity]. A
// finishReason that leaves no answer (SAFETY and its kin,
// MALFORMED_FUNCTION_CALL) or a blocked prompt fails the stream with an
// [*APIError]; the stream ends properly at its end after a finishReason.
//
// # Speed
//
// The chunk shape is decoded by a purpose-built single-pass scanner that
// validates the whole event as it goes and appends text straight into the
// message: no allocation per event in steady state (with a [WithOnDelta]
// callback, one string per delivered delta; each tool-call fragment's
// strings cost one or two). It is fuzzed against
// encoding/json (FuzzChunk) so speed never costs correctness.
//
// # Errors
//
// Every error is typed: [*APIError] when the provider said so;
// [ErrTruncated], [*EventError], [ErrIdleTimeout] and [*ContentTypeError]
// ([ErrNotEventStream]) when this package inferred it; [ErrAborted] (with
// the callback's own error) when the caller stopped it; [*ToolCallsError]
// when the stream ended properly but a call's arguments are not JSON;
// toolcall's errors for calls past a limit; sse.ErrEventTooLarge for an
// oversized event; and the transport's errors (transport.ErrTimeout,
// transport.ErrStalled, context.Canceled, ...) unchanged in the chain.
//
// Whether to try again: a stream that began and broke — cut, stalled,
// silent, timed out, ended early — matches [ErrInterrupted], and sending
// the same request again is reasonable; so it is for an [*APIError] whose
// [APIError.Retryable] is true (rate limited, overloaded, a server error).
// A bad request, a rejected key, a bad event, a content filter or the
// caller's own cancellation fails the same way again.
//
// No error, error field or transport event ever holds a credential the
// request carried — the API key, any [WithHeader] value, a secret query
// value of the base URL, a [WithSecrets] value — whatever HTTP client sent
// it: a server that echoes one gets it replaced by "REDACTED".
package llmstream
