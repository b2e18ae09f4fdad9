package aisdk

import "slices"

// view is the conversation as a client that read the stream holds it: the
// chunks folded into UI messages the way the AI SDK's
// processUIMessageStream folds them. The handler keeps one per chat, so
// that what a browser posts back can be checked against what it was sent.
type view struct {
	msgs []UIMessage
	// active maps the id of an open text or reasoning part to its index
	// in the last message's parts.
	active map[string]int
}

// fold applies one chunk to the last message: a start begins an
// assistant message unless the last one is already the assistant's (a
// run going on after an approval continues it).
func (v *view) fold(c *Chunk) {
	if c.Type == chunkStart {
		if n := len(v.msgs); n == 0 || v.msgs[n-1].Role != "assistant" {
			v.msgs = append(v.msgs, UIMessage{ID: c.MessageID, Role: "assistant", Parts: []UIPart{}})
		}
		v.active = map[string]int{}
		return
	}
	if len(v.msgs) == 0 {
		return
	}
	m := &v.msgs[len(v.msgs)-1]
	switch c.Type {
	case chunkStartStep:
		m.Parts = append(m.Parts, UIPart{Type: "step-start"})
	case chunkTextStart, chunkReasoningStart:
		typ := "text"
		if c.Type == chunkReasoningStart {
			typ = "reasoning"
		}
		v.active[c.ID] = len(m.Parts)
		m.Parts = append(m.Parts, UIPart{Type: typ, State: "streaming"})
	case chunkTextDelta, chunkReasoningDelta:
		if i, ok := v.active[c.ID]; ok {
			m.Parts[i].Text += c.Delta
		}
	case chunkTextEnd, chunkReasoningEnd:
		if i, ok := v.active[c.ID]; ok {
			m.Parts[i].State = "done"
			delete(v.active, c.ID)
		}
	case chunkToolInputStart:
		p := v.toolPart(m, c.ToolCallID, c.ToolName)
		p.State = stateInputStreaming
	case chunkToolInputAvailable:
		p := v.toolPart(m, c.ToolCallID, c.ToolName)
		p.State, p.Input = stateInputAvailable, slices.Clone(c.Input)
	case chunkToolInputError:
		p := v.toolPart(m, c.ToolCallID, c.ToolName)
		p.State, p.Input, p.ErrorText = stateOutputError, slices.Clone(c.Input), c.ErrorText
	case chunkToolApprovalRequest:
		if p := findToolPart(m, c.ToolCallID); p != nil {
			p.State, p.Approval = stateApprovalRequested, &Approval{ID: c.ApprovalID}
		}
	case chunkToolOutputAvailable:
		if p := findToolPart(m, c.ToolCallID); p != nil {
			p.State, p.Output = stateOutputAvailable, slices.Clone(c.Output)
		}
	case chunkToolOutputError:
		if p := findToolPart(m, c.ToolCallID); p != nil {
			p.State, p.ErrorText = stateOutputError, c.ErrorText
		}
	case chunkToolOutputDenied:
		if p := findToolPart(m, c.ToolCallID); p != nil {
			p.State = stateOutputDenied
		}
	case chunkFinishStep:
		clear(v.active)
	}
}

// toolPart returns the message's part for the call, adding it if new.
func (v *view) toolPart(m *UIMessage, id, name string) *UIPart {
	if p := findToolPart(m, id); p != nil {
		return p
	}
	m.Parts = append(m.Parts, UIPart{Type: toolPartPrefix + name, ToolCallID: id})
	return &m.Parts[len(m.Parts)-1]
}

// findToolPart returns the message's part for the call, or nil.
func findToolPart(m *UIMessage, id string) *UIPart {
	for i := range m.Parts {
		if p := &m.Parts[i]; p.isToolPart() && p.ToolCallID == id {
			return p
		}
	}
	return nil
}
