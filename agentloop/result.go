package agentloop

import (
	"encoding/json"

	"github.com/airlock-go/airlock/llmstream"
)

// Result is what a run produced. Run and Resume return it whether or not
// they also return an error, so a caller can show or resume a run that
// stopped. Its counts cover the whole conversation of a resumed State.
// It may gain fields; compare fields, not whole Results.
type Result struct {
	// Messages is the whole conversation: the messages given to Run
	// (copied), then each assistant message and each tool message in
	// order. Tool outputs dropped for the context budget appear with
	// their marker, as the model last saw them. Every tool call of every
	// assistant message the loop added is answered by a tool message,
	// whatever error stopped the run, so the conversation can be sent
	// again as it is. The caller owns it.
	Messages []llmstream.Message
	// Turns is the number of model calls made, including a failed one.
	Turns int
	// ToolCalls is the number of tool calls in the turns that passed the
	// caps, including calls answered "skipped"; it is the count the total
	// cap limits.
	ToolCalls int
	// Usage sums the token usage the model reported over all turns.
	Usage llmstream.Usage
	// DroppedToolOutputs counts tool outputs replaced by a marker to keep
	// the conversation within the context budget.
	DroppedToolOutputs int
	// Pending lists, in call order, the calls waiting for a decision when
	// the run stopped with [ErrPaused]; nil otherwise. Their turn, the
	// last message of Messages, is not answered yet: give
	// [Loop.Resume] the State and a decision for each.
	Pending []Call
	// Answers are the answers to the calls this Run or Resume answered, in
	// the order they joined Messages, each with what became of its call
	// ([Outcome]).
	Answers []Answer
	// Output is the final answer's JSON text when the Loop has an
	// [Output] and the run finished with an answer that fits it; nil
	// otherwise. Decode it with [DecodeOutput].
	Output json.RawMessage
	// State is everything [Loop.Resume] needs to go on from where the run
	// stopped, whatever stopped it; the zero State (no Messages) only when
	// the Loop or the input was invalid. It shares nothing with Messages.
	State State
}
