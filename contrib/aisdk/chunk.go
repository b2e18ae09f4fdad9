package aisdk

import "encoding/json"

// Chunk is one event of the UI message stream: a JSON object whose Type
// says which other fields it has (see the AI SDK's uiMessageChunkSchema).
// The handler writes these types: "start", "start-step", "text-start",
// "text-delta", "text-end", "reasoning-start", "reasoning-delta",
// "reasoning-end", "tool-input-start", "tool-input-delta",
// "tool-input-available", "tool-input-error", "tool-approval-request",
// "tool-output-available", "tool-output-error", "tool-output-denied",
// "finish-step", "finish" and "error"; after the last chunk the stream
// ends with the data "[DONE]".
type Chunk struct {
	Type           string          `json:"type"`
	MessageID      string          `json:"messageId,omitempty"`
	ID             string          `json:"id,omitempty"`
	Delta          string          `json:"delta,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ToolName       string          `json:"toolName,omitempty"`
	InputTextDelta string          `json:"inputTextDelta,omitempty"`
	Input          json.RawMessage `json:"input,omitempty"`
	Output         json.RawMessage `json:"output,omitempty"`
	ErrorText      string          `json:"errorText,omitempty"`
	ApprovalID     string          `json:"approvalId,omitempty"`
	FinishReason   string          `json:"finishReason,omitempty"`
}

// The chunk types.
const (
	chunkStart               = "start"
	chunkStartStep           = "start-step"
	chunkTextStart           = "text-start"
	chunkTextDelta           = "text-delta"
	chunkTextEnd             = "text-end"
	chunkReasoningStart      = "reasoning-start"
	chunkReasoningDelta      = "reasoning-delta"
	chunkReasoningEnd        = "reasoning-end"
	chunkToolInputStart      = "tool-input-start"
	chunkToolInputDelta      = "tool-input-delta"
	chunkToolInputAvailable  = "tool-input-available"
	chunkToolInputError      = "tool-input-error"
	chunkToolApprovalRequest = "tool-approval-request"
	chunkToolOutputAvailable = "tool-output-available"
	chunkToolOutputError     = "tool-output-error"
	chunkToolOutputDenied    = "tool-output-denied"
	chunkFinishStep          = "finish-step"
	chunkFinish              = "finish"
	chunkError               = "error"
)

// The finish reasons the handler sends: the run ended with an answer,
// stopped for approval, or failed.
const (
	finishStop      = "stop"
	finishToolCalls = "tool-calls"
	finishError     = "error"
)

// doneData is the data of the stream's last event.
const doneData = "[DONE]"
