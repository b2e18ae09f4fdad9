// Package llmstreamtest provides a fake OpenAI-compatible chat-completions
// server for tests and offline demos, in the manner of net/http/httptest:
// a real HTTP server on a loopback port that streams scripted assistant
// turns as Server-Sent Events.
//
//	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(
//		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
//		llmstreamtest.Turn{Text: "The module is airlock."},
//	))
//	defer srv.Close()
//	// point a client at srv.URL (or srv.URL+"/v1"), using srv.Client()
//
// # What is served
//
// POST /chat/completions and POST /v1/chat/completions with a JSON body
// whose "stream" is true. Each such request gets the next turn of the
// script ([WithTurns]) or the turn a function chooses for it
// ([WithResponder]). Every request, good or bad, is recorded and available
// from [Server.Requests]. A request the server cannot serve as scripted is
// answered with an OpenAI-shaped JSON error ({"error":{"message","type",
// "param","code"}}) whose message is the text of a [*RequestError]:
//
//	wrong method                  405  ErrBadRequest
//	other path                    404  ErrBadRequest
//	body over the limit           413  ErrBadRequest
//	body not a chat request       400  ErrBadRequest
//	"stream" not true             400  ErrBadRequest
//	script used up / none given   500  ErrNoTurn
//	invalid turn                  500  ErrBadTurn
//	invalid option                500  ErrBadOption
//
// # The stream
//
// A turn is streamed as chat.completion.chunk events, each
// "data: <json>\n\n" written and flushed on its own, ending with
// "data: [DONE]\n\n". Every chunk has id ("chatcmpl-<seq>"), object,
// created (a fixed time), model (the request's, "llmstreamtest" if empty)
// and choices with index, delta, logprobs (null) and finish_reason. Strings
// are encoded by encoding/json. Text, reasoning and refusal arrive a word
// at a time (words over 16 bytes are cut); tool-call arguments arrive in
// fragments of 1 to 6 bytes, each extended to the next UTF-8 rune start,
// sizes drawn from a generator seeded by [WithSeed] and the request's
// number, so the same script gives the same bytes. [WithInterleavedCalls]
// mixes the fragments of parallel calls. [Flavor] selects whose shapes
// to imitate: [OpenAI] (the default), [Azure], [Ollama], [Gemini], [VLLM],
// [LlamaCpp].
//
// The finish reason defaults to "tool_calls" for a turn with calls and
// "stop" otherwise (always "stop" for Gemini). Usage is sent only when the
// turn has one; most flavours send it only when the request asked
// stream_options.include_usage.
//
// # Faults
//
// [Turn.Fault] injects one failure: an HTTP error status with a JSON body
// and Retry-After, possibly for the first N attempts only ([FaultStatus]);
// an in-stream error event ([FaultErrorEvent]); OpenRouter's
// finish_reason "error" ([FaultErrorFinish]); llama.cpp's "error:" SSE line
// ([FaultErrorLine]); a dropped connection ([FaultCut]); a stall until the
// client leaves or the server closes ([FaultStall]); an event that is not
// JSON ([FaultMalformed]); a clean end with neither finish reason nor
// [DONE] ([FaultTruncate]). [Turn.KeepAlive] adds ": keep-alive" comments.
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
// handler has; no goroutine of the server outlives it. [NewTestServer]
// ties Close to a test's cleanup.
package llmstreamtest
