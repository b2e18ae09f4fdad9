package main

import (
	"context"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestProviders: each README quickstart makes a client of the right
// dialect, endpoint and model, with no bad option: a call on a cancelled
// context ends with the cancellation, before anything is sent.
func TestProviders(t *testing.T) {
	t.Setenv("AWS_REGION", "eu-west-3")
	for _, tc := range []struct {
		client *llmstream.Client
		want   string
	}{
		{openAIClient(), `llmstream.Client(chat https://api.openai.com/v1 model="gpt-4o-mini")`},
		{anthropicClient(), `llmstream.Client(anthropic https://api.anthropic.com/v1 model="claude-sonnet-4-5")`},
		{geminiClient(), `llmstream.Client(gemini https://generativelanguage.googleapis.com/v1beta model="gemini-2.5-flash")`},
		{bedrockClient(), `llmstream.Client(bedrock https://bedrock-runtime.eu-west-3.amazonaws.com model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")`},
		{vertexTokenClient(), `llmstream.Client(gemini https://us-central1-aiplatform.googleapis.com/v1 model="gemini-2.5-flash")`},
	} {
		if got := tc.client.String(); got != tc.want {
			t.Errorf("client %s, want %s", got, tc.want)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := tc.client.Stream(ctx, llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "hi"}}})
		if !errors.Is(err, context.Canceled) || errors.Is(err, llmstream.ErrInvalidOption) {
			t.Errorf("%s: %v, want context.Canceled", tc.want, err)
		}
	}
	t.Setenv("AWS_REGION", "")
	if got, want := bedrockClient().String(), `llmstream.Client(bedrock https://bedrock-runtime.us-east-1.amazonaws.com model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")`; got != want {
		t.Errorf("no AWS_REGION: client %s, want %s", got, want)
	}
}
