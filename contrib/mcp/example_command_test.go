package mcp_test

import (
	"context"
	"log"
	"os"
	"os/exec"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-go/airlock/agentloop"
	mcp "github.com/airlock-go/airlock/contrib/mcp"
	"github.com/airlock-go/airlock/llmstream"
)

// A real server started over stdio — the reference filesystem server from
// npm — its tools offered beside your own to a Loop on a real model. It
// needs npx and a key, so it has no output to check; ExampleTools runs the
// same round offline, and the tests drive this server.
func ExampleTools_commandServer() {
	ctx := context.Background()
	dir := "."
	var ownTools []agentloop.Tool // your own tools, if any
	// readme:begin command
	mcpClient := sdk.NewClient(&sdk.Implementation{Name: "my-agent", Version: "v1"}, nil)
	session, err := mcpClient.Connect(ctx, &sdk.CommandTransport{
		Command: exec.Command("npx", "-y", "@modelcontextprotocol/server-filesystem", dir),
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close() // stops the server

	var taken []string
	for _, t := range ownTools {
		taken = append(taken, t.Name)
	}
	fsTools, err := mcp.Tools(ctx, session,
		mcp.WithPrefix("fs_"),        // fs_read_text_file, fs_list_directory, ...
		mcp.WithTakenNames(taken...), // a clash is an error, never a shadow
	)
	if err != nil {
		log.Fatal(err)
	}
	model := llmstream.NewClient(llmstream.WithAPIKey(os.Getenv("OPENAI_API_KEY")), llmstream.WithModel("gpt-4o-mini"))
	loop := agentloop.Loop{Model: model, Tools: append(ownTools, fsTools...)}
	res, err := loop.Run(ctx, []llmstream.Message{{Role: "user", Content: "What is in this directory?"}})
	// readme:end

	_, _ = res, err
}
