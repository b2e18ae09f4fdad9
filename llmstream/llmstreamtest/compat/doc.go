// Package compat proves that two widely used Go OpenAI clients, openai-go
// and go-openai, and Google's google.golang.org/genai (on the Gemini wire)
// can stream from llmstreamtest's fake server. It is a separate module so
// that those clients never become dependencies of airlock; its tests are
// all there is.
//
// Run it with: (cd llmstream/llmstreamtest/compat && go test -count=1 ./...)
package compat
