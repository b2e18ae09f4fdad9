// Package aisdk serves an airlock agent run to a browser chat UI built on
// the Vercel AI SDK (useChat in React, Vue or Svelte, or the framework-free
// Chat with DefaultChatTransport), over the SDK's UI message stream
// protocol v1: server-sent events, each a JSON chunk ([Chunk]), under the
// header x-vercel-ai-ui-message-stream: v1, ending with "data: [DONE]".
//
// A run streams, per model call, start-step, the reasoning and the text as
// they arrive (reasoning-*, text-*), each tool call's input as it forms
// (tool-input-start, tool-input-delta, then tool-input-available with the
// whole input, or tool-input-error for a call the answer broke off), each
// call's answer (tool-output-available, tool-output-error,
// tool-output-denied), and finish-step; the run's end is an approval
// request per call waiting (tool-approval-request, finish reason
// "tool-calls"), or an error chunk (finish reason "error"), then finish.
//
// Approvals: a call of a tool with NeedsApproval pauses the run
// ([agentloop.ErrPaused]) and the browser is asked. Its answer comes with
// the next POST, in the tool part's approval (state "approval-responded"),
// and becomes the call's [agentloop.Decision] for [agentloop.Loop.Resume]:
// approved is Allow, refused is Deny with the reason given.
//
// Trust: the [Handler] keeps each chat server-side ([Store]) and accepts
// only what it sent — a posted history must be the conversation it
// streamed, message for message; an approval must answer a call it holds
// pending — so a forged tool call or output, an approval for a call not
// pending, a malformed or oversized body are answered 4xx with nothing
// run. The loop runs on the conversation the server kept (continuity state
// included), never on the posted one. [ToUIMessages] and [FromUIMessages]
// convert a conversation to UI messages and back.
//
// Resuming: every run's chunks are kept (bounded) in the Store; a client
// that reconnects (GET {api}/{chatID}/stream, as resumeStream does) gets
// the run replayed from its start and followed live.
//
// The module needs nothing beyond airlock's core.
package aisdk
