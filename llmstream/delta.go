package llmstream

import "github.com/airlock-go/airlock/toolcall"

// DeltaKind says what a [Delta] carries. The zero value means unset.
type DeltaKind uint8

const (
	// DeltaText is a piece of the answer text.
	DeltaText DeltaKind = iota + 1
	// DeltaReasoning is a piece of the reasoning text.
	DeltaReasoning
	// DeltaRefusal is a piece of a refusal.
	DeltaRefusal
	// DeltaToolCall is progress of a tool call still forming: its index,
	// id and name so far, and the new piece of its arguments. A tool call
	// in progress must never be executed; only the finished Message's calls
	// are complete and validated.
	DeltaToolCall
	// DeltaRestart is a seam: everything shown since the stream began
	// (text, reasoning, refusal, tool calls in progress) is void, and the
	// deltas after it start the response over. It carries nothing.
	// [Failover] sends it when it retries a broken stream from scratch.
	DeltaRestart
	// DeltaResume is a seam: the stream broke and goes on after a
	// reconnect; nothing shown is void, and the deltas after it continue
	// the text where it stopped. It carries nothing. [Failover] sends it
	// when it continues a broken stream.
	DeltaResume
)

// String returns the kind's name ("text", "reasoning", "refusal",
// "tool_call", "restart", "resume").
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
	case DeltaRestart:
		return "restart"
	case DeltaResume:
		return "resume"
	}
	return "unset"
}

// Delta is one piece of a streaming response, as it arrives. Deltas are for
// display; the materialized [Message] is the result.
//
// A Delta's strings belong to the receiver and stay valid after the
// callback returns. Call.Partial is the exception: it is the assembler's
// own memory, valid as long as the message, and must never be written to.
type Delta struct {
	// Kind says what the delta carries.
	Kind DeltaKind
	// Text is the new piece: answer, reasoning or refusal text, or for
	// DeltaToolCall the new piece of the call's arguments (may be empty
	// when a fragment carried only an id or name).
	Text string
	// Call is the tool call as it stands after this fragment (DeltaToolCall
	// only): its index, id and name so far, and its arguments so far.
	// Call.Closed() gives a best-effort JSON text of the partial arguments
	// for display; it costs O(their length), so call it only when drawing.
	// A preview cannot be executed: only the finished Message's calls are
	// complete and validated.
	Call toolcall.Preview
}
