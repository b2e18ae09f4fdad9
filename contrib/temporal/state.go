package temporal

import "github.com/airlock-go/airlock/llmstream"

// State is a run's progress: what the workflow carries over continue-as-new
// and what it returns. It survives encoding/json (Temporal's payloads), the
// messages' provider continuity included.
type State struct {
	// Messages is the whole conversation: the messages the run started
	// with, then each assistant message and each tool message in order.
	// Every call of every assistant message the run added is answered,
	// whatever stopped the run.
	Messages []llmstream.Message
	// Turns counts the model turns made (a retried turn counts once).
	Turns int
	// ToolCalls counts the calls of the turns that passed the caps.
	ToolCalls int
	// Usage sums the token usage the model reported.
	Usage llmstream.Usage
	// Continued counts the times the run continued as new.
	Continued int
	// LastFailure identifies the last recoverable failure (tool, arguments
	// and answer, as agentloop keys it), for agentloop's rule that the same
	// failure twice in a row stops the run; empty after a success.
	LastFailure string
}

// answer appends the tool message for one call.
func (s *State) answer(callID, content string, failed bool) {
	s.Messages = append(s.Messages, llmstream.Message{Role: "tool", ToolCallID: callID, Content: content, IsError: failed})
}

// input is the workflow's argument: the options and the state to go on from.
type input struct {
	Options Options
	State   State
}
