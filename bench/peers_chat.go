package bench

// peers_chat.go: full-pipeline peers for OpenAI Chat Completions streams:
// SSE, the JSON of every chunk, and the accumulation of text and
// tool-call fragments (by index) into one message.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
	"github.com/openai/openai-go/v3"
	oaissestream "github.com/openai/openai-go/v3/packages/ssestream"
	goopenai "github.com/sashabaranov/go-openai"
)

var chatPeers = []PipelinePeer{
	{Name: "hand-encoding-json", About: "bufio.Scanner SSE + encoding/json into a struct per chunk + accumulation by index",
		New: each(func(d []byte) (Message, error) { return handChat(memScanner(d), json.Unmarshal, nil) })},
	{Name: "hand-goccy-json", About: "the same with goccy/go-json",
		New: each(func(d []byte) (Message, error) { return handChat(memScanner(d), gojson.Unmarshal, nil) })},
	{Name: "hand-sonic", About: "the same with bytedance/sonic",
		New: each(func(d []byte) (Message, error) { return handChat(memScanner(d), sonic.Unmarshal, nil) })},
	{Name: "openai-go", About: "openai-go ssestream.NewStream[ChatCompletionChunk] + ChatCompletionAccumulator on an in-memory response (what NewStreaming does after the round trip)",
		New: each(openAIGoChat)},
	{Name: "go-openai", About: "go-openai CreateChatCompletionStream + Recv over an in-memory RoundTripper, accumulated by index",
		New: goOpenAIChat},
	{Name: "airlock", About: "airlock llmstream.ReadMessage(body, WithDialect(DialectChat)): sse + bridge + tool-call assembler",
		New: each(func(d []byte) (Message, error) { return airlockRead(bytes.NewReader(d), llmstream.DialectChat) })},
}

// chatAcc accumulates chat deltas; the hand-written and go-openai peers
// share it.
type chatAcc struct {
	role, finish string
	content      []byte
	calls        []chatCallAcc
}

type chatCallAcc struct {
	id, name string
	args     []byte
}

func (a *chatAcc) call(index int) (*chatCallAcc, error) {
	if index < 0 || index > 1024 {
		return nil, fmt.Errorf("tool call index %d out of range", index)
	}
	for len(a.calls) <= index {
		a.calls = append(a.calls, chatCallAcc{})
	}
	return &a.calls[index], nil
}

func (a *chatAcc) fragment(index int, id, name, args string) error {
	c, err := a.call(index)
	if err != nil {
		return err
	}
	if id != "" {
		c.id = id
	}
	if name != "" {
		c.name = name
	}
	c.args = append(c.args, args...)
	return nil
}

func (a *chatAcc) message() Message {
	m := Message{Role: a.role, Content: string(a.content), FinishReason: a.finish}
	for _, c := range a.calls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args)})
	}
	return m
}

// handChunk is the part of a chat.completion.chunk the baseline decodes.
type handChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string  `json:"role"`
			Content   string  `json:"content"`
			Refusal   *string `json:"refusal"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// memScanner scans data with a 64 KiB buffer to start with, as a
// baseline sized for whole responses would.
func memScanner(data []byte) *bufio.Scanner {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), BigBuf)
	return sc
}

// handChat is the plain baseline: bufio.Scanner lines, data lines joined,
// each chunk unmarshaled into a fresh struct, fragments accumulated by
// index, up to [DONE]. onChunk, if not nil, gets the text length after
// every chunk (the held-stream peers use it).
func handChat(sc *bufio.Scanner, unmarshal func([]byte, any) error, onChunk func(contentLen int)) (Message, error) {
	var acc chatAcc
	for data := range sseData(sc) {
		if string(data) == "[DONE]" {
			return acc.message(), nil
		}
		var ch handChunk
		if err := unmarshal(data, &ch); err != nil {
			return Message{}, err
		}
		for i := range ch.Choices {
			c := &ch.Choices[i]
			if c.Index != 0 {
				continue
			}
			if c.Delta.Role != "" {
				acc.role = c.Delta.Role
			}
			acc.content = append(acc.content, c.Delta.Content...)
			for _, tc := range c.Delta.ToolCalls {
				if err := acc.fragment(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
					return Message{}, err
				}
			}
			if c.FinishReason != nil {
				acc.finish = *c.FinishReason
			}
		}
		if onChunk != nil {
			onChunk(len(acc.content))
		}
	}
	if err := sc.Err(); err != nil {
		return Message{}, err
	}
	return Message{}, io.ErrUnexpectedEOF // no [DONE]
}

// openAIGoChat is what client.Chat.Completions.NewStreaming does once the
// response is in, plus the SDK's accumulator.
func openAIGoChat(data []byte) (Message, error) {
	stream := oaissestream.NewStream[openai.ChatCompletionChunk](oaissestream.NewDecoder(HTTPResponse(data)), nil)
	return openAIGoAccumulate(stream, nil)
}

// openAIGoAccumulate drains stream into a ChatCompletionAccumulator;
// onChunk, if not nil, gets the text length after every chunk.
func openAIGoAccumulate(stream *oaissestream.Stream[openai.ChatCompletionChunk], onChunk func(contentLen int)) (Message, error) {
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		if !acc.AddChunk(stream.Current()) {
			return Message{}, errors.New("openai-go: AddChunk refused a chunk")
		}
		if onChunk != nil && len(acc.Choices) > 0 {
			onChunk(len(acc.Choices[0].Message.Content))
		}
	}
	if err := stream.Err(); err != nil {
		return Message{}, err
	}
	if len(acc.Choices) == 0 {
		return Message{}, errors.New("openai-go: no choice accumulated")
	}
	ch := acc.Choices[0]
	m := Message{Role: string(ch.Message.Role), Content: ch.Message.Content, FinishReason: ch.FinishReason}
	for _, tc := range ch.Message.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return m, nil
}

// goOpenAIChat makes one go-openai client per corpus, whose requests are
// answered from memory.
func goOpenAIChat(data []byte) func() (Message, error) {
	client := newGoOpenAI(&http.Client{Transport: MemTransport{data}})
	return func() (Message, error) {
		return goOpenAIRecv(context.Background(), client, goOpenAIRequest("hello"), nil)
	}
}

// goOpenAIRecv streams req and accumulates by index; onChunk, if not nil,
// gets the text length after every chunk.
func goOpenAIRecv(ctx context.Context, client *goopenai.Client, req goopenai.ChatCompletionRequest, onChunk func(contentLen int)) (Message, error) {
	stream, err := client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return Message{}, err
	}
	defer stream.Close()
	var acc chatAcc
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return acc.message(), nil
		}
		if err != nil {
			return Message{}, err
		}
		for i := range resp.Choices {
			c := &resp.Choices[i]
			if c.Index != 0 {
				continue
			}
			if c.Delta.Role != "" {
				acc.role = c.Delta.Role
			}
			acc.content = append(acc.content, c.Delta.Content...)
			for _, tc := range c.Delta.ToolCalls {
				index := 0
				if tc.Index != nil {
					index = *tc.Index
				}
				if err := acc.fragment(index, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
					return Message{}, err
				}
			}
			if c.FinishReason != "" {
				acc.finish = string(c.FinishReason)
			}
		}
		if onChunk != nil {
			onChunk(len(acc.content))
		}
	}
}
