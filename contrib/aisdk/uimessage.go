package aisdk

import "encoding/json"

// UIMessage is a message as the AI SDK's chat UI holds it: what a browser
// posts back, and what [ToUIMessages] makes. Fields the AI SDK has and
// this package does not use (metadata, provider metadata) are ignored on
// decoding and never sent.
type UIMessage struct {
	ID    string   `json:"id"`
	Role  string   `json:"role"`
	Parts []UIPart `json:"parts"`
}

// UIPart is one part of a [UIMessage]. Type says which fields mean
// something:
//   - "text", "reasoning": Text, and State ("streaming" or "done");
//   - "step-start": none; it begins a step (one model call) of an
//     assistant message;
//   - "tool-<name>": ToolCallID, State (one of the AI SDK's tool states:
//     "input-streaming", "input-available", "approval-requested",
//     "approval-responded", "output-available", "output-error",
//     "output-denied"), Input, Output, ErrorText and Approval.
type UIPart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text,omitempty"`
	State      string          `json:"state,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"`
	ErrorText  string          `json:"errorText,omitempty"`
	Approval   *Approval       `json:"approval,omitempty"`
}

// Approval is a tool part's approval: its id (from the
// tool-approval-request chunk) and, once the user answered, whether the
// call may run and the reason given.
type Approval struct {
	ID       string `json:"id"`
	Approved *bool  `json:"approved,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// The tool part states this package sends and reads.
const (
	stateInputStreaming    = "input-streaming"
	stateInputAvailable    = "input-available"
	stateApprovalRequested = "approval-requested"
	stateApprovalResponded = "approval-responded"
	stateOutputAvailable   = "output-available"
	stateOutputError       = "output-error"
	stateOutputDenied      = "output-denied"
)

// toolPartPrefix begins the type of a tool part: "tool-" and the tool's
// name.
const toolPartPrefix = "tool-"

// isToolPart reports whether p is a tool part.
func (p *UIPart) isToolPart() bool {
	return len(p.Type) > len(toolPartPrefix) && p.Type[:len(toolPartPrefix)] == toolPartPrefix
}

// toolName is the tool a tool part calls.
func (p *UIPart) toolName() string { return p.Type[len(toolPartPrefix):] }
