package aisdk

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// emitter turns a run's hooks into UI message stream chunks. The loop
// calls hooks one at a time on the run's goroutine, so it needs no lock.
type emitter struct {
	send func(*Chunk)
	// seq numbers the text and reasoning parts of the stream, for their
	// ids.
	seq int
	// stepOpen is true between a start-step and its finish-step.
	stepOpen bool
	// text and reasoning are the ids of the open parts, "" when none.
	text, reasoning string
	// forming are the calls of the current model answer, by index.
	forming map[int]*formingCall
	// waiting are the ids of calls shown whose answer is not sent yet.
	waiting []string
	// tools maps a call's id to its tool's name.
	tools map[string]string
}

// formingCall is a call whose input is streaming.
type formingCall struct {
	id, name string
	started  bool
}

func newEmitter(send func(*Chunk)) *emitter {
	return &emitter{send: send, tools: map[string]string{}}
}

// hooks returns the loop hooks that feed the emitter, each calling the
// caller's own hook after it.
func (e *emitter) hooks(user agentloop.Hooks) agentloop.Hooks {
	h := user
	h.BeforeModel = func(s agentloop.ModelStart) {
		e.beforeModel(s)
		call(user.BeforeModel, s)
	}
	h.OnDelta = func(d llmstream.Delta) {
		e.delta(d)
		call(user.OnDelta, d)
	}
	h.AfterModel = func(d agentloop.ModelDone) {
		e.afterModel(d)
		call(user.AfterModel, d)
	}
	h.AfterTool = func(d agentloop.ToolDone) {
		e.answer(d.Call.ID, d.Content, d.Err != nil)
		call(user.AfterTool, d)
	}
	h.AfterApproval = func(d agentloop.ApprovalDone) {
		if d.Err == nil && d.Decision.Verdict == agentloop.Deny {
			e.resolve(d.Call.ID)
			e.send(&Chunk{Type: chunkToolOutputDenied, ToolCallID: d.Call.ID})
		}
		call(user.AfterApproval, d)
	}
	return h
}

func call[T any](f func(T), v T) {
	if f != nil {
		f(v)
	}
}

// start begins the stream's message; messageID is the assistant message
// the chunks build (an existing one when the run goes on after an
// approval).
func (e *emitter) start(messageID string) {
	e.send(&Chunk{Type: chunkStart, MessageID: messageID})
}

// await makes the calls of a turn paused for approval wait for their
// answers again, in the run that goes on with it.
func (e *emitter) await(calls []llmstream.ToolCall) {
	for _, c := range calls {
		e.tools[c.ID] = c.Function.Name
		e.waiting = append(e.waiting, c.ID)
	}
}

func (e *emitter) beforeModel(s agentloop.ModelStart) {
	e.answerFrom(s.Messages, nil)
	e.finishStep()
	e.send(&Chunk{Type: chunkStartStep})
	e.stepOpen = true
	e.forming = map[int]*formingCall{}
}

func (e *emitter) finishStep() {
	if e.stepOpen {
		e.send(&Chunk{Type: chunkFinishStep})
		e.stepOpen = false
	}
}

func (e *emitter) delta(d llmstream.Delta) {
	switch d.Kind {
	case llmstream.DeltaText, llmstream.DeltaRefusal:
		e.textDelta(&e.text, chunkTextStart, chunkTextDelta, d.Text)
	case llmstream.DeltaReasoning:
		e.textDelta(&e.reasoning, chunkReasoningStart, chunkReasoningDelta, d.Text)
	case llmstream.DeltaToolCall:
		e.callDelta(d)
	case llmstream.DeltaRestart:
		e.restart()
	}
	// DeltaResume needs nothing: the continuation's text goes on in the
	// open text part.
}

// restart shows that the stream started over (llmstream.Failover): what
// the stream showed since it began is void. The protocol cannot take a
// part back, so the open parts end, a call that was forming fails, and the
// new attempt gets a step of its own.
func (e *emitter) restart() {
	e.endText()
	for _, f := range e.forming {
		if f.started {
			e.send(&Chunk{Type: chunkToolInputError, ToolCallID: f.id, ToolName: f.name, Input: json.RawMessage(`{}`), ErrorText: "the model's stream broke and started over"})
		}
	}
	e.forming = map[int]*formingCall{}
	if e.stepOpen {
		e.finishStep()
		e.send(&Chunk{Type: chunkStartStep})
		e.stepOpen = true
	}
}

// textDelta sends a piece of text or reasoning, opening its part first.
func (e *emitter) textDelta(open *string, startType, deltaType, text string) {
	if text == "" {
		return
	}
	if *open == "" {
		e.seq++
		*open = strconv.Itoa(e.seq)
		e.send(&Chunk{Type: startType, ID: *open})
	}
	e.send(&Chunk{Type: deltaType, ID: *open, Delta: text})
}

// callDelta shows a call's input as it forms: its part starts once its id
// and name are known, with the input so far, and grows by each piece.
func (e *emitter) callDelta(d llmstream.Delta) {
	f := e.forming[d.Call.Index]
	if f == nil {
		f = &formingCall{}
		e.forming[d.Call.Index] = f
	}
	if f.started {
		if d.Text != "" {
			e.send(&Chunk{Type: chunkToolInputDelta, ToolCallID: f.id, InputTextDelta: d.Text})
		}
		return
	}
	f.id, f.name = d.Call.ID, d.Call.Name
	if f.id == "" || f.name == "" {
		return
	}
	f.started = true
	e.send(&Chunk{Type: chunkToolInputStart, ToolCallID: f.id, ToolName: f.name})
	if len(d.Call.Partial) > 0 {
		e.send(&Chunk{Type: chunkToolInputDelta, ToolCallID: f.id, InputTextDelta: string(d.Call.Partial)})
	}
}

func (e *emitter) endText() {
	if e.reasoning != "" {
		e.send(&Chunk{Type: chunkReasoningEnd, ID: e.reasoning})
		e.reasoning = ""
	}
	if e.text != "" {
		e.send(&Chunk{Type: chunkTextEnd, ID: e.text})
		e.text = ""
	}
}

// afterModel closes the answer's parts and makes its calls available; a
// call whose input streamed but that the answer does not have (the stream
// broke) is shown failed.
func (e *emitter) afterModel(d agentloop.ModelDone) {
	e.endText()
	final := map[string]bool{}
	if d.Err == nil || isCallsError(d.Err) {
		for _, c := range d.Message.ToolCalls {
			final[c.ID] = true
			e.callAvailable(c)
		}
	}
	for _, f := range e.forming {
		if f.started && !final[f.id] {
			e.send(&Chunk{Type: chunkToolInputError, ToolCallID: f.id, ToolName: f.name, Input: json.RawMessage(`{}`), ErrorText: "the model's answer broke off before this call was complete"})
		}
	}
	e.forming = nil
}

func isCallsError(err error) bool {
	var tce *llmstream.ToolCallsError
	return errors.As(err, &tce)
}

// callAvailable sends a call's whole input.
func (e *emitter) callAvailable(c llmstream.ToolCall) {
	started := false
	for _, f := range e.forming {
		started = started || (f.started && f.id == c.ID)
	}
	if !started {
		e.send(&Chunk{Type: chunkToolInputStart, ToolCallID: c.ID, ToolName: c.Function.Name})
	}
	e.tools[c.ID] = c.Function.Name
	e.waiting = append(e.waiting, c.ID)
	e.send(&Chunk{Type: chunkToolInputAvailable, ToolCallID: c.ID, ToolName: c.Function.Name, Input: callInput(c.Function.Arguments)})
}

// answer sends a call's answer.
func (e *emitter) answer(id, content string, failed bool) {
	if !e.resolve(id) {
		return
	}
	if failed {
		e.send(&Chunk{Type: chunkToolOutputError, ToolCallID: id, ErrorText: content})
		return
	}
	out, _ := json.Marshal(content)
	e.send(&Chunk{Type: chunkToolOutputAvailable, ToolCallID: id, Output: out})
}

// resolve marks a call answered, and reports whether it was waiting.
func (e *emitter) resolve(id string) bool {
	for i, w := range e.waiting {
		if w == id {
			e.waiting = append(e.waiting[:i], e.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// answerFrom sends the answers in msgs of the calls still waiting, but
// for those pending approval: calls answered without running ("skipped",
// "not run") get no tool hook.
func (e *emitter) answerFrom(msgs []llmstream.Message, pending []agentloop.Call) {
	if len(e.waiting) == 0 {
		return
	}
	for _, m := range msgs {
		if m.Role == "tool" && !isPending(pending, m.ToolCallID) {
			e.answer(m.ToolCallID, m.Content, m.IsError)
		}
	}
}

func isPending(pending []agentloop.Call, id string) bool {
	for _, c := range pending {
		if c.ID == id {
			return true
		}
	}
	return false
}

// end sends the run's end: the answers not sent yet, an approval request
// per pending call, the error of a failed run, finish-step and finish.
// errText turns the run's error into the text the browser sees.
func (e *emitter) end(res agentloop.Result, err error, errText func(error) string) {
	e.endText()
	e.answerFrom(res.Messages, res.Pending)
	for _, c := range res.Pending {
		e.send(&Chunk{Type: chunkToolApprovalRequest, ApprovalID: approvalID(c.ID), ToolCallID: c.ID})
	}
	reason := finishStop
	switch {
	case errors.Is(err, agentloop.ErrPaused):
		reason = finishToolCalls
	case err != nil:
		reason = finishError
		e.send(&Chunk{Type: chunkError, ErrorText: errText(err)})
	}
	e.finishStep()
	e.send(&Chunk{Type: chunkFinish, FinishReason: reason})
}

// approvalID is the approval id of a call's request. It need not be
// secret: an answer counts only for a call this server holds pending.
func approvalID(callID string) string { return "approval-" + callID }
