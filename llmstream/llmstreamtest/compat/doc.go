// Package compat proves that the official and widely used Go clients of
// each provider stream from llmstreamtest's fake server and assemble the
// same message airlock does: openai-go and go-openai on the chat wire,
// openai-go's Responses streaming, anthropic-sdk-go on the Anthropic wire
// and google.golang.org/genai on the Gemini wire. It is a separate module
// so that those clients never become dependencies of airlock; its tests
// are all there is.
//
// Run it with: (cd llmstream/llmstreamtest/compat && go test -count=1 ./...)
package compat
