package bench

// peers_gemini.go: full-pipeline peers for Gemini streamGenerateContent
// streams: SSE, the JSON of every GenerateContentResponse, and the
// accumulation of candidate 0's parts (answer text, thought summaries,
// whole function calls, the thought signature) into one message.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
	"google.golang.org/genai"
)

var geminiPeers = []PipelinePeer{
	{Name: "hand-encoding-json", About: "bufio.Scanner SSE + encoding/json into a struct per chunk + accumulation of candidate 0's parts",
		New: each(func(d []byte) (Message, error) { return handGemini(memScanner(d)) })},
	{Name: "genai", About: "google.golang.org/genai Models.GenerateContentStream through an http.Client answered from memory (request, SSE, its map-then-struct decoding), parts accumulated as its docs show; args re-encoded to JSON text",
		New: genAIGemini},
	{Name: "airlock", About: "airlock llmstream.ReadMessage(body, WithDialect(DialectGemini)): sse + bridge + tool-call assembler",
		New: each(func(d []byte) (Message, error) { return airlockRead(bytes.NewReader(d), llmstream.DialectGemini) })},
}

// geminiAcc accumulates candidate 0's parts; the hand-written and genai
// peers share it.
type geminiAcc struct {
	content, reasoning, signature strings.Builder
	calls                         []ToolCall
	finishReason                  string
}

func (a *geminiAcc) text(s string, thought bool) {
	if thought {
		a.reasoning.WriteString(s)
	} else {
		a.content.WriteString(s)
	}
}

// call adds a whole call; Gemini 2.5 sends no id, so it gets the same
// "call_<n>" airlock gives it.
func (a *geminiAcc) call(id, name, args string) {
	if id == "" {
		id = fmt.Sprintf("call_%d", len(a.calls))
	}
	a.calls = append(a.calls, ToolCall{ID: id, Name: name, Arguments: args})
}

func (a *geminiAcc) finish(reason string) {
	if reason != "" {
		a.finishReason = reason
	}
}

func (a *geminiAcc) message() (Message, error) {
	if a.finishReason == "" {
		return Message{}, errors.New("the stream ended with no finishReason")
	}
	return Message{
		Role:    "assistant", // Gemini's "model"
		Content: a.content.String(), Reasoning: a.reasoning.String(), Signature: a.signature.String(),
		FinishReason: a.finishReason, ToolCalls: a.calls,
	}, nil
}

// handGeminiChunk is the part of a GenerateContentResponse the baseline
// decodes.
type handGeminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text             string `json:"text"`
				Thought          bool   `json:"thought"`
				ThoughtSignature string `json:"thoughtSignature"`
				FunctionCall     *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
		Index        int    `json:"index"`
	} `json:"candidates"`
}

// handGemini is the plain baseline: bufio.Scanner lines, one data line per
// event (Gemini never splits one), each chunk unmarshaled into a fresh
// struct, candidate 0's parts accumulated, up to the end of the body.
func handGemini(sc *bufio.Scanner) (Message, error) {
	var a geminiAcc
	for sc.Scan() {
		v, ok := bytes.CutPrefix(sc.Bytes(), dataPrefix)
		if !ok {
			continue
		}
		var ch handGeminiChunk
		if err := json.Unmarshal(bytes.TrimPrefix(v, []byte(" ")), &ch); err != nil {
			return Message{}, err
		}
		for _, c := range ch.Candidates {
			if c.Index != 0 {
				continue
			}
			for _, p := range c.Content.Parts {
				a.signature.WriteString(p.ThoughtSignature)
				if fc := p.FunctionCall; fc != nil {
					a.call(fc.ID, fc.Name, string(fc.Args))
				} else {
					a.text(p.Text, p.Thought)
				}
			}
			a.finish(c.FinishReason)
		}
	}
	if err := sc.Err(); err != nil {
		return Message{}, err
	}
	return a.message()
}

// genAIGemini makes one genai client per corpus, whose requests are
// answered from memory, and streams one turn with it per call.
func genAIGemini(data []byte) func() (Message, error) {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "AIza-bench", Backend: genai.BackendGeminiAPI,
		HTTPClient:  &http.Client{Transport: MemTransport{data}},
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://gemini.invalid/"},
	})
	if err != nil {
		return func() (Message, error) { return Message{}, err }
	}
	history := []*genai.Content{genai.NewContentFromText("hello", genai.RoleUser)}
	return func() (Message, error) {
		var a geminiAcc
		for resp, err := range client.Models.GenerateContentStream(context.Background(), geminiModel, history, nil) {
			if err != nil {
				return Message{}, err
			}
			if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
				continue
			}
			c := resp.Candidates[0]
			for _, p := range c.Content.Parts {
				if len(p.ThoughtSignature) > 0 {
					a.signature.WriteString(base64.StdEncoding.EncodeToString(p.ThoughtSignature))
				}
				if fc := p.FunctionCall; fc != nil {
					args, err := encodeArgs(fc.Args)
					if err != nil {
						return Message{}, err
					}
					a.call(fc.ID, fc.Name, args)
				} else {
					a.text(p.Text, p.Thought)
				}
			}
			a.finish(string(c.FinishReason))
		}
		return a.message()
	}
}
