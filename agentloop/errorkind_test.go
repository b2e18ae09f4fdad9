package agentloop

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestErrorKind: the loop's errors name their kind to llmstream.KindOf,
// through any wrapping.
func TestErrorKind(t *testing.T) {
	own := errors.New("disk full")
	tests := []struct {
		err  error
		want llmstream.ErrorKind
	}{
		{&LimitError{Err: ErrMaxTurns, Value: 3, Limit: 3}, llmstream.ErrorLimit},
		{fmt.Errorf("run: %w", &LimitError{Err: ErrContextBudget}), llmstream.ErrorLimit},
		{&ToolError{Err: ErrUnknownTool}, llmstream.ErrorInvalidToolCalls},
		{&ToolError{Err: fmt.Errorf("%w: %w", ErrInvalidArguments, own)}, llmstream.ErrorInvalidToolCalls},
		{&ToolError{Err: fmt.Errorf("%w after 1s: %w", ErrToolTimeout, context.DeadlineExceeded)}, llmstream.ErrorTool},
		{&ToolError{Err: fmt.Errorf("%w: boom", ErrToolPanic)}, llmstream.ErrorTool},
		{&ToolError{Err: fmt.Errorf("%w: %w", ErrRepeatedFailure, own)}, llmstream.ErrorTool},
		{&ToolError{Err: own}, llmstream.ErrorTool},
		{&ToolError{Err: context.Canceled}, llmstream.ErrorCanceled},
		{&ToolError{Err: fmt.Errorf("%w: %w", ErrApproval, context.DeadlineExceeded)}, llmstream.ErrorDeadlineExceeded},
		{&ToolError{Err: fmt.Errorf("%w: %w", ErrApproval, own)}, llmstream.ErrorUnknown},
	}
	for _, tt := range tests {
		if got := llmstream.KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
