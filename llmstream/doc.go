// Package llmstream turns an OpenAI-compatible chat-completions stream into
// one materialized assistant [Message]: the text, the reasoning, and complete,
// validated tool calls.
package llmstream
