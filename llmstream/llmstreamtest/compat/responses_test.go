package compat

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	openaigo "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// responsesTurn is toolTurn with reasoning, which the Responses API sends
// as an item of its own before the message.
var responsesTurn = func() llmstreamtest.Turn {
	t := toolTurn
	t.Reasoning = "Two files; read them at once."
	return t
}()

// TestOpenAIGoResponses: openai-go's Responses streaming reads a tool-using
// turn from llmstreamtest on /v1/responses, and the calls it assembles —
// from the events by output_index, and from the completed response — are
// the script's, and airlock's own.
func TestOpenAIGoResponses(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		t.Run(map[bool]string{false: "sequential", true: "interleaved"}[interleave], func(t *testing.T) {
			srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithInterleavedCalls(interleave), llmstreamtest.WithTurns(responsesTurn, responsesTurn))
			streamed, final, reasoning, err := streamOpenAIGoResponses(srv)
			if err != nil {
				t.Fatal(err)
			}
			if reasoning != responsesTurn.Reasoning {
				t.Errorf("openai-go's reasoning summary %q, want %q", reasoning, responsesTurn.Reasoning)
			}
			want := result{Content: want.Content, Calls: want.Calls, Finish: "completed"}
			if diff := cmp.Diff(want, streamed); diff != "" {
				t.Errorf("openai-go, from the events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, final); diff != "" {
				t.Errorf("openai-go, from the completed response (-want +got):\n%s", diff)
			}

			c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectResponses), llmstream.WithBaseURL(srv.URL+"/v1"),
				llmstream.WithAPIKey("sk-test"), llmstream.WithModel("fake-model"), llmstream.WithHTTPClient(srv.Client()))
			m, err := c.Stream(context.Background(), llmstream.Request{Messages: []llmstream.Message{{Role: "user", Content: "What is in go.mod?"}}})
			if err != nil {
				t.Fatal(err)
			}
			ours := result{Content: m.Content, Finish: m.FinishReason}
			for _, tc := range m.ToolCalls {
				ours.Calls = append(ours.Calls, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
			}
			if diff := cmp.Diff(want, ours); diff != "" {
				t.Errorf("airlock (-want +got):\n%s", diff)
			}
			if m.Reasoning != responsesTurn.Reasoning || m.Continuity == nil || m.Continuity.Blocks[0].Type != "reasoning" {
				t.Errorf("airlock's reasoning %q, continuity %+v", m.Reasoning, m.Continuity)
			}

			reqs := srv.Requests()
			r := reqs[0]
			got := []any{r.Err, r.Method, r.Path, r.Dialect, r.Model, r.Stream, len(r.Messages), len(r.Tools), r.Header.Get("Authorization")}
			wantReq := []any{nil, http.MethodPost, "/v1/responses", llmstream.DialectResponses, "fake-model", true, 1, 2, "Bearer sk-test"}
			if diff := cmp.Diff(wantReq, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("openai-go's request [Err Method Path Dialect Model Stream messages tools Authorization] (-want +got):\n%s", diff)
			}
		})
	}
}

// streamOpenAIGoResponses streams with openai-go and assembles the calls
// two ways: from the events, keyed by output_index as the API documents,
// and from the output of the completed response; and the reasoning
// summary from its deltas, checked against the completed response's
// reasoning item (with its encrypted content).
func streamOpenAIGoResponses(srv *llmstreamtest.Server) (streamed, final result, reasoning string, err error) {
	client := openaigo.NewClient(
		option.WithBaseURL(srv.URL+"/v1/"),
		option.WithAPIKey("sk-test"),
		option.WithHTTPClient(srv.Client()),
		option.WithMaxRetries(0),
	)
	tool := func(name string) responses.ToolUnionParam {
		return responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name: name, Strict: openaigo.Bool(false), Parameters: map[string]any{"type": "object", "properties": map[string]any{}},
		}}
	}
	stream := client.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{
		Model: "fake-model",
		Input: responses.ResponseNewParamsInputUnion{OfString: openaigo.String("What is in go.mod?")},
		Tools: []responses.ToolUnionParam{tool("read_file"), tool("list_dir")},
	})
	defer stream.Close()
	type building struct {
		id, name string
		args     strings.Builder
		done     string
	}
	calls := map[int64]*building{}
	var text, summary strings.Builder
	var completed *responses.Response
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				calls[ev.OutputIndex] = &building{id: ev.Item.CallID, name: ev.Item.Name}
			}
		case "response.function_call_arguments.delta":
			c, ok := calls[ev.OutputIndex]
			if !ok {
				return result{}, result{}, "", errors.New("arguments for an item never added")
			}
			c.args.WriteString(ev.Delta)
		case "response.function_call_arguments.done":
			calls[ev.OutputIndex].done = ev.Arguments
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.reasoning_summary_text.delta":
			summary.WriteString(ev.Delta)
		case "response.completed":
			r := ev.Response
			completed = &r
		case "error", "response.failed":
			return result{}, result{}, "", errors.New("the stream failed: " + ev.Message)
		}
	}
	if err := stream.Err(); err != nil {
		return result{}, result{}, "", err
	}
	if completed == nil {
		return result{}, result{}, "", errors.New("no response.completed")
	}
	streamed = result{Content: text.String(), Finish: string(completed.Status)}
	indexes := make([]int64, 0, len(calls))
	for i := range calls {
		indexes = append(indexes, i)
	}
	sort.Slice(indexes, func(a, b int) bool { return indexes[a] < indexes[b] })
	for _, i := range indexes {
		c := calls[i]
		if c.done != c.args.String() {
			return result{}, result{}, "", errors.New("the deltas and function_call_arguments.done differ")
		}
		streamed.Calls = append(streamed.Calls, call{c.id, c.name, c.done})
	}
	final = result{Content: completed.OutputText(), Finish: string(completed.Status)}
	for _, item := range completed.Output {
		switch item.Type {
		case "function_call":
			final.Calls = append(final.Calls, call{item.CallID, item.Name, item.Arguments.OfString})
		case "reasoning":
			if len(item.Summary) != 1 || item.Summary[0].Text != summary.String() || item.EncryptedContent == "" {
				return result{}, result{}, "", errors.New("the completed reasoning item differs from the deltas or has no encrypted content")
			}
		}
	}
	return streamed, final, summary.String(), nil
}
