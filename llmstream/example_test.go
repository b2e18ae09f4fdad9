package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
)

// Decode a recorded stream: two tool-call fragments, a finish, [DONE].
func ExampleReadMessage() {
	body := `data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"go.mod\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	m, err := llmstream.ReadMessage(strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range m.ToolCalls {
		fmt.Println(c.ID, c.Function.Name, c.Function.Arguments)
	}
	// Output: call_1 read_file {"path":"go.mod"}
}

// A stream cut off before it finished gives ErrTruncated and the partial
// text, for display only; a half-received call is never returned.
func ExampleReadMessage_truncated() {
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello, wor\"}}]}\n\n"
	m, err := llmstream.ReadMessage(strings.NewReader(body))
	fmt.Println(errors.Is(err, llmstream.ErrTruncated), m.Content)
	// Output: true Hello, wor
}

// Stream a turn from a server (here the in-process fake) and watch the
// pieces arrive.
func ExampleClient_Stream() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(llmstreamtest.Turn{
		Text:      "Let me check.",
		ToolCalls: []llmstreamtest.Call{{ID: "call_7", Name: "list_files", Arguments: `{"dir":"."}`}},
	}))
	defer srv.Close()

	client := llmstream.NewClient(
		llmstream.WithBaseURL(srv.URL),
		llmstream.WithAPIKey("sk-example"),
		llmstream.WithModel("demo"),
		llmstream.WithOnDelta(func(d llmstream.Delta) error {
			if d.Kind == llmstream.DeltaText {
				fmt.Printf("text %q\n", d.Text)
			}
			return nil
		}),
	)
	m, err := client.Stream(context.Background(), llmstream.Request{
		Messages: []llmstream.Message{{Role: "user", Content: "What is here?"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Content, m.FinishReason, m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments)
	// Output:
	// text "Let "
	// text "me "
	// text "check."
	// Let me check. tool_calls list_files {"dir":"."}
}

// Tell the provider's errors from a broken stream: here an Anthropic
// stream that was cut off before message_stop.
func ExampleReadMessage_errors() {
	body := strings.NewReader(`event: message_start
data: {"type":"message_start","message":{"id":"msg_1","role":"assistant","content":[],"usage":{"input_tokens":9,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The module is"}}

`)
	// readme:begin
	m, err := llmstream.ReadMessage(body, llmstream.WithDialect(llmstream.DialectAnthropic)) // a recorded stream → one Message
	var api *llmstream.APIError
	switch {
	case errors.As(err, &api): // the provider said so; api.Kind is the same for every provider
		fmt.Println("provider error:", api.Kind, api.Message)
	case errors.Is(err, llmstream.ErrInterrupted): // the stream broke: retrying is reasonable; m has the text so far, never a call
		fmt.Printf("interrupted after %q: %v\n", m.Content, err)
	case err != nil: // a bad request, key or event, or the caller's cancellation: it fails the same way again
		fmt.Println(err)
	}
	// readme:end

	// Output: interrupted after "The module is": llmstream: stream ended before the response was complete
}

// A provider error inside the stream is an *APIError with the provider's
// own message.
func ExampleAPIError() {
	body := "data: {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}\n\n"
	_, err := llmstream.ReadMessage(strings.NewReader(body))
	var api *llmstream.APIError
	if errors.As(err, &api) {
		fmt.Println(api.Code, "-", api.Message)
	}
	// Output: rate_limit_exceeded - Rate limit reached
}

// Feed a Bridge from your own event source.
func ExampleBridge() {
	src := sse.NewReader(strings.NewReader("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"))
	m, err := llmstream.NewBridge().Consume(src)
	fmt.Println(m.Content, m.FinishReason, err)
	// Output: hi stop <nil>
}
