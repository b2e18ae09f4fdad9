// Package airlock turns a live LLM streaming response into one materialized
// assistant message — its text and complete, validated tool calls — so that
// nothing half-formed ever reaches the code that runs tools.
//
// A tool call whose arguments are still arriving is an intention being formed,
// never a call that may run. airlock keeps that line: deltas may be shown to a
// person as they stream, but only a finished, validated [llmstream.Message]
// crosses into an agent loop.
//
// # The pipeline
//
//	HTTP body ──transport──▶ bytes ──sse──▶ events ──llmstream.Bridge──▶ deltas (text, reasoning)
//	                                                       │
//	                                                       └─ tool-call fragments ──toolcall.Assembler──┐
//	                                    the dialect's end ──▶ Finalize ──▶ llmstream.Message ──▶ agentloop
//
// # Which package to import
//
//   - [github.com/airlock-go/airlock/llmstream]: stream a model's answer with
//     tools — OpenAI Chat Completions and compatible servers, Anthropic
//     Messages, the OpenAI Responses API, Gemini or Amazon Bedrock — and get
//     one Message back
//     (Client), or decode a recorded stream (ReadMessage).
//   - [github.com/airlock-go/airlock/agentloop]: the reference agent loop: call the
//     model, enforce tool-call caps, run tools, feed results back.
//   - [github.com/airlock-go/airlock/toolcall]: the tool-call assembler alone, for
//     code that has its own HTTP and JSON handling.
//   - [github.com/airlock-go/airlock/sse]: a spec-complete, bounded Server-Sent
//     Events parser alone.
//   - [github.com/airlock-go/airlock/eventstream]: AWS event-stream frames
//     (Bedrock's wire) as a bounded Reader.
//   - [github.com/airlock-go/airlock/transport]: one streaming HTTP exchange with
//     timeouts, a size cap, TLS and retries before the first byte.
//   - [github.com/airlock-go/airlock/llmstream/llmstreamtest]: a scriptable fake
//     streaming server for tests, speaking every dialect.
//
// This package holds documentation only.
package airlock
