package bench

// peers_anthropic.go: full-pipeline peers for Anthropic Messages streams:
// SSE, the JSON of every event, and the accumulation of each content
// block (text, thinking with its signature, tool_use input) into one
// message.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/airlock-go/airlock/llmstream"
	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthssestream "github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
)

var anthropicPeers = []PipelinePeer{
	{Name: "hand-encoding-json", About: "bufio.Scanner SSE + encoding/json into a struct per event + accumulation by block index",
		New: each(func(d []byte) (Message, error) { return handAnthropic(memScanner(d), json.Unmarshal) })},
	{Name: "anthropic-go", About: "anthropic-sdk-go ssestream.NewStream[MessageStreamEventUnion] + Message.Accumulate on an in-memory response (what Messages.NewStreaming does after the round trip)",
		New: each(anthropicSDK)},
	{Name: "airlock", About: "airlock llmstream.ReadMessage(body, WithDialect(DialectAnthropic)): sse + bridge + tool-call assembler",
		New: each(func(d []byte) (Message, error) { return airlockRead(bytes.NewReader(d), llmstream.DialectAnthropic) })},
}

// anthropicSDK decodes the stream the way the SDK's Messages.NewStreaming
// does once the response is in, and accumulates it with Message.Accumulate,
// as the SDK's documentation shows.
func anthropicSDK(data []byte) (Message, error) {
	stream := anthssestream.NewStream[anthropic.MessageStreamEventUnion](anthssestream.NewDecoder(HTTPResponse(data)), nil)
	defer stream.Close()
	var acc anthropic.Message
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			return Message{}, err
		}
	}
	if err := stream.Err(); err != nil {
		return Message{}, err
	}
	m := Message{Role: string(acc.Role), FinishReason: string(acc.StopReason)}
	for _, b := range acc.Content {
		switch b.Type {
		case "text":
			m.Content += b.Text
		case "thinking":
			m.Reasoning += b.Thinking
			m.Signature += b.Signature
		case "tool_use":
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	return m, nil
}

// handEvent is the part of a Messages stream event the baseline decodes.
type handEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID   string `json:"id"`
		Role string `json:"role"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		Thinking    string  `json:"thinking"`
		Signature   string  `json:"signature"`
		PartialJSON string  `json:"partial_json"`
		StopReason  *string `json:"stop_reason"`
	} `json:"delta"`
}

// handBlock is one content block being accumulated.
type handBlock struct {
	kind, id, name string
	text, input    []byte // text or thinking; tool_use input
	signature      string
	startInput     json.RawMessage // the input when no input_json_delta came
}

// handAnthropic is the plain baseline: bufio.Scanner lines, data lines
// joined, each event unmarshaled into a fresh struct, blocks accumulated
// by index, up to message_stop.
func handAnthropic(sc *bufio.Scanner, unmarshal func([]byte, any) error) (Message, error) {
	var m Message
	var blocks []handBlock
	for data := range sseData(sc) {
		var ev handEvent
		if err := unmarshal(data, &ev); err != nil {
			return Message{}, err
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				m.Role = ev.Message.Role
			}
		case "content_block_start":
			if ev.Index != len(blocks) || ev.ContentBlock == nil {
				return Message{}, fmt.Errorf("content_block_start for block %d, %d started", ev.Index, len(blocks))
			}
			cb := ev.ContentBlock
			blocks = append(blocks, handBlock{kind: cb.Type, id: cb.ID, name: cb.Name, startInput: cb.Input})
		case "content_block_delta":
			if ev.Index < 0 || ev.Index >= len(blocks) {
				return Message{}, fmt.Errorf("content_block_delta for block %d, %d started", ev.Index, len(blocks))
			}
			b := &blocks[ev.Index]
			switch ev.Delta.Type {
			case "text_delta":
				b.text = append(b.text, ev.Delta.Text...)
			case "thinking_delta":
				b.text = append(b.text, ev.Delta.Thinking...)
			case "signature_delta":
				b.signature += ev.Delta.Signature
			case "input_json_delta":
				b.input = append(b.input, ev.Delta.PartialJSON...)
			}
		case "message_delta":
			if ev.Delta.StopReason != nil {
				m.FinishReason = *ev.Delta.StopReason
			}
		case "message_stop":
			for _, b := range blocks {
				switch b.kind {
				case "text":
					m.Content += string(b.text)
				case "thinking":
					m.Reasoning += string(b.text)
					m.Signature += b.signature
				case "tool_use":
					if len(b.input) == 0 {
						b.input = b.startInput
					}
					m.ToolCalls = append(m.ToolCalls, ToolCall{ID: b.id, Name: b.name, Arguments: string(b.input)})
				}
			}
			return m, nil
		}
	}
	if err := sc.Err(); err != nil {
		return Message{}, err
	}
	return Message{}, fmt.Errorf("stream ended before message_stop")
}
