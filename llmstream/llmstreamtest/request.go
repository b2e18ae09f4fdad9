package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/airlock-go/airlock/llmstream"
)

// Request is what the server received in one request, with the chat
// request decoded. A Request handed out by the server shares no memory
// with the server's record; the receiver owns it, and may use it from any
// goroutine. Fields may be added, so compare Requests field by field rather
// than as whole values.
type Request struct {
	// Seq numbers the requests the server received, from 1, in the order
	// they arrived (bad requests included).
	Seq int
	// Method and Path are the HTTP method and the URL path, such as
	// "/chat/completions" or "/v1/chat/completions".
	Method, Path string
	// Header is the request's header as received. It includes the
	// Authorization header: in a test that is the test's own fake key, so
	// it is kept for assertions; the server never writes it anywhere else.
	Header http.Header
	// Body is the raw request body (up to the size limit).
	Body []byte
	// Dialect is the wire the request came in on, by its path: chat for
	// /chat/completions, Anthropic for /messages, ... (the zero value, as
	// chat, for a path the server does not serve).
	Dialect llmstream.Dialect

	// Model, Messages, Tools and Stream are the decoded request, in the
	// neutral form whatever the dialect: a system prompt is a "system"
	// message, tool results are "tool" messages, an assistant's provider
	// state (Anthropic's thinking blocks, ...) is its Continuity.
	Model    string
	Messages []llmstream.Message
	Tools    []llmstream.Tool
	Stream   bool
	// StreamOptions is the request's stream_options, nil when absent.
	StreamOptions *StreamOptions
	// Output is the structured output the request asked for, read where
	// the dialect's provider expects it (chat's response_format,
	// Responses' text.format, Anthropic's output_config.format, Gemini's
	// generationConfig.responseJsonSchema, Bedrock's
	// outputConfig.textFormat), its schema compacted; nil when it asked
	// for none there. Anthropic and Gemini send no name or strict flag.
	Output *llmstream.OutputSchema

	// Err is nil when the request was served as scripted (the script's own
	// faults included); otherwise a [*RequestError] saying why not.
	Err error
}

// StreamOptions is a request's stream_options object.
type StreamOptions struct {
	// IncludeUsage asks for the token usage at the end of the stream.
	IncludeUsage bool
}

// includeUsage reports whether the request asked for usage.
func (r *Request) includeUsage() bool { return r.StreamOptions != nil && r.StreamOptions.IncludeUsage }

// decodeChat fills the neutral fields from a chat request body; the error
// is the decoder's, for the detail of an ErrBadRequest.
func (r *Request) decodeChat() error {
	var w struct {
		Model         string              `json:"model"`
		Messages      []llmstream.Message `json:"messages"`
		Tools         []llmstream.Tool    `json:"tools"`
		Stream        bool                `json:"stream"`
		StreamOptions *struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	r.Model, r.Messages, r.Tools, r.Stream = w.Model, w.Messages, w.Tools, w.Stream
	if w.StreamOptions != nil {
		r.StreamOptions = &StreamOptions{IncludeUsage: w.StreamOptions.IncludeUsage}
	}
	return nil
}

// clone returns a deep copy of r.
func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	if r.Output != nil {
		o := *r.Output
		o.Schema = bytes.Clone(o.Schema)
		r.Output = &o
	}
	if r.Messages != nil {
		msgs := make([]llmstream.Message, len(r.Messages))
		for i, m := range r.Messages {
			if m.ToolCalls != nil {
				calls := make([]llmstream.ToolCall, len(m.ToolCalls))
				for j, c := range m.ToolCalls {
					c.Extra = bytes.Clone(c.Extra)
					calls[j] = c
				}
				m.ToolCalls = calls
			}
			if m.Usage != nil {
				u := *m.Usage
				m.Usage = &u
			}
			if m.Continuity != nil {
				c := *m.Continuity
				c.Blocks = append([]llmstream.Block(nil), c.Blocks...)
				for k := range c.Blocks {
					c.Blocks[k].Raw = bytes.Clone(c.Blocks[k].Raw)
				}
				m.Continuity = &c
			}
			msgs[i] = m
		}
		r.Messages = msgs
	}
	if r.Tools != nil {
		tools := make([]llmstream.Tool, len(r.Tools))
		for i, t := range r.Tools {
			t.Function.Parameters = bytes.Clone(t.Function.Parameters)
			if t.Function.Strict != nil {
				s := *t.Function.Strict
				t.Function.Strict = &s
			}
			tools[i] = t
		}
		r.Tools = tools
	}
	if r.StreamOptions != nil {
		so := *r.StreamOptions
		r.StreamOptions = &so
	}
	return r
}
