package agentloop

import (
	"errors"

	"github.com/airlock-go/airlock/llmstream"
)

// Kind names a breached limit for [llmstream.KindOf]:
// [llmstream.ErrorLimit].
func (e *LimitError) Kind() llmstream.ErrorKind { return llmstream.ErrorLimit }

// Kind names a failed call for [llmstream.KindOf]: an unknown tool or
// arguments that are not a JSON object are [llmstream.ErrorInvalidToolCalls];
// a timeout, a panic or a repeated failure is [llmstream.ErrorTool]; a
// failed Approve ([ErrApproval]) is its error's kind, often
// [llmstream.ErrorUnknown]; any other cause gives its own kind (a
// cancelled run), and [llmstream.ErrorTool] when it has none.
func (e *ToolError) Kind() llmstream.ErrorKind {
	switch {
	case errors.Is(e.Err, ErrUnknownTool), errors.Is(e.Err, ErrInvalidArguments):
		return llmstream.ErrorInvalidToolCalls
	case errors.Is(e.Err, ErrToolTimeout), errors.Is(e.Err, ErrToolPanic), errors.Is(e.Err, ErrRepeatedFailure):
		return llmstream.ErrorTool
	case errors.Is(e.Err, ErrApproval):
		return llmstream.KindOf(e.Err)
	}
	if k := llmstream.KindOf(e.Err); k != llmstream.ErrorUnknown {
		return k
	}
	return llmstream.ErrorTool
}
