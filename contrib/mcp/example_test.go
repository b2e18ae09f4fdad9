package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/agentloop"
	mcp "github.com/airlock-go/airlock/contrib/mcp"
	"github.com/airlock-go/airlock/llmstream"
)

// ExampleTools offers a server's tools to a Loop. The server runs in
// process here; a real one is started with &sdk.CommandTransport{Command:
// exec.Command("npx", "-y", "@modelcontextprotocol/server-filesystem",
// dir)} or reached with &sdk.StreamableClientTransport{Endpoint: url}.
func ExampleTools() {
	ctx := context.Background()
	server := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "v1"}, nil)
	server.AddTool(&sdk.Tool{
		Name:        "forecast",
		Description: "Tomorrow's weather in a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ City string }
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.City + ": sunny, 21°C"}}}, nil
	})
	clientEnd, serverEnd := sdk.NewInMemoryTransports()
	serverSession, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer serverSession.Wait()
	defer serverSession.Close()
	session, err := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, clientEnd, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	tools, err := mcp.Tools(ctx, session, mcp.WithPrefix("weather_"))
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Printf("offered %s (needs approval: %v)\n", t.Name, t.NeedsApproval)
	}

	// A scripted model stands in for an *llmstream.Client: it calls the
	// tool once, then answers.
	model := agentloop.ModelFunc(func(_ context.Context, r llmstream.Request) (llmstream.Message, error) {
		if last := r.Messages[len(r.Messages)-1]; last.Role == "tool" {
			return llmstream.Message{Role: "assistant", Content: "Sunny. " + last.Content}, nil
		}
		return llmstream.Message{Role: "assistant", ToolCalls: []llmstream.ToolCall{{ID: "c1", Type: "function",
			Function: llmstream.FunctionCall{Name: "weather_forecast", Arguments: `{"city":"Lisbon"}`}}}}, nil
	})
	loop := agentloop.Loop{Model: model, Tools: tools}
	res, err := loop.Run(ctx, []llmstream.Message{{Role: "user", Content: "Weather in Lisbon tomorrow?"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range res.Messages {
		switch {
		case len(m.ToolCalls) > 0:
			fmt.Printf("%s: calls %s %s\n", m.Role, m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments)
		default:
			fmt.Printf("%s: %s\n", m.Role, m.Content)
		}
	}
	// Output:
	// offered weather_forecast (needs approval: false)
	// user: Weather in Lisbon tomorrow?
	// assistant: calls weather_forecast {"city":"Lisbon"}
	// tool: Lisbon: sunny, 21°C
	// assistant: Sunny. Lisbon: sunny, 21°C
}
