package llmstreamtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
)

// A scripted tool-calling turn, then an answer, read by llmstream's Client.
func ExampleNewServer() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{ID: "call_1", Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
		llmstreamtest.Turn{Text: "The module is airlock."},
	))
	defer srv.Close()

	client := llmstream.NewClient(
		llmstream.WithBaseURL(srv.URL),
		llmstream.WithHTTPClient(srv.Client()),
		llmstream.WithModel("fake-model"),
	)
	msgs := []llmstream.Message{{Role: "user", Content: "What is the module called?"}}
	msg, err := client.Stream(context.Background(), llmstream.Request{Messages: msgs})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := msg.ToolCalls[0]
	fmt.Println(msg.FinishReason, call.ID, call.Function.Name, call.Function.Arguments)

	msgs = append(msgs, msg, llmstream.Message{Role: "tool", ToolCallID: call.ID, Content: "module github.com/airlock-go/airlock"})
	msg, err = client.Stream(context.Background(), llmstream.Request{Messages: msgs})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.FinishReason, msg.Content)
	// Output:
	// tool_calls call_1 read_file {"path":"go.mod"}
	// stop The module is airlock.
}

// A fake model that decides its next turn from the tool results it is
// sent, as the offline demo agent's does.
func ExampleWithResponder() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithResponder(func(r llmstreamtest.Request) llmstreamtest.Turn {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			return llmstreamtest.Turn{Text: "The listing has " + last.Content + "."}
		}
		return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "list_dir", Arguments: `{"dir":"."}`}}}
	}))
	defer srv.Close()

	client := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()))
	msgs := []llmstream.Message{{Role: "user", Content: "What is here?"}}
	for {
		msg, err := client.Stream(context.Background(), llmstream.Request{Messages: msgs})
		if err != nil {
			fmt.Println(err)
			return
		}
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
			break
		}
		for _, c := range msg.ToolCalls {
			fmt.Println("run", c.Function.Name, "as", c.ID)
			msgs = append(msgs, llmstream.Message{Role: "tool", ToolCallID: c.ID, Content: "go.mod and main.go"})
		}
	}
	// Output:
	// run list_dir as call_1_0
	// The listing has go.mod and main.go.
}

// Retry tests: the first two attempts get 429 with Retry-After, the third
// the stream.
func ExampleFault_retry() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(llmstreamtest.Turn{
		Text:  "made it",
		Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: http.StatusTooManyRequests, Attempts: 2, RetryAfter: "1"},
	}))
	defer srv.Close()

	for attempt := 1; attempt <= 3; attempt++ {
		resp, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(attempt, resp.StatusCode, resp.Header.Get("Retry-After"), strings.Count(string(body), "data: "))
	}
	// Output:
	// 1 429 1 0
	// 2 429 1 0
	// 3 200  5
}

// A client made from ClientOptions retries a scripted 429 as airlock's
// default transport retries a real one; the server records every attempt.
func ExampleServer_ClientOptions() {
	// readme:begin
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "read_file", Arguments: `{"path":"go.mod"}`}}},
		llmstreamtest.Turn{Text: "The module is airlock.",
			Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultStatus, Status: 429, Attempts: 2}},
	))
	defer srv.Close()
	client := llmstream.NewClient(srv.ClientOptions()...) // airlock's transport, fast retries

	ctx := context.Background()
	msgs := []llmstream.Message{{Role: "user", Content: "What is the module called?"}}
	first, err := client.Stream(ctx, llmstream.Request{Messages: msgs})
	if err != nil {
		panic(err)
	}
	call := first.ToolCalls[0]
	msgs = append(msgs, first, llmstream.Message{Role: "tool", ToolCallID: call.ID, Content: "module airlock"})
	second, err := client.Stream(ctx, llmstream.Request{Messages: msgs}) // 429, 429, then the stream
	if err != nil {
		panic(err)
	}
	fmt.Println(call.Function.Name, call.Function.Arguments)
	fmt.Println(second.Content, len(srv.Requests()), "requests")
	// readme:end

	// Output:
	// read_file {"path":"go.mod"}
	// The module is airlock. 4 requests
}

// What the server received, for assertions.
func ExampleServer_Requests() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "hello"}))
	defer srv.Close()

	client := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()),
		llmstream.WithModel("fake-model"), llmstream.WithAPIKey("sk-test"))
	if _, err := client.Stream(context.Background(), llmstream.Request{
		Messages: []llmstream.Message{{Role: "user", Content: "hi"}},
		Tools:    []llmstream.Tool{{Function: llmstream.ToolFunction{Name: "list_dir"}}},
	}); err != nil {
		fmt.Println(err)
		return
	}
	r := srv.Requests()[0]
	fmt.Println(r.Seq, r.Method, r.Path, r.Model, r.Stream, r.StreamOptions.IncludeUsage)
	fmt.Println(r.Messages[0].Role, r.Messages[0].Content, r.Tools[0].Function.Name)
	fmt.Println(r.Header.Get("Authorization"))
	// Output:
	// 1 POST /v1/chat/completions fake-model true true
	// user hi list_dir
	// Bearer sk-test
}

// An in-stream provider error surfaces from the client as *llmstream.APIError.
func ExampleFaultKind() {
	srv := llmstreamtest.NewServer(llmstreamtest.WithTurns(llmstreamtest.Turn{
		Text:  "partial answer",
		Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, After: 2, Message: "model overloaded"},
	}))
	defer srv.Close()

	client := llmstream.NewClient(llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()))
	_, err := client.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
	var apiErr *llmstream.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("provider said:", apiErr.Message)
	}
	// Output:
	// provider said: model overloaded
}
