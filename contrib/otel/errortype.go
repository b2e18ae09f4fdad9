package otel

import (
	"context"
	"errors"
	"strconv"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/sse"
	"github.com/airlock-go/airlock/toolcall"
	"github.com/airlock-go/airlock/transport"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// failSpan marks span failed by err: error.type and an Error status whose
// description is the error's text only when contents are recorded (an
// error may quote them), else the error.type again.
func failSpan(span trace.Span, err error, content bool) {
	et := errorType(err)
	span.SetAttributes(keyErrorType.String(et))
	desc := et
	if content {
		desc = err.Error()
	}
	span.SetStatus(codes.Error, desc)
}

// errorTypeOther is the conventions' error.type for an error of no known kind.
const errorTypeOther = "_OTHER"

// errorType is the low-cardinality error.type of err (see the package
// documentation for the list). The provider's word comes first, then what
// broke the stream, then the caller's cancellation, then the rest.
func errorType(err error) string {
	var api *llmstream.APIError
	if errors.As(err, &api) {
		if api.Kind != llmstream.ErrorUnknown {
			return api.Kind.String()
		}
		if api.StatusCode != 0 {
			return strconv.Itoa(api.StatusCode)
		}
		return "provider_error"
	}
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	var se *transport.StatusError
	if errors.As(err, &se) {
		return strconv.Itoa(se.StatusCode)
	}
	var tc *llmstream.ToolCallsError
	if errors.As(err, &tc) {
		return "invalid_tool_calls"
	}
	var te *agentloop.ToolError
	if errors.As(err, &te) {
		return "tool_error"
	}
	return errorTypeOther
}

// errorKinds are the sentinels error.type names, most specific first: a
// truncated stream is also interrupted, a timed-out tool also failed.
var errorKinds = []struct {
	err  error
	name string
}{
	{llmstream.ErrTruncated, "truncated"},
	{llmstream.ErrIdleTimeout, "idle_timeout"},
	{transport.ErrStalled, "stalled"},
	{transport.ErrTimeout, "timeout"},
	{llmstream.ErrInterrupted, "interrupted"},
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "deadline_exceeded"},
	{llmstream.ErrAborted, "aborted"},
	{llmstream.ErrBadEvent, "bad_event"},
	{llmstream.ErrNotEventStream, "not_event_stream"},
	{sse.ErrEventTooLarge, "event_too_large"},
	{transport.ErrStreamTooLarge, "stream_too_large"},
	{toolcall.ErrTooManyCalls, "too_many_tool_calls"},
	{toolcall.ErrArgumentsTooLarge, "tool_arguments_too_large"},
	{llmstream.ErrInvalidRequest, "request_not_built"},
	{llmstream.ErrMisuse, "misuse"},
	{agentloop.ErrToolTimeout, "tool_timeout"},
	{agentloop.ErrToolPanic, "tool_panic"},
	{agentloop.ErrUnknownTool, "unknown_tool"},
	{agentloop.ErrInvalidArguments, "invalid_tool_arguments"},
	{agentloop.ErrMaxTurns, "max_turns"},
	{agentloop.ErrTurnToolLimit, "turn_tool_limit"},
	{agentloop.ErrTotalToolLimit, "total_tool_limit"},
	{agentloop.ErrContextBudget, "context_budget"},
	{agentloop.ErrRepeatedFailure, "repeated_failure"},
	{agentloop.ErrInvalidLoop, "invalid_loop"},
	{agentloop.ErrApproval, "approval_failed"},
}
