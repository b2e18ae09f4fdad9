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
// One [Turn] script is served in the wire format of the path the request
// came to (chat, Anthropic, Responses, Gemini, Bedrock); [Turn.Fault]
// injects one failure in that dialect's own form, and [Server.Requests]
// holds every request decoded to the neutral llmstream form. The server
// speaks HTTP/1.1 only, over TLS too ([WithTLS]); real Bedrock speaks
// HTTP/2. [Server.Close]
// ends every stream and returns once every handler has. The README's
// llmstreamtest section gives the depth: paths, flavours, faults, lifetime.
package llmstreamtest
