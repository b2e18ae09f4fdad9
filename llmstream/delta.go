package llmstream

// DeltaKind says what a [Delta] carries. The zero value means unset.
type DeltaKind uint8

const (
	_ DeltaKind = iota
	// DeltaText is a piece of the answer text.
	DeltaText
	// DeltaReasoning is a piece of the reasoning text.
	DeltaReasoning
	// DeltaRefusal is a piece of a refusal.
	DeltaRefusal
	// DeltaToolCall is progress of a tool call still forming: its index,
	// id and name so far, and the new piece of its arguments. A tool call
	// in progress must never be executed; only the finished Message's calls
	// are complete and validated.
	DeltaToolCall
)

// String returns the kind's name ("text", "reasoning", "refusal", "tool_call").
func (k DeltaKind) String() string {
	switch k {
	case DeltaText:
		return "text"
	case DeltaReasoning:
		return "reasoning"
	case DeltaRefusal:
		return "refusal"
	case DeltaToolCall:
		return "tool_call"
	}
	return "unset"
}

// Delta is one piece of a streaming response, as it arrives. Deltas are for
// display; the materialized [Message] is the result.
//
// A Delta is owned by the receiver: its strings stay valid after the
// callback returns.
type Delta struct {
	// Kind says what the delta carries.
	Kind DeltaKind
	// Text is the new piece: answer, reasoning or refusal text, or for
	// DeltaToolCall the new piece of the call's arguments (may be empty
	// when a fragment carried only an id or name).
	Text string
	// Index is the tool call's index in the message (DeltaToolCall only).
	Index int
	// ToolCallID and ToolName are the call's id and name as known so far
	// (DeltaToolCall only).
	ToolCallID, ToolName string
	// PartialArguments is a best-effort JSON text of the arguments so far,
	// with open strings, arrays and objects closed, for a UI that shows a
	// call as it forms (DeltaToolCall only). It is not the call's arguments
	// and must not be executed.
	PartialArguments string
}
