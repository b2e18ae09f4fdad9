// Package otel traces and measures airlock's model calls, tool calls and
// agent runs with OpenTelemetry, after the GenAI semantic conventions
// (status: Development; the names are those of the conventions today,
// gen_ai.provider.name and not the deprecated gen_ai.system).
//
//	model := otel.NewModel(client) // the *llmstream.Client says its dialect, model and server
//	loop := &agentloop.Loop{Model: model, Tools: tools}
//	res, err := otel.Run(ctx, loop, messages, otel.WithAgentName("helper"))
//
// # Spans
//
// A model call ([Model.Stream]) is a CLIENT span "chat {model}"
// ("generate_content {model}" for [llmstream.DialectGemini], the
// conventions' operation for Gemini's API) with:
//
//	gen_ai.operation.name                    chat | generate_content
//	gen_ai.provider.name                     the Client's: openai (chat, Responses), anthropic, gcp.gemini,
//	                                         aws.bedrock, gcp.vertex_ai; or WithProviderName
//	gen_ai.request.model                     the request's Model, else the Client's (or WithModelName)
//	gen_ai.request.max_tokens, .temperature, .top_p, .stop_sequences, .seed   when the request sets them
//	gen_ai.request.stream                    true
//	server.address, server.port              from the Client's base URL (or WithServerURL)
//	gen_ai.response.finish_reasons           the provider's finish reason, as sent
//	gen_ai.response.model                    the model that answered (llmstream.Message.Model): the name
//	                                         the provider's stream gave, else the request's
//	gen_ai.response.time_to_first_chunk      seconds to the first delta
//	gen_ai.usage.input_tokens                input tokens, cached ones included (llmstream.Usage.InputTokens)
//	gen_ai.usage.output_tokens               output tokens, reasoning included
//	gen_ai.usage.cache_read.input_tokens     when the provider reports some
//	gen_ai.usage.cache_creation.input_tokens when the provider reports some
//	gen_ai.usage.reasoning.output_tokens     when the provider reports some
//	error.type                               when the call failed (below)
//
// gen_ai.response.id is not recorded: [llmstream.Message] does not carry
// it. Settings a client fills in from llmstream.WithRequestDefaults are not
// seen by the wrapper.
//
// A tool call ([WrapTools]) and a run ([Run], [Resume]) are INTERNAL
// spans, "execute_tool {name}" and "invoke_agent {name}", with the
// attributes their docs list; a run's model and tool spans are its
// children. The conventions have no words for approvals, pauses or
// parallel calls, so these are airlock's own events on the run's span:
//
//	airlock.tool.approved   Approve allowed a call: gen_ai.tool.call.id, gen_ai.tool.name
//	airlock.tool.denied     Approve denied a call: the same, and airlock.approval.reason only with WithContent
//	airlock.agent.paused    the run stopped with agentloop.ErrPaused: airlock.approval.pending_call_ids
//	airlock.tools.parallel  a turn ran calls at once: airlock.turn, airlock.tools.batch_size (its calls
//	                        that run), airlock.tools.max_running; dated when two first overlapped
//
// A paused run has not failed: no error.type, no Error status.
//
// # Metrics
//
//	gen_ai.client.operation.duration             histogram, s, every model call (error.type on failures)
//	gen_ai.client.token.usage                    histogram, {token}, gen_ai.token.type input and output, when usage arrived
//	gen_ai.client.operation.time_to_first_chunk  histogram, s, when a delta arrived
//
// with the conventions' bucket boundaries, and the operation, provider,
// request model and server as attributes (the sampling settings are left
// off, so they do not split the series).
//
// # error.type
//
// A failure's error.type is the name of its [llmstream.KindOf], one to
// one ([llmstream.ErrorKind.String]: "rate_limited", "limit" for a Loop's
// caps, "tool" for a tool that failed, timed out or panicked, ...), and
// the conventions' "_OTHER" for an error of no known kind
// ([llmstream.ErrorUnknown]), such as a tool's own error.
//
// # Contents and credentials
//
// Prompts, answers, tool arguments and results are recorded only with
// [WithContent](true), which says where. No credential is recorded, with
// or without contents: the wrapper never sees a client's key or headers,
// WithServerURL keeps only host and port, and an *llmstream.Client's error
// texts have its credentials redacted. What a caller puts in a message is
// recorded as it is, so keep secrets out of conversations.
package otel
