package compat

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	goopenai "github.com/sashabaranov/go-openai"
)

// call is a tool call as the test compares it.
type call struct{ ID, Name, Arguments string }

// result is what a peer client assembled from one stream.
type result struct {
	Content string
	Calls   []call
	Finish  string
}

// toolTurn is a tool-calling turn with text and two parallel calls whose
// arguments hold characters that must survive JSON escaping and the
// fragmenting at rune boundaries.
var toolTurn = llmstreamtest.Turn{
	Text: "Let me check — naïve <ok> & \"quoted\".",
	ToolCalls: []llmstreamtest.Call{
		{ID: "call_a", Name: "read_file", Arguments: `{"path":"go.mod","note":"é😀"}`},
		{ID: "call_b", Name: "list_dir", Arguments: `{"dir":"."}`},
	},
}

var want = result{
	Content: "Let me check — naïve <ok> & \"quoted\".",
	Calls: []call{
		{"call_a", "read_file", `{"path":"go.mod","note":"é😀"}`},
		{"call_b", "list_dir", `{"dir":"."}`},
	},
	Finish: "tool_calls",
}

// The flavours whose chunks carry tool-call indexes, which both peers
// need; Gemini's index-less calls are outside what they support.
var flavors = []llmstreamtest.Flavor{llmstreamtest.OpenAI, llmstreamtest.Azure, llmstreamtest.Ollama, llmstreamtest.VLLM, llmstreamtest.LlamaCpp}

func TestOpenAIGo(t *testing.T) {
	for _, flavor := range flavors {
		for _, interleave := range []bool{false, true} {
			t.Run(flavor.String()+map[bool]string{false: "", true: "/interleaved"}[interleave], func(t *testing.T) {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithFlavor(flavor),
					llmstreamtest.WithInterleavedCalls(interleave), llmstreamtest.WithTurns(toolTurn))
				got, err := streamOpenAIGo(srv)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("openai-go assembled (-want +got):\n%s", diff)
				}
				checkRequest(t, srv)
			})
		}
	}
}

func streamOpenAIGo(srv *llmstreamtest.Server) (result, error) {
	client := openaigo.NewClient(
		option.WithBaseURL(srv.URL+"/v1/"),
		option.WithAPIKey("sk-test"),
		option.WithHTTPClient(srv.Client()),
		option.WithMaxRetries(0),
	)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openaigo.ChatCompletionNewParams{
		Model:    "fake-model",
		Messages: []openaigo.ChatCompletionMessageParamUnion{openaigo.UserMessage("What is in go.mod?")},
		Tools: []openaigo.ChatCompletionToolUnionParam{
			openaigo.ChatCompletionFunctionTool(openaigo.FunctionDefinitionParam{Name: "read_file"}),
			openaigo.ChatCompletionFunctionTool(openaigo.FunctionDefinitionParam{Name: "list_dir"}),
		},
	})
	defer stream.Close()
	var acc openaigo.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return result{}, err
	}
	if len(acc.Choices) != 1 {
		return result{}, errors.New("openai-go accumulated no choice")
	}
	msg := acc.Choices[0].Message
	r := result{Content: msg.Content, Finish: acc.Choices[0].FinishReason}
	for _, tc := range msg.ToolCalls {
		r.Calls = append(r.Calls, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
	}
	return r, nil
}

func TestGoOpenAI(t *testing.T) {
	for _, flavor := range flavors {
		for _, interleave := range []bool{false, true} {
			t.Run(flavor.String()+map[bool]string{false: "", true: "/interleaved"}[interleave], func(t *testing.T) {
				srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithFlavor(flavor),
					llmstreamtest.WithInterleavedCalls(interleave), llmstreamtest.WithTurns(toolTurn))
				got, err := streamGoOpenAI(srv)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("go-openai assembled (-want +got):\n%s", diff)
				}
				checkRequest(t, srv)
			})
		}
	}
}

// streamGoOpenAI reads the stream with go-openai and assembles the calls
// by index by hand, as go-openai users must.
func streamGoOpenAI(srv *llmstreamtest.Server) (result, error) {
	cfg := goopenai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = srv.Client()
	client := goopenai.NewClientWithConfig(cfg)
	stream, err := client.CreateChatCompletionStream(context.Background(), goopenai.ChatCompletionRequest{
		Model:    "fake-model",
		Stream:   true,
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "What is in go.mod?"}},
		Tools: []goopenai.Tool{
			{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{Name: "read_file"}},
			{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{Name: "list_dir"}},
		},
	})
	if err != nil {
		return result{}, err
	}
	defer stream.Close()
	var r result
	var calls []call
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return result{}, err
		}
		for _, ch := range chunk.Choices {
			r.Content += ch.Delta.Content
			if ch.FinishReason != "" {
				r.Finish = string(ch.FinishReason)
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					return result{}, errors.New("a tool-call fragment without index")
				}
				for len(calls) <= *tc.Index {
					calls = append(calls, call{})
				}
				c := &calls[*tc.Index]
				if tc.ID != "" {
					c.ID = tc.ID
				}
				if tc.Function.Name != "" {
					c.Name = tc.Function.Name
				}
				c.Arguments += tc.Function.Arguments
			}
		}
	}
	r.Calls = calls
	return r, nil
}

// checkRequest checks what the peer sent, as the server recorded it.
func checkRequest(t *testing.T, srv *llmstreamtest.Server) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	got := []any{r.Err, r.Method, r.Path, r.Model, r.Stream, len(r.Messages), len(r.Tools), r.Header.Get("Authorization")}
	wantReq := []any{nil, http.MethodPost, "/v1/chat/completions", "fake-model", true, 1, 2, "Bearer sk-test"}
	if diff := cmp.Diff(wantReq, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("request [Err Method Path Model Stream messages tools Authorization] (-want +got):\n%s", diff)
	}
}
