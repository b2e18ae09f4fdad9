package agentloop

import (
	"context"

	"github.com/airlock-go/airlock/llmstream"
)

// Model produces the next assistant message of a conversation.
// *llmstream.Client satisfies it; tests and wrappers satisfy it with a
// [ModelFunc].
//
// The loop calls Stream once per turn with one request: the Loop's
// Request template (the generation settings) with Messages set to the
// conversation, Tools to the Loop's tools, and OnDelta (when Hooks.OnDelta
// is set) to a callback that forwards each delta to the hook and returns
// nil. Stream must not modify the request's slices, nor keep them after it
// returns: the loop reuses them. It returns one materialized message whose
// tool calls are complete, or an error; the loop never acts on the message
// of a failed call, except that an *llmstream.ToolCallsError's calls are
// answered as invalid (see [Loop.AnswerInvalidCalls]). A Model that cannot
// stream may ignore OnDelta; deltas are for display only.
type Model interface {
	Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error)
}

// ModelFunc adapts a function to a [Model], as http.HandlerFunc adapts one
// to a handler.
type ModelFunc func(ctx context.Context, r llmstream.Request) (llmstream.Message, error)

// Stream calls f.
func (f ModelFunc) Stream(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
	return f(ctx, r)
}
