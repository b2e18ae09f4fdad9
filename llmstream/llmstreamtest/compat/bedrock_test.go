package compat

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/auth/bearer"
	"github.com/google/go-cmp/cmp"
)

// bedrockTurn adds signed reasoning to the tool turn.
var bedrockTurn = func() llmstreamtest.Turn {
	t := toolTurn
	t.Reasoning = "Two files — read both."
	t.Signature = "c2lnbmF0dXJlLWZvci1jb21wYXQ="
	t.Usage = &llmstream.Usage{PromptTokens: 12, CompletionTokens: 34, TotalTokens: 46}
	return t
}()

// TestBedrockSDK: aws-sdk-go-v2's bedrockruntime ConverseStream client
// streams llmstreamtest's Bedrock wire (a Bedrock API key as its bearer
// token, the test server as its endpoint) and assembles the same message airlock does.
func TestBedrockSDK(t *testing.T) {
	// HTTPS: the SDK sends a bearer token over nothing else.
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTLS(), llmstreamtest.WithTurns(bedrockTurn, bedrockTurn))
	client := bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  aws.AnonymousCredentials{},
		// A Bedrock API key: the SDK sends it as a bearer token.
		BearerAuthTokenProvider: bearer.StaticTokenProvider{Token: bearer.Token{Value: "bedrock-api-key-test"}},
		HTTPClient:              srv.Client(),
		RetryMaxAttempts:        1,
	})
	schema := func(prop string) types.ToolInputSchema {
		return &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{
			"type": "object", "properties": map[string]any{prop: map[string]any{"type": "string"}}})}
	}
	out, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{
		ModelId:  aws.String("anthropic.claude-test-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "What is in go.mod?"}}}},
		ToolConfig: &types.ToolConfiguration{Tools: []types.Tool{
			&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("read_file"), InputSchema: schema("path")}},
			&types.ToolMemberToolSpec{Value: types.ToolSpecification{Name: aws.String("list_dir"), InputSchema: schema("dir")}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The SDK hands out events; accumulating them is the caller's work.
	stream := out.GetStream()
	var got result
	var reasoning, signature string
	var usage types.TokenUsage
	calls := map[int32]*call{}
	var order []int32
	for ev := range stream.Events() {
		switch v := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
				i := aws.ToInt32(v.Value.ContentBlockIndex)
				calls[i] = &call{ID: aws.ToString(tu.Value.ToolUseId), Name: aws.ToString(tu.Value.Name)}
				order = append(order, i)
			}
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			switch d := v.Value.Delta.(type) {
			case *types.ContentBlockDeltaMemberText:
				got.Content += d.Value
			case *types.ContentBlockDeltaMemberToolUse:
				calls[aws.ToInt32(v.Value.ContentBlockIndex)].Arguments += aws.ToString(d.Value.Input)
			case *types.ContentBlockDeltaMemberReasoningContent:
				switch r := d.Value.(type) {
				case *types.ReasoningContentBlockDeltaMemberText:
					reasoning += r.Value
				case *types.ReasoningContentBlockDeltaMemberSignature:
					signature += r.Value
				}
			}
		case *types.ConverseStreamOutputMemberMessageStop:
			got.Finish = string(v.Value.StopReason)
		case *types.ConverseStreamOutputMemberMetadata:
			usage = *v.Value.Usage
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	stream.Close()
	for _, i := range order {
		got.Calls = append(got.Calls, *calls[i])
	}
	wantSDK := want
	wantSDK.Finish = "tool_use"
	if diff := cmp.Diff(wantSDK, got, cmp.Comparer(jsonText)); diff != "" {
		t.Errorf("bedrockruntime assembled (-want +got):\n%s", diff)
	}
	if reasoning != bedrockTurn.Reasoning || signature != bedrockTurn.Signature || aws.ToInt32(usage.OutputTokens) != 34 {
		t.Errorf("reasoning %q, signature %q, usage %+v", reasoning, signature, usage)
	}
	r := srv.Requests()[0]
	if r.Err != nil || r.Method != http.MethodPost || r.Model != "anthropic.claude-test-v1:0" || len(r.Tools) != 2 || len(r.Messages) != 1 ||
		r.Header.Get("Authorization") != "Bearer bedrock-api-key-test" {
		t.Errorf("request: err %v, %s %s, model %q, %d tools, %d messages", r.Err, r.Method, r.Path, r.Model, len(r.Tools), len(r.Messages))
	}

	// airlock on the same wire assembles the same message.
	m, err := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL(srv.URL),
		llmstream.WithHTTPClient(srv.Client())).Stream(context.Background(), llmstream.Request{Model: "anthropic.claude-test-v1:0"})
	if err != nil {
		t.Fatal(err)
	}
	var mine result
	mine.Content, mine.Finish = m.Content, m.FinishReason
	for _, c := range m.ToolCalls {
		mine.Calls = append(mine.Calls, call{c.ID, c.Function.Name, c.Function.Arguments})
	}
	if diff := cmp.Diff(got, mine, cmp.Comparer(jsonText)); diff != "" || m.Reasoning != reasoning || m.Usage.CompletionTokens != 34 {
		t.Errorf("airlock and bedrockruntime differ (-sdk +airlock):\n%s", diff)
	}
	var raw struct {
		ReasoningText struct{ Text, Signature string } `json:"reasoningText"`
	}
	if m.Continuity == nil || json.Unmarshal(m.Continuity.Blocks[0].Raw, &raw) != nil || raw.ReasoningText.Signature != signature {
		t.Errorf("continuity %+v", m.Continuity)
	}
}
