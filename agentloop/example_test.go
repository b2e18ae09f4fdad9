package agentloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// A scripted model: the first turn calls the "upper" tool, the second
// answers with the tool's result.
func scriptedModel(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
	last := r.Messages[len(r.Messages)-1]
	if last.Role == "tool" {
		return llmstream.Message{Role: "assistant", Content: "The tool said " + last.Content + "."}, nil
	}
	return llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{{
		ID: "call_1", Type: "function",
		Function: llmstream.FunctionCall{Name: "upper", Arguments: `{"text":"hello"}`},
	}}}, nil
}

var upper = agentloop.Tool{
	Name:        "upper",
	Description: "Upper-cases text.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(args, &in); err != nil {
			return "", agentloop.Recoverable(err)
		}
		return strings.ToUpper(in.Text), nil
	},
}

func ExampleLoop_Run() {
	loop := agentloop.Loop{Model: agentloop.ModelFunc(scriptedModel), Tools: []agentloop.Tool{upper}}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "Shout hello."}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Messages {
		b, _ := json.Marshal(m)
		fmt.Println(string(b))
	}
	fmt.Printf("turns %d, tool calls %d\n", res.Turns, res.ToolCalls)
	// Output:
	// {"role":"user","content":"Shout hello."}
	// {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"upper","arguments":"{\"text\":\"hello\"}"}}]}
	// {"role":"tool","content":"HELLO","tool_call_id":"call_1"}
	// {"role":"assistant","content":"The tool said HELLO."}
	// turns 2, tool calls 1
}

// Hooks let a front end print progress as the run goes.
func ExampleHooks() {
	loop := agentloop.Loop{
		Model: agentloop.ModelFunc(scriptedModel),
		Tools: []agentloop.Tool{upper},
		Hooks: agentloop.Hooks{
			AfterTool: func(d agentloop.ToolDone) {
				fmt.Fprintf(os.Stdout, "→ %s %s: %d bytes\n", d.Call.Function.Name, d.Call.Function.Arguments, d.OutputBytes)
			},
			AfterModel: func(d agentloop.ModelDone) {
				if d.Message.Content != "" {
					fmt.Println(d.Message.Content)
				}
			},
		},
	}
	if _, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "Shout hello."}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// → upper {"text":"hello"}: 5 bytes
	// The tool said HELLO.
}

// A limit stops the run with a typed error; the Result so far comes with it.
func ExampleLimitError() {
	always := agentloop.ModelFunc(func(context.Context, llmstream.Request) (llmstream.Message, error) {
		return llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{
			{ID: "a", Function: llmstream.FunctionCall{Name: "upper", Arguments: `{"text":"a"}`}},
			{ID: "b", Function: llmstream.FunctionCall{Name: "upper", Arguments: `{"text":"b"}`}},
		}}, nil
	})
	loop := agentloop.Loop{Model: always, Tools: []agentloop.Tool{upper}, MaxToolCallsPerTurn: 1}
	res, err := loop.Run(context.Background(), []llmstream.Message{{Role: "user", Content: "go"}})
	var le *agentloop.LimitError
	fmt.Println(errors.Is(err, agentloop.ErrTurnToolLimit), errors.As(err, &le) && le.Value == 2)
	fmt.Println(err)
	fmt.Println(res.Messages[len(res.Messages)-1].Content)
	// Output:
	// true true
	// agentloop: turn 1 asked for 2 tool calls, more than the limit of 1 per turn
	// not run: agentloop: turn 1 asked for 2 tool calls, more than the limit of 1 per turn
}

// A tool marks a failure the model can fix with Recoverable: the model sees
// the error and tries again.
func ExampleRecoverable() {
	read := agentloop.Tool{Name: "read", Run: func(_ context.Context, args json.RawMessage) (string, error) {
		var in struct{ Path string }
		_ = json.Unmarshal(args, &in)
		if in.Path != "main.go" {
			return "", agentloop.Recoverable(fmt.Errorf("%s: no such file", in.Path))
		}
		return "package main", nil
	}}
	model := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		msgs := r.Messages
		last := msgs[len(msgs)-1]
		path := "mian.go"
		switch {
		case last.Role == "tool" && strings.HasPrefix(last.Content, "error:"):
			path = "main.go"
		case last.Role == "tool":
			return llmstream.Message{Role: "assistant", Content: "It is " + last.Content + "."}, nil
		}
		return llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "c_" + path, Function: llmstream.FunctionCall{Name: "read", Arguments: `{"path":"` + path + `"}`}}}}, nil
	})
	res, err := (&agentloop.Loop{Model: model, Tools: []agentloop.Tool{read}}).Run(context.Background(), []llmstream.Message{{Role: "user", Content: "read main.go"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Messages[1:] {
		if m.Role == "tool" {
			fmt.Println("tool:", m.Content)
		} else if m.Content != "" {
			fmt.Println("assistant:", m.Content)
		}
	}
	// Output:
	// tool: error: mian.go: no such file
	// tool: package main
	// assistant: It is package main.
}
