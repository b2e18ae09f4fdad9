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
//	/model/{modelId}/converse-stream          Amazon Bedrock ConverseStream (event-stream frames)
//
// Each request gets the next turn of the script ([WithTurns]) or the turn a
// function chooses for it ([WithResponder]). Every request, good or bad, is
// recorded and available from [Server.Requests], decoded to the neutral
// llmstream form whatever its dialect (a system prompt as a "system"
// message, tool results as "tool" messages, an assistant's provider state
// as its Continuity). A request the server cannot serve as scripted is
// answered with the dialect's JSON error (see [RequestError]).
//
// # The stream
//
// Text, reasoning and refusal arrive a word at a time (words over 16 bytes
// are cut); tool-call arguments arrive in fragments of 1 to 6 bytes, each
// extended to the next UTF-8 rune start, sizes drawn from a generator
// seeded by [WithSeed] and the request's number, so the same script gives
// the same bytes. [Turn] says how each dialect streams a turn.
//
// # Faults
//
// [Turn.Fault] injects one failure in the dialect's own form: an HTTP error
// status (for the first N attempts, with Retry-After), an in-stream error,
// a cut connection, a stall, an event that is not JSON, a clean end before
// the proper one; [FaultKind] lists them. [Turn.KeepAlive] adds the
// dialect's keep-alives.
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
