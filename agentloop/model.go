package agentloop

import (
	"context"

	"github.com/airlock-go/airlock/llmstream"
)

// Model produces the next assistant message of a conversation.
// *llmstream.Client satisfies it; tests satisfy it with a [ModelFunc].
//
// Complete must not modify messages or tools, and must not keep them after
// it returns: the loop reuses them. It returns one materialized message
// whose tool calls are complete, or an error; the loop never acts on the
// message of a failed call.
type Model interface {
	Complete(ctx context.Context, messages []llmstream.Message, tools []llmstream.Tool) (llmstream.Message, error)
}

// StreamingModel is a [Model] that can also report the response's pieces
// as they arrive; a [RequestModel] is preferred to it. When the Loop's Hooks.OnDelta is set and its Model
// implements StreamingModel, the loop calls CompleteStream instead of
// Complete, passing a callback that forwards every delta to OnDelta and
// returns nil. Deltas are for display only: the loop acts on the returned
// message alone.
type StreamingModel interface {
	Model
	CompleteStream(ctx context.Context, messages []llmstream.Message, tools []llmstream.Tool, onDelta func(llmstream.Delta) error) (llmstream.Message, error)
}

// ModelFunc adapts a function to a [Model], as http.HandlerFunc adapts one
// to a handler.
type ModelFunc func(ctx context.Context, messages []llmstream.Message, tools []llmstream.Tool) (llmstream.Message, error)

// Complete calls f.
func (f ModelFunc) Complete(ctx context.Context, messages []llmstream.Message, tools []llmstream.Tool) (llmstream.Message, error) {
	return f(ctx, messages, tools)
}

// RequestModel is a [Model] that takes a whole request. *llmstream.Client
// is one. When the Loop's Model is a RequestModel, the loop calls Stream
// for every turn with the Loop's Request template, the conversation, the
// tools and (when Hooks.OnDelta is set) a callback that forwards every
// delta, so the template's settings and the deltas both reach the model.
type RequestModel interface {
	Model
	Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error)
}
