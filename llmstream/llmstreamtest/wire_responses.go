package llmstreamtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
)

// responsesWire is the OpenAI Responses dialect, served on /v1/responses.
//
// A turn streams as response.created and response.in_progress, then one
// output item per part, in the order reasoning (a reasoning item whose
// summary arrives in reasoning_summary_text deltas, closed with its
// encrypted_content: [Turn.Signature], else one made up from the request
// number), text and refusal (one message item, an output_text part then a
// refusal part, each opened by content_part.added and closed by its *.done
// and content_part.done), tool calls (function_call items whose arguments
// arrive in 1–6 byte deltas, closed by function_call_arguments.done and
// output_item.done; interleaved across the calls with
// [WithInterleavedCalls]), then response.completed with every item and the
// usage (when scripted). Deltas carry OpenAI's random "obfuscation", every
// event its sequence_number. Every event is "event: <type>" plus its JSON
// data.
//
// [Turn.FinishReason] "" (and "stop", "tool_calls", "completed") ends with
// response.completed; "length" with response.incomplete whose reason is
// max_output_tokens; any other value with response.incomplete whose reason
// is that value ("content_filter", say).
//
// Faults in this dialect's form: [FaultErrorEvent] is an "error" event,
// flat ({"type":"error","code","message","param"}, as documented) unless
// the fault names a [Fault.Type], which the nested shape the API sends in
// practice carries ({"type":"error","error":{"type","code","message",
// "param"}}); [FaultErrorFinish] is response.failed with the error in
// response.error; [FaultErrorLine] is the flat error event; a status fault
// answers with OpenAI's error body. A fault's code is [Fault.Code], else
// its Type, else "server_error".
type responsesWire struct{}

func (responsesWire) dialect() llmstream.Dialect { return llmstream.DialectResponses }
func (responsesWire) end() []byte                { return nil }
func (responsesWire) keepAlive() []byte          { return keepAliveComment }

// responsesStream numbers the events of one rendered stream.
type responsesStream struct {
	r   *renderer
	seq int
	evs []event
}

func (s *responsesStream) add(typ string, o object, final bool) {
	s.evs = append(s.evs, event{data: s.r.responsesEvent(typ, s.seq, o), final: final})
	s.seq++
}

// responsesEvent is one event of type typ with sequence number seq.
func (r *renderer) responsesEvent(typ string, seq int, o object) []byte {
	b, err := appendJSON(nil, object{{"type", typ}, {"sequence_number", seq}}.join(o))
	if err != nil && r.err == nil {
		r.err = err
	}
	return sseEvent(typ, b)
}

// responsesID is the id of item k of the turn, with its type's prefix.
func (r *renderer) responsesID(prefix string, k int) string {
	return prefix + "_llmstreamtest_" + strconv.Itoa(r.seq) + "_" + strconv.Itoa(k)
}

// response is the response object of the lifecycle events.
func (r *renderer) response(status string, output []any, usage, errObj, incomplete any) object {
	return object{{"id", "resp_llmstreamtest_" + strconv.Itoa(r.seq)}, {"object", "response"}, {"created_at", created},
		{"status", status}, {"background", false}, {"error", errObj}, {"incomplete_details", incomplete},
		{"instructions", nil}, {"max_output_tokens", nil}, {"model", r.model}, {"output", output},
		{"parallel_tool_calls", true}, {"previous_response_id", nil}, {"store", false}, {"temperature", 1.0},
		{"text", object{{"format", object{{"type", "text"}}}}}, {"tool_choice", "auto"}, {"tools", []any{}},
		{"top_p", 1.0}, {"truncation", "disabled"}, {"usage", usage}, {"user", nil}, {"metadata", object{}}}
}

// responsesUsage is the turn's usage in the Responses shape, nil for none.
func responsesUsage(u *llmstream.Usage) any {
	if u == nil {
		return nil
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	return object{{"input_tokens", u.PromptTokens}, {"input_tokens_details", object{{"cached_tokens", u.CachedTokens}}},
		{"output_tokens", u.CompletionTokens}, {"output_tokens_details", object{{"reasoning_tokens", u.ReasoningTokens}}},
		{"total_tokens", total}}
}

func (responsesWire) render(r *renderer) []event {
	t := r.turn
	s := &responsesStream{r: r}
	s.add("response.created", object{{"response", r.response("in_progress", []any{}, nil, nil, nil)}}, false)
	s.add("response.in_progress", object{{"response", r.response("in_progress", []any{}, nil, nil, nil)}}, false)
	var output []any
	index := 0
	if t.Reasoning != "" {
		id := r.responsesID("rs", index)
		s.add("response.output_item.added", object{{"output_index", index}, {"item", object{{"id", id}, {"type", "reasoning"}, {"summary", []any{}}}}}, false)
		at := object{{"item_id", id}, {"output_index", index}, {"summary_index", 0}}
		s.add("response.reasoning_summary_part.added", at.with("part", object{{"type", "summary_text"}, {"text", ""}}), false)
		for _, p := range textPieces(t.Reasoning) {
			s.add("response.reasoning_summary_text.delta", at.with("delta", p).with("obfuscation", r.padding()), false)
		}
		s.add("response.reasoning_summary_text.done", at.with("text", t.Reasoning), false)
		s.add("response.reasoning_summary_part.done", at.with("part", object{{"type", "summary_text"}, {"text", t.Reasoning}}), false)
		item := object{{"id", id}, {"type", "reasoning"}, {"summary", []any{object{{"type", "summary_text"}, {"text", t.Reasoning}}}},
			{"encrypted_content", r.signature()}}
		s.add("response.output_item.done", object{{"output_index", index}, {"item", item}}, false)
		output = append(output, item)
		index++
	}
	if t.Text != "" || t.Refusal != "" {
		output = append(output, s.message(index))
		index++
	}
	output = append(output, s.calls(index)...)

	finish := responsesFinish(t.FinishReason)
	if finish == "" {
		s.add("response.completed", object{{"response", r.response("completed", output, responsesUsage(t.Usage), nil, nil)}}, true)
	} else {
		s.add("response.incomplete", object{{"response", r.response("incomplete", output, responsesUsage(t.Usage), nil, object{{"reason", finish}})}}, true)
	}
	return s.evs
}

// responsesFinish is the incomplete_details.reason a finish reason asks
// for, "" for a completed response.
func responsesFinish(finish string) string {
	switch finish {
	case "", "stop", "tool_calls", "completed":
		return ""
	case "length":
		return "max_output_tokens"
	}
	return finish
}

// message streams the turn's text and refusal as one message item at
// output index index and returns the item as it is done.
func (s *responsesStream) message(index int) object {
	r, t := s.r, s.r.turn
	id := r.responsesID("msg", index)
	item := object{{"id", id}, {"type", "message"}, {"status", "in_progress"}, {"content", []any{}}, {"role", "assistant"}}
	s.add("response.output_item.added", object{{"output_index", index}, {"item", item}}, false)
	var parts []any
	for _, p := range []struct{ kind, text string }{{"output_text", t.Text}, {"refusal", t.Refusal}} {
		if p.text == "" {
			continue
		}
		at := object{{"item_id", id}, {"output_index", index}, {"content_index", len(parts)}}
		empty, full := object{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", ""}},
			object{{"type", "output_text"}, {"annotations", []any{}}, {"logprobs", []any{}}, {"text", p.text}}
		delta, done, doneText := "response.output_text.delta", "response.output_text.done", object{{"text", p.text}, {"logprobs", []any{}}}
		if p.kind == "refusal" {
			empty, full = object{{"type", "refusal"}, {"refusal", ""}}, object{{"type", "refusal"}, {"refusal", p.text}}
			delta, done, doneText = "response.refusal.delta", "response.refusal.done", object{{"refusal", p.text}}
		}
		s.add("response.content_part.added", at.with("part", empty), false)
		for _, piece := range textPieces(p.text) {
			d := at.with("delta", piece)
			if p.kind == "output_text" {
				d = d.with("logprobs", []any{})
			}
			s.add(delta, d.with("obfuscation", r.padding()), false)
		}
		s.add(done, at.join(doneText), false)
		s.add("response.content_part.done", at.with("part", full), false)
		parts = append(parts, full)
	}
	doneItem := object{{"id", id}, {"type", "message"}, {"status", "completed"}, {"content", parts}, {"role", "assistant"}}
	s.add("response.output_item.done", object{{"output_index", index}, {"item", doneItem}}, false)
	return doneItem
}

// calls streams the turn's calls as function_call items from output index
// base, interleaved when the server is told to, and returns them done.
func (s *responsesStream) calls(base int) []any {
	r, t := s.r, s.r.turn
	ps := callPieces(t.ToolCalls, r.rng, r.interleave)
	left := make([]int, len(t.ToolCalls)) // pieces still to come, per call
	for _, p := range ps {
		left[p.call]++
	}
	item := func(i int, status, args string) object {
		c := t.ToolCalls[i]
		return object{{"id", r.responsesID("fc", base+i)}, {"type", "function_call"}, {"status", status},
			{"arguments", args}, {"call_id", c.callID(OpenAI, r.seq, i)}, {"name", c.Name}}
	}
	out := make([]any, len(t.ToolCalls))
	for _, p := range ps {
		i := p.call
		index := base + i
		switch p.kind {
		case pieceHeader:
			s.add("response.output_item.added", object{{"output_index", index}, {"item", item(i, "in_progress", "")}}, false)
		case pieceArgs:
			s.add("response.function_call_arguments.delta", object{{"item_id", r.responsesID("fc", index)}, {"output_index", index},
				{"delta", p.text}, {"obfuscation", r.padding()}}, false)
		}
		if left[i]--; left[i] > 0 {
			continue
		}
		args := t.ToolCalls[i].Arguments
		s.add("response.function_call_arguments.done", object{{"item_id", r.responsesID("fc", index)}, {"output_index", index}, {"arguments", args}}, false)
		out[i] = item(i, "completed", args)
		s.add("response.output_item.done", object{{"output_index", index}, {"item", out[i]}}, false)
	}
	return out
}

// responsesErrorKind is the type and code of an error answer with status,
// as OpenAI names them, for a fault that names neither.
func responsesErrorKind(status int) (string, json.RawMessage) {
	switch {
	case status == 401:
		return "invalid_request_error", json.RawMessage(`"invalid_api_key"`)
	case status == 403:
		return "invalid_request_error", json.RawMessage(`"permission_denied"`)
	case status == 404:
		return "invalid_request_error", json.RawMessage(`"model_not_found"`)
	case status == 429:
		return "requests", json.RawMessage(`"rate_limit_exceeded"`)
	case status == 503:
		return "server_error", json.RawMessage(`"server_is_overloaded"`)
	case status >= 500:
		return "server_error", nil
	}
	return "invalid_request_error", nil
}

// errorBody is OpenAI's error body.
func (responsesWire) errorBody(status int, f Fault) []byte {
	typ, code := responsesErrorKind(status)
	if f.Type != "" {
		typ, code = f.Type, nil
	}
	if f.Code != nil {
		code = f.Code
	}
	if code == nil {
		code = json.RawMessage("null")
	}
	b, err := json.Marshal(object{{"error", object{{"message", f.message()}, {"type", typ}, {"param", nil}, {"code", code}}}})
	if err != nil {
		b = []byte(`{"error":{"message":"llmstreamtest: unencodable fault","type":"server_error","param":null,"code":null}}`)
	}
	return b
}

// responsesCode is a fault's code: Code, else its Type, else server_error.
func responsesCode(f Fault) any {
	switch {
	case f.Code != nil:
		return f.Code
	case f.Type != "":
		return f.Type
	}
	return "server_error"
}

// errorEvent is the in-stream failure: response.failed for
// FaultErrorFinish, else an error event, nested when the fault names a
// Type, flat otherwise.
func (responsesWire) errorEvent(r *renderer, f Fault) []byte {
	seq := f.After
	switch {
	case f.Kind == FaultErrorFinish:
		errObj := object{{"code", responsesCode(f)}, {"message", f.message()}}
		return r.responsesEvent("response.failed", seq, object{{"response", r.response("failed", []any{}, nil, errObj, nil)}})
	case f.Kind == FaultErrorEvent && f.Type != "":
		return r.responsesEvent("error", seq, object{{"error", object{{"type", f.Type}, {"code", responsesCode(f)}, {"message", f.message()}, {"param", nil}}}})
	}
	return r.responsesEvent("error", seq, object{{"code", responsesCode(f)}, {"message", f.message()}, {"param", nil}})
}

func (responsesWire) malformed(r *renderer) []byte {
	return []byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"output_index\":0,\"content_index\":0,\"delta\":\"unterminated\n\n")
}

// responsesItem is an input item, with every member decode reads.
type responsesItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
}

// decode reads a Responses request into the neutral form: "instructions"
// becomes a system message, message items messages, function_call_output
// items tool messages, and an assistant's run of items (its message,
// function_call, reasoning and other items) one assistant message whose
// Continuity keeps the items other than text and calls, and the ids, in
// their order.
func (responsesWire) decode(r *Request) error {
	var w struct {
		Model        string          `json:"model"`
		Instructions *string         `json:"instructions"`
		Input        json.RawMessage `json:"input"`
		Stream       bool            `json:"stream"`
		Tools        []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Strict      *bool           `json:"strict"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	r.Model, r.Stream = w.Model, w.Stream
	if w.Instructions != nil && *w.Instructions != "" {
		r.Messages = append(r.Messages, llmstream.Message{Role: "system", Content: *w.Instructions})
	}
	input := bytes.TrimSpace(w.Input)
	switch {
	case len(input) == 0 || string(input) == "null":
	case input[0] == '"':
		var s string
		if err := json.Unmarshal(input, &s); err != nil {
			return fmt.Errorf("input: %w", err)
		}
		r.Messages = append(r.Messages, llmstream.Message{Role: "user", Content: s})
	default:
		msgs, err := responsesInput(input)
		if err != nil {
			return err
		}
		r.Messages = append(r.Messages, msgs...)
	}
	for _, t := range w.Tools {
		if t.Type != "function" {
			continue // hosted tools have no neutral form
		}
		r.Tools = append(r.Tools, llmstream.Tool{Type: "function", Function: llmstream.ToolFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Strict: t.Strict}})
	}
	return nil
}

// responsesInput reads the input items.
func responsesInput(input []byte) ([]llmstream.Message, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(input, &raws); err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	var out []llmstream.Message
	var asst *llmstream.Message
	var blocks []llmstream.Block
	raw := false
	flush := func() {
		if asst == nil {
			return
		}
		if raw {
			asst.Continuity = &llmstream.Continuity{Dialect: llmstream.DialectResponses, Blocks: blocks}
		}
		out = append(out, *asst)
		asst, blocks, raw = nil, nil, false
	}
	assistant := func() *llmstream.Message {
		if asst == nil {
			asst = &llmstream.Message{Role: "assistant"}
		}
		return asst
	}
	for i, ri := range raws {
		var it responsesItem
		if err := json.Unmarshal(ri, &it); err != nil {
			return nil, fmt.Errorf("input[%d]: %w", i, err)
		}
		switch {
		case it.Type == "function_call":
			a := assistant()
			blocks = append(blocks, llmstream.Block{Type: llmstream.BlockToolCall, Call: len(a.ToolCalls), ID: it.ID})
			a.ToolCalls = append(a.ToolCalls, llmstream.ToolCall{ID: it.CallID, Type: "function", Function: llmstream.FunctionCall{Name: it.Name, Arguments: it.Arguments}})
		case it.Type == "function_call_output":
			flush()
			text, err := responsesText(it.Output)
			if err != nil {
				return nil, fmt.Errorf("input[%d] output: %w", i, err)
			}
			out = append(out, llmstream.Message{Role: "tool", ToolCallID: it.CallID, Content: text})
		case (it.Type == "message" || it.Type == "") && it.Role == "assistant":
			a := assistant()
			text, refusal, err := responsesParts(it.Content)
			if err != nil {
				return nil, fmt.Errorf("input[%d] content: %w", i, err)
			}
			if text != "" {
				a.Content += text
				blocks = append(blocks, llmstream.Block{Type: llmstream.BlockText, Bytes: len(text), ID: it.ID})
			}
			a.Refusal += refusal
		case it.Type == "message" || it.Type == "":
			flush()
			text, _, err := responsesParts(it.Content)
			if err != nil {
				return nil, fmt.Errorf("input[%d] content: %w", i, err)
			}
			role := it.Role
			if role == "developer" {
				role = "system"
			}
			out = append(out, llmstream.Message{Role: role, Content: text})
		default:
			// reasoning, and the items of hosted and custom tools: the
			// assistant's state, kept whole.
			assistant()
			blocks = append(blocks, llmstream.Block{Type: it.Type, ID: it.ID, Raw: bytes.Clone(ri)})
			raw = true
		}
	}
	flush()
	return out, nil
}

// responsesParts reads message content, a string or an array of parts,
// into its text (input_text and output_text parts) and refusal.
func responsesParts(raw json.RawMessage) (text, refusal string, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", nil
	}
	if raw[0] == '"' {
		err = json.Unmarshal(raw, &text)
		return text, "", err
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", "", err
	}
	var t, rf strings.Builder
	for _, p := range parts {
		if p.Type == "refusal" {
			rf.WriteString(p.Refusal)
			continue
		}
		t.WriteString(p.Text)
	}
	return t.String(), rf.String(), nil
}

// responsesText reads a function_call_output's output: a string or parts.
func responsesText(raw json.RawMessage) (string, error) {
	text, _, err := responsesParts(raw)
	return text, err
}
