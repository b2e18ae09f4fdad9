package main

import (
	"cmp"
	"os"

	"github.com/airlock-go/airlock/llmstream"
)

// The README's quickstart per provider: each returns the client that the
// program above runs its loop on (agentloop.Loop{Model: client, ...}).
// Keys come from the provider's own variable; TestProviders checks what
// each client talks to.

func openAIClient() *llmstream.Client {
	// readme:begin openai
	client := llmstream.NewClient( // the default dialect, DialectChat, at https://api.openai.com/v1
		llmstream.WithAPIKey(os.Getenv("OPENAI_API_KEY")),
		llmstream.WithModel("gpt-4o-mini"),
	)
	// readme:end
	return client
}

func anthropicClient() *llmstream.Client {
	// readme:begin anthropic
	client := llmstream.NewClient( // https://api.anthropic.com/v1
		llmstream.WithDialect(llmstream.DialectAnthropic),
		llmstream.WithAPIKey(os.Getenv("ANTHROPIC_API_KEY")),
		llmstream.WithModel("claude-sonnet-4-5"),
	)
	// readme:end
	return client
}

func geminiClient() *llmstream.Client {
	// readme:begin gemini
	client := llmstream.NewClient( // https://generativelanguage.googleapis.com/v1beta
		llmstream.WithDialect(llmstream.DialectGemini),
		llmstream.WithAPIKey(os.Getenv("GEMINI_API_KEY")),
		llmstream.WithModel("gemini-2.5-flash"), // required: Gemini's URL names the model
	)
	// readme:end
	return client
}

func bedrockClient() *llmstream.Client {
	// readme:begin bedrock
	region := cmp.Or(os.Getenv("AWS_REGION"), "us-east-1")
	client := llmstream.NewClient(
		llmstream.WithDialect(llmstream.DialectBedrock),
		llmstream.WithBaseURL(llmstream.BedrockBaseURL(region)),     // https://bedrock-runtime.{region}.amazonaws.com
		llmstream.WithAPIKey(os.Getenv("AWS_BEARER_TOKEN_BEDROCK")), // a Bedrock API key
		llmstream.WithModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
	)
	// readme:end
	return client
}

func vertexTokenClient() *llmstream.Client {
	// readme:begin vertex-token
	client := llmstream.NewClient( // https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/...
		llmstream.WithDialect(llmstream.DialectGemini), // or DialectAnthropic for Claude
		llmstream.WithVertex("my-project", "us-central1"),
		llmstream.WithAPIKey(os.Getenv("VERTEX_TOKEN")), // an OAuth token: $(gcloud auth print-access-token)
		llmstream.WithModel("gemini-2.5-flash"),
	)
	// readme:end
	return client
}
