package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/aws/smithy-go/auth/bearer"

	"github.com/airlock-go/airlock/llmstream"
)

// memDoer answers every request with the same ConverseStream body from
// memory: both pipelines build and send their request, then read the
// answer, with no network in between.
type memDoer struct{ data []byte }

func (d memDoer) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}},
		Body:          io.NopCloser(bytes.NewReader(d.data)),
		ContentLength: int64(len(d.data)), Request: r,
	}, nil
}

// converse is what a Bedrock pipeline assembled: the text and the calls.
type converse struct {
	text  string
	calls []call
}

type call struct{ id, name, args string }

const bedrockBenchModel = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

var bedrockPrompt = []llmstream.Message{{Role: "user", Content: "What is the weather in Paris?"}}

// airlockBedrock is the airlock pipeline: Client.Stream with DialectBedrock.
func airlockBedrock(data []byte) func() (converse, error) {
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectBedrock), llmstream.WithBaseURL("https://bedrock.invalid"),
		llmstream.WithAPIKey("bench-bedrock-key"), llmstream.WithModel(bedrockBenchModel), llmstream.WithHTTPClient(memDoer{data}))
	return func() (converse, error) {
		m, err := c.Stream(context.Background(), llmstream.Request{Messages: bedrockPrompt})
		if err != nil {
			return converse{}, err
		}
		out := converse{text: m.Content}
		for _, tc := range m.ToolCalls {
			out.calls = append(out.calls, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
		}
		return out, nil
	}
}

// sdkBedrock is aws-sdk-go-v2's pipeline: bedrockruntime's ConverseStream
// (a Bedrock API key as bearer token) and the accumulation its events
// leave to the caller: text by block, tool input fragments joined by
// block index.
func sdkBedrock(data []byte) func() (converse, error) {
	client := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("https://bedrock.invalid"),
		BearerAuthTokenProvider: bearer.StaticTokenProvider{Token: bearer.Token{Value: "bench-bedrock-key"}},
		HTTPClient:              memDoer{data}, RetryMaxAttempts: 1,
	})
	return func() (converse, error) {
		out, err := client.ConverseStream(context.Background(), &bedrockruntime.ConverseStreamInput{
			ModelId:  aws.String(bedrockBenchModel),
			Messages: []types.Message{{Role: types.ConversationRoleUser, Content: []types.ContentBlock{&types.ContentBlockMemberText{Value: bedrockPrompt[0].Content}}}},
		})
		if err != nil {
			return converse{}, err
		}
		stream := out.GetStream()
		defer stream.Close()
		var text strings.Builder
		type block struct {
			id, name string
			args     strings.Builder
		}
		blocks := map[int32]*block{}
		var order []int32
		for ev := range stream.Events() {
			switch v := ev.(type) {
			case *types.ConverseStreamOutputMemberContentBlockStart:
				if tu, ok := v.Value.Start.(*types.ContentBlockStartMemberToolUse); ok {
					i := aws.ToInt32(v.Value.ContentBlockIndex)
					blocks[i] = &block{id: aws.ToString(tu.Value.ToolUseId), name: aws.ToString(tu.Value.Name)}
					order = append(order, i)
				}
			case *types.ConverseStreamOutputMemberContentBlockDelta:
				switch d := v.Value.Delta.(type) {
				case *types.ContentBlockDeltaMemberText:
					text.WriteString(d.Value)
				case *types.ContentBlockDeltaMemberToolUse:
					if blk := blocks[aws.ToInt32(v.Value.ContentBlockIndex)]; blk != nil {
						blk.args.WriteString(aws.ToString(d.Value.Input))
					}
				}
			}
		}
		if err := stream.Err(); err != nil {
			return converse{}, err
		}
		res := converse{text: text.String()}
		for _, i := range order {
			res.calls = append(res.calls, call{blocks[i].id, blocks[i].name, blocks[i].args.String()})
		}
		return res, nil
	}
}

// BenchmarkBedrock streams one ConverseStream answer (n text deltas and a
// tool call) through each whole pipeline, request to assembled message:
// airlock's Client.Stream against aws-sdk-go-v2's ConverseStream plus its
// accumulation. Every iteration checks the text and the call.
func BenchmarkBedrock(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data, _ := converseFrames(n)
		events := n + 7
		want, err := airlockBedrock(data)()
		if err != nil || len(want.calls) != 1 {
			b.Fatalf("airlock: %+v, %v", want, err)
		}
		for _, peer := range []struct {
			name string
			mk   func([]byte) func() (converse, error)
		}{{"airlock", airlockBedrock}, {"aws-sdk-go-v2", sdkBedrock}} {
			b.Run(fmt.Sprintf("deltas=%d/peer=%s", n, peer.name), func(b *testing.B) {
				once := peer.mk(data)
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				iters := 0
				for b.Loop() {
					got, err := once()
					if err != nil || got.text != want.text || len(got.calls) != 1 || got.calls[0] != want.calls[0] {
						b.Fatalf("%s: %d bytes of text, calls %+v, %v", peer.name, len(got.text), got.calls, err)
					}
					iters++
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(iters)/float64(events), "allocs/event")
			})
		}
	}
}

// TestBedrockPeersAgree: both pipelines assemble the same text and call.
func TestBedrockPeersAgree(t *testing.T) {
	data, _ := converseFrames(50)
	a, err := airlockBedrock(data)()
	if err != nil {
		t.Fatal(err)
	}
	s, err := sdkBedrock(data)()
	if err != nil {
		t.Fatal(err)
	}
	if a.text != s.text || len(a.calls) != 1 || len(s.calls) != 1 || a.calls[0] != s.calls[0] || a.calls[0].args != `{"city":"Paris"}` {
		t.Errorf("airlock %+v\nsdk %+v", a, s)
	}
}
