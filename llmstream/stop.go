package llmstream

import "fmt"

// StopReason is why a response ended, the same for every dialect. The
// zero value means unknown: the stream gave no reason, or one this package
// does not know (the raw value is always in [Message.FinishReason]).
//
// Each dialect maps its own values, in its dialect file (chatStopReason,
// anthropicStopReason, responsesStopReason, geminiStopReason,
// bedrockStopReason).
//
// A message that carries tool calls has StopToolCalls whatever the
// provider said, unless the reason is a length, filter, refusal or pause.
// Gemini's reasons that leave no usable answer (the safety family and
// MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL) fail the stream with an
// [*APIError] of that Type instead of ending it.
type StopReason uint8

const (
	// StopEndTurn: the model finished its answer (or hit a stop sequence).
	StopEndTurn StopReason = iota + 1
	// StopToolCalls: the model asks for its tool calls to be run.
	StopToolCalls
	// StopLength: the output hit the token limit; the text is cut.
	StopLength
	// StopContentFilter: the provider's filter ended the output.
	StopContentFilter
	// StopRefusal: the model refused (Anthropic's "refusal").
	StopRefusal
	// StopPause: a long server-side turn paused (Anthropic's
	// "pause_turn"); send the conversation again to let it go on.
	StopPause
	// StopOther: a reason this package does not map.
	StopOther
)

// String returns the reason's name ("end_turn", "tool_calls", "length",
// "content_filter", "refusal", "pause", "other"), "unknown" for zero.
func (r StopReason) String() string {
	switch r {
	case 0:
		return "unknown"
	case StopEndTurn:
		return "end_turn"
	case StopToolCalls:
		return "tool_calls"
	case StopLength:
		return "length"
	case StopContentFilter:
		return "content_filter"
	case StopRefusal:
		return "refusal"
	case StopPause:
		return "pause"
	case StopOther:
		return "other"
	}
	return fmt.Sprintf("StopReason(%d)", uint8(r))
}
