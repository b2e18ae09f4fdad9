package compat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/auth/bearer"
	"github.com/google/go-cmp/cmp"
	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"
)

// release is the typed answer every dialect's structured-output test asks
// for: nested objects, an array, a number, an optional member and text
// that must survive JSON escaping and fragmenting at rune boundaries.
type release struct {
	Version string        `json:"version"`
	Notes   []releaseNote `json:"notes"`
	Score   float64       `json:"score"`
	Owner   *string       `json:"owner"`
}

type releaseNote struct {
	Title    string `json:"title"`
	Breaking bool   `json:"breaking"`
}

const releaseAnswer = `{"version":"v1.2.0","notes":[{"title":"naïve <ok> & \"quoted\" é😀","breaking":true},{"title":"docs","breaking":false}],"score":0.5,"owner":"rel-eng"}`

var wantRelease = func() release {
	owner := "rel-eng"
	return release{Version: "v1.2.0", Score: 0.5, Notes: []releaseNote{{`naïve <ok> & "quoted" é😀`, true}, {"docs", false}}, Owner: &owner}
}()

// peerRead is what a peer SDK assembled from one structured-output turn.
type peerRead struct {
	Text    string // the answer's text (with Anthropic, a refusal's too)
	Refusal string // the refusal, where the SDK has a place for one
	Stop    string // the finish or stop reason, or the response's status
	Deltas  int    // how many text deltas the text came in
}

// peerOutput sends one peer SDK's structured-output request (llmstreamtest
// answers it first, then airlock's own client) and reads the answer.
type peerOutput func(t *testing.T, srv *llmstreamtest.Server, out *llmstream.OutputSchema) peerRead

var peers = []struct {
	dialect llmstream.Dialect
	model   string
	tls     bool
	peer    peerOutput
	stop    string    // the stop of an answer
	refusal *peerRead // a refusal as the SDK reads it; nil where the provider does not mark one
}{
	{llmstream.DialectChat, "fake-model", false, chatOutput, "stop", &peerRead{Refusal: outputRefusal, Stop: "stop"}},
	{llmstream.DialectResponses, "fake-model", false, responsesOutput, "completed", &peerRead{Refusal: outputRefusal, Stop: "completed"}},
	{llmstream.DialectAnthropic, "claude-test", false, anthropicOutput, "end_turn", &peerRead{Text: outputRefusal, Stop: "refusal"}},
	{llmstream.DialectGemini, "gemini-2.5-flash", false, geminiOutput, "STOP", nil},
	{llmstream.DialectBedrock, "anthropic.claude-test-v1:0", true, bedrockOutput, "end_turn", nil},
}

// peerServer serves turn twice: to the SDK, then to airlock's client.
func peerServer(t *testing.T, tls bool, turn llmstreamtest.Turn) *llmstreamtest.Server {
	opts := []llmstreamtest.Option{llmstreamtest.WithTurns(turn, turn)}
	if tls {
		opts = append(opts, llmstreamtest.WithTLS())
	}
	return llmstreamtest.NewTestServer(t, opts...)
}

// airlockOutput streams the server's next turn with airlock's own client
// asking for out, and checks both requests were recorded with an Output.
func airlockOutput(t *testing.T, srv *llmstreamtest.Server, d llmstream.Dialect, model string, out *llmstream.OutputSchema) (llmstream.Message, []llmstreamtest.Request) {
	t.Helper()
	c := llmstream.NewClient(llmstream.WithDialect(d), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(srv.Client()),
		llmstream.WithAPIKey("k"), llmstream.WithModel(model))
	m, err := c.Stream(t.Context(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "Release notes?"}}, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Err != nil || reqs[1].Err != nil || reqs[0].Output == nil || reqs[1].Output == nil {
		t.Fatalf("requests %+v", reqs)
	}
	return m, reqs
}

// TestOutputPeerSDKs: each provider's own Go SDK asks for structured output
// with its own native parameter, and (a) llmstreamtest records the same
// Request.Output as for airlock's client asking for the same schema — so the
// SDK and airlock put the schema in the same place — and (b) the answer the
// SDK assembled from llmstreamtest's stream decodes into the same typed value
// as airlock's DecodeOutput of its own client's message for the same turn.
func TestOutputPeerSDKs(t *testing.T) {
	out, err := llmstream.OutputSchemaFor[release]("release")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range peers {
		t.Run(tc.dialect.String(), func(t *testing.T) {
			srv := peerServer(t, tc.tls, llmstreamtest.Turn{Text: releaseAnswer})
			read := tc.peer(t, srv, out)
			text := read.Text
			if read.Deltas < 2 || read.Refusal != "" || read.Stop != tc.stop {
				t.Errorf("the SDK read the answer in %d deltas, refusal %q, stop %q", read.Deltas, read.Refusal, read.Stop)
			}
			m, reqs := airlockOutput(t, srv, tc.dialect, tc.model, out)
			sdk, mine := reqs[0].Output, reqs[1].Output
			if sdk.Name != mine.Name || sdk.Strict != mine.Strict || sdk.AsTool || mine.AsTool || !jsonText(string(sdk.Schema), string(mine.Schema)) || !jsonText(string(mine.Schema), string(out.Schema)) {
				t.Errorf("recorded output: SDK's name %q strict %v as tool %v schema %s; airlock's name %q strict %v as tool %v schema %s",
					sdk.Name, sdk.Strict, sdk.AsTool, sdk.Schema, mine.Name, mine.Strict, mine.AsTool, mine.Schema)
			}

			mineT, err := llmstream.DecodeOutput[release](m)
			if err != nil {
				t.Fatal(err)
			}
			if text != m.Content {
				t.Errorf("the SDK read %q, airlock %q", text, m.Content)
			}
			var sdkT release
			dec := json.NewDecoder(strings.NewReader(text))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&sdkT); err != nil {
				t.Fatalf("the SDK's answer %q: %v", text, err)
			}
			if diff := cmp.Diff(mineT, sdkT); diff != "" {
				t.Errorf("typed answer (-airlock +SDK):\n%s", diff)
			}
			if diff := cmp.Diff(wantRelease, mineT); diff != "" {
				t.Errorf("airlock's typed answer (-want +got):\n%s", diff)
			}
		})
	}
}

// schemaMap is out's schema as the SDKs that take a map want it.
func schemaMap(t *testing.T, out *llmstream.OutputSchema) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out.Schema, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func openAIGo(srv *llmstreamtest.Server) openaigo.Client {
	return openaigo.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("sk-test"),
		option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
}

// chatOutput: openai-go's response_format json_schema, read through its
// ChatCompletionAccumulator.
func chatOutput(t *testing.T, srv *llmstreamtest.Server, out *llmstream.OutputSchema) peerRead {
	client := openAIGo(srv)
	stream := client.Chat.Completions.NewStreaming(t.Context(), openaigo.ChatCompletionNewParams{
		Model:    "fake-model",
		Messages: []openaigo.ChatCompletionMessageParamUnion{openaigo.UserMessage("Release notes?")},
		ResponseFormat: openaigo.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: out.Name, Schema: out.Schema, Strict: openaigo.Bool(out.Strict)},
		}},
	})
	defer stream.Close()
	var acc openaigo.ChatCompletionAccumulator
	deltas := 0
	for stream.Next() {
		chunk := stream.Current()
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			deltas++
		}
		acc.AddChunk(chunk)
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("openai-go accumulated %+v", acc.Choices)
	}
	msg := acc.Choices[0].Message
	return peerRead{Text: msg.Content, Refusal: msg.Refusal, Stop: acc.Choices[0].FinishReason, Deltas: deltas}
}

// responsesOutput: openai-go's Responses text.format json_schema; the text
// deltas must agree with the completed response's output text.
func responsesOutput(t *testing.T, srv *llmstreamtest.Server, out *llmstream.OutputSchema) peerRead {
	client := openAIGo(srv)
	stream := client.Responses.NewStreaming(t.Context(), responses.ResponseNewParams{
		Model: "fake-model",
		Input: responses.ResponseNewParamsInputUnion{OfString: openaigo.String("Release notes?")},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: out.Name, Schema: schemaMap(t, out), Strict: openaigo.Bool(out.Strict)},
		}},
	})
	defer stream.Close()
	var deltas strings.Builder
	n := 0
	var completed *responses.Response
	for stream.Next() {
		switch ev := stream.Current(); ev.Type {
		case "response.output_text.delta":
			deltas.WriteString(ev.Delta)
			n++
		case "response.completed":
			r := ev.Response
			completed = &r
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if completed == nil || completed.OutputText() != deltas.String() {
		t.Fatalf("openai-go: deltas %q, completed %+v", deltas.String(), completed)
	}
	var refusal string
	for _, item := range completed.Output {
		for _, c := range item.Content {
			if c.Type == "refusal" {
				refusal += c.Refusal
			}
		}
	}
	return peerRead{Text: completed.OutputText(), Refusal: refusal, Stop: string(completed.Status), Deltas: n}
}

// anthropicOutput: anthropic-sdk-go's output_config.format, read through
// Message.Accumulate.
func anthropicOutput(t *testing.T, srv *llmstreamtest.Server, out *llmstream.OutputSchema) peerRead {
	client := anthropic.NewClient(anthropicoption.WithBaseURL(srv.URL+"/"), anthropicoption.WithAPIKey("sk-ant-test"),
		anthropicoption.WithHTTPClient(srv.Client()), anthropicoption.WithMaxRetries(0))
	stream := client.Messages.NewStreaming(t.Context(), anthropic.MessageNewParams{
		Model:        "claude-test",
		MaxTokens:    1024,
		Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Release notes?"))},
		OutputConfig: anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: schemaMap(t, out)}},
	})
	msg := anthropic.Message{}
	deltas := 0
	for stream.Next() {
		ev := stream.Current()
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			deltas++
		}
		if err := msg.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	var text string
	for _, b := range msg.Content {
		if b.Type != "text" {
			t.Fatalf("block %q in a structured answer", b.Type)
		}
		text += b.Text
	}
	return peerRead{Text: text, Stop: string(msg.StopReason), Deltas: deltas}
}

// geminiOutput: genai's ResponseMIMEType and ResponseJsonSchema, the text of
// the streamed parts.
func geminiOutput(t *testing.T, srv *llmstreamtest.Server, out *llmstream.OutputSchema) peerRead {
	config := &genai.GenerateContentConfig{ResponseMIMEType: "application/json", ResponseJsonSchema: out.Schema}
	var text string
	deltas := 0
	var finish genai.FinishReason
	for resp, err := range newGenAI(t, srv).Models.GenerateContentStream(t.Context(), "gemini-2.5-flash", genai.Text("Release notes?"), config) {
		if err != nil {
			t.Fatal(err)
		}
		cand := resp.Candidates[0]
		for _, p := range cand.Content.Parts {
			if p.Thought || p.FunctionCall != nil {
				t.Fatalf("part %+v in a structured answer", p)
			}
			text += p.Text
			deltas++
		}
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
	}
	return peerRead{Text: text, Stop: string(finish), Deltas: deltas}
}

// bedrockOutput: bedrockruntime's OutputConfig.TextFormat, the text of the
// ConverseStream deltas.
func bedrockOutput(t *testing.T, srv *llmstreamtest.Server, out *llmstream.OutputSchema) peerRead {
	client := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), Credentials: aws.AnonymousCredentials{},
		BearerAuthTokenProvider: bearer.StaticTokenProvider{Token: bearer.Token{Value: "bedrock-api-key-test"}},
		HTTPClient:              srv.Client(), RetryMaxAttempts: 1,
	})
	resp, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{
		ModelId:  aws.String("anthropic.claude-test-v1:0"),
		Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: "Release notes?"}}}},
		OutputConfig: &types.OutputConfig{TextFormat: &types.OutputFormat{
			Type:      types.OutputFormatTypeJsonSchema,
			Structure: &types.OutputFormatStructureMemberJsonSchema{Value: types.JsonSchemaDefinition{Name: aws.String(out.Name), Schema: aws.String(string(out.Schema))}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	stream := resp.GetStream()
	defer stream.Close()
	var text bytes.Buffer
	deltas := 0
	var stop types.StopReason
	for ev := range stream.Events() {
		switch v := ev.(type) {
		case *types.ConverseStreamOutputMemberContentBlockDelta:
			d, ok := v.Value.Delta.(*types.ContentBlockDeltaMemberText)
			if !ok {
				t.Fatalf("delta %T in a structured answer", v.Value.Delta)
			}
			text.WriteString(d.Value)
			deltas++
		case *types.ConverseStreamOutputMemberMessageStop:
			stop = v.Value.StopReason
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(errors.Join(errors.New("bedrockruntime"), err))
	}
	return peerRead{Text: text.String(), Stop: string(stop), Deltas: deltas}
}

// outputRefusal is the refusal TestOutputPeerSDKsRefusal serves.
const outputRefusal = "I can't help with that — sorry."

// TestOutputPeerSDKsRefusal: where the provider marks a refusal of a
// structured-output request (chat's "refusal" deltas, Responses' refusal
// content, Anthropic's stop_reason "refusal"), the SDK reads a refusal, not
// an answer, and airlock's DecodeOutput reports the refusal as one rather
// than as an answer that does not decode. Gemini and Bedrock have no such
// mark: a refusal there is text that does not decode.
func TestOutputPeerSDKsRefusal(t *testing.T) {
	out, err := llmstream.OutputSchemaFor[release]("release")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range peers {
		if tc.refusal == nil {
			continue
		}
		t.Run(tc.dialect.String(), func(t *testing.T) {
			srv := peerServer(t, tc.tls, llmstreamtest.Turn{Refusal: outputRefusal})
			read := tc.peer(t, srv, out)
			read.Deltas = 0
			if diff := cmp.Diff(*tc.refusal, read); diff != "" {
				t.Errorf("the SDK read (-want +got):\n%s", diff)
			}
			m, _ := airlockOutput(t, srv, tc.dialect, tc.model, out)
			_, err := llmstream.DecodeOutput[release](m)
			if !errors.Is(err, llmstream.ErrInvalidOutput) || !strings.Contains(err.Error(), "the model refused: "+outputRefusal) {
				t.Errorf("DecodeOutput of %+v: %v", m, err)
			}
		})
	}
}
