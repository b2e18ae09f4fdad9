package bench

// peers_responses.go: full-pipeline peers for OpenAI Responses streams:
// SSE, the JSON of every event, and the accumulation of the output items
// (message text, reasoning summary with its encrypted_content, function
// call arguments), followed by output_index, into one message.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
	oaissestream "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

var responsesPeers = []PipelinePeer{
	{Name: "hand-encoding-json", About: "bufio.Scanner SSE + encoding/json into a struct per event + accumulation by output_index",
		New: each(func(d []byte) (Message, error) { return handResponses(memScanner(d)) })},
	{Name: "openai-go", About: "openai-go ssestream.NewStream[responses.ResponseStreamEventUnion] on an in-memory response (what Responses.NewStreaming does after the round trip), accumulated by output_index from the union's fields (the SDK's ResponseAccumulator takes WebSocket events only)",
		New: each(openAIGoResponses)},
	{Name: "airlock", About: "airlock llmstream.ReadMessage(body, WithDialect(DialectResponses)): sse + bridge + tool-call assembler",
		New: each(func(d []byte) (Message, error) { return airlockRead(bytes.NewReader(d), llmstream.DialectResponses) })},
}

// respAcc accumulates Responses output items by output_index; the
// hand-written and openai-go peers share it.
type respAcc struct {
	role, status string
	items        []respItemAcc
}

// respItemAcc is one output item being accumulated.
type respItemAcc struct {
	kind, callID, name, encrypted string
	text                          []byte   // a message's output text
	summary                       [][]byte // a reasoning item's summary parts
	args                          []byte   // a function call's argument deltas
	fullArgs                      string   // function_call_arguments.done's
}

func (a *respAcc) item(index int64) (*respItemAcc, error) {
	if index < 0 || index >= int64(len(a.items)) {
		return nil, fmt.Errorf("an event for output item %d, %d added", index, len(a.items))
	}
	return &a.items[index], nil
}

// add opens the item at index, which must be the next one.
func (a *respAcc) add(index int64, kind, role, callID, name string) error {
	if index != int64(len(a.items)) {
		return fmt.Errorf("output item %d added after %d", index, len(a.items))
	}
	a.items = append(a.items, respItemAcc{kind: kind, callID: callID, name: name})
	if kind == "message" {
		a.role = role
	}
	return nil
}

func (a *respAcc) summaryDelta(index, part int64, delta string) error {
	it, err := a.item(index)
	if err != nil {
		return err
	}
	if part < 0 || part > 1024 {
		return fmt.Errorf("summary index %d out of range", part)
	}
	for int64(len(it.summary)) <= part {
		it.summary = append(it.summary, nil)
	}
	it.summary[part] = append(it.summary[part], delta...)
	return nil
}

// message is the accumulated message: the text of every message item, the
// summary parts of every reasoning item separated by a blank line, and the
// function calls, arguments from function_call_arguments.done when it came.
func (a *respAcc) message() Message {
	m := Message{Role: a.role, FinishReason: a.status}
	var reasoning []string
	for i := range a.items {
		it := &a.items[i]
		switch it.kind {
		case "message":
			m.Content += string(it.text)
		case "reasoning":
			for j := range it.summary {
				reasoning = append(reasoning, string(it.summary[j]))
			}
			m.Signature += it.encrypted
		case "function_call":
			args := it.fullArgs
			if args == "" {
				args = string(it.args)
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: it.callID, Name: it.name, Arguments: args})
		}
	}
	m.Reasoning = strings.Join(reasoning, "\n\n")
	return m
}

// openAIGoResponses decodes the stream the way the SDK's
// Responses.NewStreaming does once the response is in, and accumulates
// it from the event union's fields, switching on its Type (AsAny would
// decode every event a second time).
func openAIGoResponses(data []byte) (Message, error) {
	stream := oaissestream.NewStream[responses.ResponseStreamEventUnion](oaissestream.NewDecoder(HTTPResponse(data)), nil)
	defer stream.Close()
	var acc respAcc
	for stream.Next() {
		ev := stream.Current()
		var err error
		switch ev.Type {
		case "response.output_item.added":
			err = acc.add(ev.OutputIndex, ev.Item.Type, ev.Item.Role, ev.Item.CallID, ev.Item.Name)
		case "response.output_text.delta":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil {
				it.text = append(it.text, ev.Delta...)
			}
		case "response.reasoning_summary_text.delta":
			err = acc.summaryDelta(ev.OutputIndex, ev.SummaryIndex, ev.Delta)
		case "response.function_call_arguments.delta":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil {
				it.args = append(it.args, ev.Delta...)
			}
		case "response.function_call_arguments.done":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil {
				it.fullArgs = ev.Arguments
			}
		case "response.output_item.done":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil && ev.Item.Type == "reasoning" {
				it.encrypted = ev.Item.EncryptedContent
			}
		case "response.completed", "response.incomplete":
			acc.status = string(ev.Response.Status)
		case "response.failed":
			err = fmt.Errorf("response.failed: %s", ev.Response.Error.Message)
		case "error":
			err = fmt.Errorf("error event: %s", ev.Message)
		}
		if err != nil {
			return Message{}, err
		}
	}
	if err := stream.Err(); err != nil {
		return Message{}, err
	}
	if acc.status == "" {
		return Message{}, fmt.Errorf("stream ended before response.completed")
	}
	return acc.message(), nil
}

// handResponsesEvent is the part of a Responses stream event the baseline
// decodes.
type handResponsesEvent struct {
	Type         string  `json:"type"`
	OutputIndex  int64   `json:"output_index"`
	SummaryIndex int64   `json:"summary_index"`
	Delta        string  `json:"delta"`
	Arguments    *string `json:"arguments"`
	Message      string  `json:"message"`
	Item         *struct {
		Type             string `json:"type"`
		Role             string `json:"role"`
		CallID           string `json:"call_id"`
		Name             string `json:"name"`
		EncryptedContent string `json:"encrypted_content"`
	} `json:"item"`
	Response *struct {
		Status string          `json:"status"`
		Error  json.RawMessage `json:"error"`
	} `json:"response"`
}

// handResponses is the plain baseline: bufio.Scanner lines, data lines
// joined, each event unmarshaled into a fresh struct, items accumulated by
// output_index, up to response.completed.
func handResponses(sc *bufio.Scanner) (Message, error) {
	var acc respAcc
	for data := range sseData(sc) {
		var ev handResponsesEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return Message{}, err
		}
		var err error
		switch ev.Type {
		case "response.output_item.added":
			if ev.Item == nil {
				return Message{}, fmt.Errorf("output_item.added without an item")
			}
			err = acc.add(ev.OutputIndex, ev.Item.Type, ev.Item.Role, ev.Item.CallID, ev.Item.Name)
		case "response.output_text.delta":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil {
				it.text = append(it.text, ev.Delta...)
			}
		case "response.reasoning_summary_text.delta":
			err = acc.summaryDelta(ev.OutputIndex, ev.SummaryIndex, ev.Delta)
		case "response.function_call_arguments.delta":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil {
				it.args = append(it.args, ev.Delta...)
			}
		case "response.function_call_arguments.done":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil && ev.Arguments != nil {
				it.fullArgs = *ev.Arguments
			}
		case "response.output_item.done":
			var it *respItemAcc
			if it, err = acc.item(ev.OutputIndex); err == nil && ev.Item != nil && ev.Item.Type == "reasoning" {
				it.encrypted = ev.Item.EncryptedContent
			}
		case "response.completed", "response.incomplete":
			if ev.Response == nil {
				return Message{}, fmt.Errorf("%s without a response", ev.Type)
			}
			acc.status = ev.Response.Status
			return acc.message(), nil
		case "response.failed":
			if ev.Response == nil {
				return Message{}, fmt.Errorf("response.failed")
			}
			return Message{}, fmt.Errorf("response.failed: %s", ev.Response.Error)
		case "error":
			return Message{}, fmt.Errorf("error event: %s", ev.Message)
		}
		if err != nil {
			return Message{}, err
		}
	}
	if err := sc.Err(); err != nil {
		return Message{}, err
	}
	return Message{}, fmt.Errorf("stream ended before response.completed")
}
