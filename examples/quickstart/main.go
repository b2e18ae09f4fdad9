// Command quickstart streams one tool-calling conversation with a model:
// the text as it arrives, a tool the model may call, and the totals. It
// talks to OpenAI with OPENAI_API_KEY (or any OpenAI-compatible server with
// OPENAI_BASE_URL); its test runs it offline against llmstreamtest.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	client := llmstream.NewClient(
		llmstream.WithBaseURL(os.Getenv("OPENAI_BASE_URL")), // empty: https://api.openai.com/v1
		llmstream.WithAPIKey(os.Getenv("OPENAI_API_KEY")),
		llmstream.WithModel("gpt-4o-mini"),
	)
	utcTime := agentloop.Tool{
		Name:        "utc_time",
		Description: "the current UTC time",
		Run: func(context.Context, json.RawMessage) (string, error) {
			return time.Now().UTC().Format(time.RFC3339), nil
		},
	}
	temperature := 0.2
	loop := agentloop.Loop{
		Model:   client,
		Tools:   []agentloop.Tool{utcTime},
		Request: llmstream.Request{Temperature: &temperature},
		Hooks: agentloop.Hooks{OnDelta: func(d llmstream.Delta) {
			if d.Kind == llmstream.DeltaText {
				fmt.Fprint(out, d.Text) // the text as it streams; only whole calls ever run
			}
		}},
	}
	res, err := loop.Run(ctx, []llmstream.Message{{Role: "user", Content: "What time is it in UTC?"}})
	fmt.Fprintf(out, "\n%d turn%s, %d tool call%s, %d tokens\n", res.Turns, map[bool]string{true: "s"}[res.Turns != 1], res.ToolCalls, map[bool]string{true: "s"}[res.ToolCalls != 1], res.Usage.TotalTokens)
	return err
}
