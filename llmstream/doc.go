// Package llmstream turns a model's streamed response — OpenAI Chat
// Completions, Anthropic Messages, the OpenAI Responses API, Gemini (also on
// Vertex AI, [WithVertex]) or Amazon Bedrock's ConverseStream, chosen with
// [WithDialect] — into one materialized assistant [Message]: the text,
// the reasoning, and complete, validated tool calls. A call whose arguments
// are still arriving is shown as progress ([Delta]), never handed out as a
// call that may run. [Client.Stream] sends a [Request]; [ReadMessage]
// decodes a body you already have; a [Bridge] takes events one at a time.
// A message names the model that wrote it ([Message.Model]; through a
// [Failover], the model that answered).
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
// Every error is typed: [*APIError] when the provider said so, and a stream
// that broke once it had begun matches [ErrInterrupted]. No error, log line
// or event holds a credential the request carried. The README's llmstream
// and Dialects sections give the depth: what each dialect maps to, errors
// and retrying, secrets, speed.
package llmstream
