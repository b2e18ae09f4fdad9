// Package llmstreamtest is a fake model server for tests and offline demos,
// in the manner of net/http/httptest: a real HTTP server on a loopback port
// that streams scripted assistant turns, records every request, and injects
// the failures real providers have — in each provider's own wire format.
//
//	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(
//		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
//		llmstreamtest.Turn{Text: "The module is airlock."},
//	))
//	client := llmstream.NewClient(srv.ClientOptions()...)
//	// srv.Requests() holds what the client sent, decoded
//
// [Server.ClientOptions] keeps airlock's transport (with fast retries), so a
// scripted 429 is retried as it would be in production; [Server.Client] is
// a plain *http.Client for other clients (openai-go, anthropic-sdk-go, ...),
// which replaces airlock's transport when given to llmstream.WithHTTPClient.
//
// # What is served
//
// One script, every dialect: the same [Turn] is streamed in the wire format
// of the path the request came to:
//
//	/chat/completions, /v1/chat/completions   OpenAI Chat Completions, in a [Flavor]
//	/messages, /v1/messages                   Anthropic Messages
//	/responses, /v1/responses                 OpenAI Responses API
//	/v1beta/models/{model}:streamGenerateContent   Gemini
//
// Each request gets the next turn of the script ([WithTurns]) or the turn a
// function chooses for it ([WithResponder]). Every request, good or bad, is
// recorded and available from [Server.Requests], decoded to the neutral
// llmstream form whatever its dialect (a system prompt as a "system"
// message, tool results as "tool" messages, an assistant's provider state
// as its Continuity). A request the server cannot serve as scripted is
// answered with the dialect's JSON error whose message is the text of a
// [*RequestError]:
//
//	wrong method                  405  ErrBadRequest
//	other path                    404  ErrBadRequest
//	body over the limit           413  ErrBadRequest
//	body not a request            400  ErrBadRequest
//	"stream" not true             400  ErrBadRequest
//	script used up / none given   500  ErrNoTurn     (with x-should-retry: false,
//	invalid turn                  500  ErrBadTurn     so no client retries a
//	invalid option                500  ErrBadOption   script's mistake)
//
// # The stream
//
// Text, reasoning and refusal arrive a word at a time (words over 16 bytes
// are cut); tool-call arguments arrive in fragments of 1 to 6 bytes, each
// extended to the next UTF-8 rune start, sizes drawn from a generator
// seeded by [WithSeed] and the request's number, so the same script gives
// the same bytes.
//
// Chat: chat.completion.chunk events ending with "data: [DONE]"; [Flavor]
// selects whose shapes to imitate ([OpenAI], the default, [Azure],
// [Ollama], [Gemini]'s OpenAI endpoint, [VLLM], [LlamaCpp]);
// [WithInterleavedCalls] mixes the fragments of parallel calls. The finish
// reason defaults to "tool_calls" for a turn with calls and "stop"
// otherwise; usage is sent when the turn has one (most flavours only when
// the request asked for it).
//
// Anthropic: message_start, a ping, a thinking block with its signature
// ([Turn.Signature]), text, refusal and tool_use blocks, message_delta with
// the stop reason and usage, message_stop.
//
// Responses: response.created and in_progress, then output items — a
// reasoning item (its encrypted_content is [Turn.Signature]), the message
// with its content parts and obfuscated deltas, function_call items
// (interleaved with [WithInterleavedCalls]) — each with its *.done events,
// and response.completed with usage (response.incomplete for a length or
// other finish reason).
//
// Gemini: one GenerateContentResponse per event (CRLF-framed, as Google
// writes them), thought parts with their thoughtSignature, text, whole
// functionCall parts (streamed as partialArgs with [WithStreamedArguments]),
// the finishReason and usageMetadata on the last chunk.
//
// # Faults
//
// [Turn.Fault] injects one failure, in the dialect's own form: an HTTP
// error status with the dialect's JSON body and Retry-After, possibly for
// the first N attempts only ([FaultStatus]); an in-stream error
// ([FaultErrorEvent]: chat's {"error":...} chunk, Anthropic's error event,
// the Responses error event);
// OpenRouter's finish_reason "error" and llama.cpp's "error:" SSE line
// (chat; Responses sends response.failed for the first, the other dialects
// their in-stream error); a dropped
// connection ([FaultCut]); a stall until the client leaves or the server
// closes ([FaultStall]); an event that is not JSON ([FaultMalformed]); a
// clean end before the stream's proper end ([FaultTruncate]).
// [Turn.KeepAlive] adds the dialect's keep-alives (": keep-alive" comments,
// Anthropic's pings).
//
// # Gemini
//
// POST /v1beta/models/{model}:streamGenerateContent is served in Gemini's
// native form (the model from the path, the request decoded back to the
// neutral form with its thought parts, signatures and call ids as
// Continuity): thought parts signed, whole function calls, or with
// [WithStreamedArguments] calls streamed as partialArgs; usageMetadata;
// errors as {"error":{"code","message","status","details"}}, a 429 with a
// google.rpc.RetryInfo in place of Retry-After. A FinishReason such as
// "SAFETY" or "MALFORMED_FUNCTION_CALL" ends the candidate with it;
// "blockReason:<REASON>" blocks the prompt instead.
//
// # Lifetime
//
// [Server.Close] ends every stream, stall and wait, and returns once every
// handler has; no goroutine of the server outlives it. A responder of the
// caller's that does not return cannot be stopped: after 5 seconds Close
// says which request it is waiting for, and goes on waiting, as httptest
// does. [NewTestServer] ties Close to a test's cleanup, [WithTLS] serves
// HTTPS with a certificate its clients trust, and [NewHandler] gives the
// server as an http.Handler to mount in a server of your own.
package llmstreamtest
