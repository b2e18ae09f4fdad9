// Package llmstream turns a model's streamed response — OpenAI Chat
// Completions, Anthropic Messages, the OpenAI Responses API, Gemini (also on
// Vertex AI, [WithVertex]) or Amazon Bedrock's ConverseStream — into
// one materialized assistant [Message]: the text, the reasoning, and
// complete, validated tool calls. A tool call whose arguments are still
// arriving is shown as progress ([Delta]), never handed out as a call that
// may run.
//
//	client := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic),
//		llmstream.WithAPIKey(os.Getenv("ANTHROPIC_API_KEY")), llmstream.WithModel("claude-sonnet-4-5"))
//	msg, err := client.Stream(ctx, llmstream.Request{
//		Messages: []llmstream.Message{{Role: "user", Content: "What is in go.mod?"}},
//		Tools:    tools,
//		OnDelta:  func(d llmstream.Delta) error { fmt.Print(d.Text); return nil },
//	})
//	// msg.ToolCalls are whole and valid JSON; append msg to the conversation as it is
//
// # Three ways in
//
//   - [Client.Stream] sends a [Request] and returns the message; *Client
//     satisfies agentloop.Model.
//   - [ReadMessage] decodes a whole SSE body you already have (a recording,
//     a body from your own HTTP client).
//   - [Bridge] takes events one at a time from any [EventSource].
//
// # One Message from four dialects
//
// [WithDialect] picks the wire; each [Dialect] constant documents how its
// events map. Whatever the dialect: text is [Message.Content], reasoning
// [Message.Reasoning], calls [Message.ToolCalls], the raw finish reason
// [Message.FinishReason] and its meaning [Message.StopReason], token counts
// [Message.Usage]; the provider state the next request needs (thinking
// signatures, encrypted reasoning, thought signatures) is
// [Message.Continuity], which marshals with the message and which the same
// dialect writes back exactly. A message that carries tool calls is a
// tool-call turn whatever the finish reason says. The stream must end the
// dialect's proper way; any other end is [ErrTruncated], and the message
// that comes with it has the text so far and never a call.
//
// # Errors
//
// Every error is typed: [*APIError] (with a normalized [ErrorKind]) when the
// provider said so; [ErrTruncated], [*EventError] ([ErrBadEvent],
// [ErrOutOfOrder]), [ErrIdleTimeout] and [*ContentTypeError] when this
// package inferred it; [ErrAborted] when the delta callback stopped it;
// [*ToolCallsError] when the stream ended properly with arguments that are
// not JSON; toolcall's limit errors; sse.ErrEventTooLarge; and the
// transport's errors unchanged in the chain. A stream that broke once it
// had begun matches [ErrInterrupted]: sending the same request again is
// reasonable, as it is for an [*APIError] whose Retryable is true.
//
// No error, error field, log line or transport event ever holds a
// credential the request carried, whatever HTTP client sent it: a server
// that echoes one gets it replaced by "REDACTED". Values shorter than 8
// bytes are not taken for credentials: hiding "ollama" or "EMPTY", the
// placeholder keys of local servers, would garble messages.
//
// # Speed
//
// Every dialect is decoded by a single-pass scanner that validates each
// event whole before applying it and appends text straight into the
// message: no allocation per event in steady state (a [WithOnDelta]
// callback costs one string per delta). The chat decoder is fuzzed against
// encoding/json (FuzzChunk), every dialect against every chunking
// (FuzzReadMessage).
package llmstream
