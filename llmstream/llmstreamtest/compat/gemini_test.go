package compat

import (
	"context"
	"errors"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// geminiTurn is a tool-using turn with reasoning: its signatures must come
// back on the parts they came with.
var geminiTurn = llmstreamtest.Turn{
	Reasoning: "Two files; read both.",
	Text:      "Let me check — naïve <ok> & \"quoted\".",
	ToolCalls: []llmstreamtest.Call{
		{Name: "read_file", Arguments: `{"path":"go.mod","note":"é😀","opts":{"max":4096,"follow":true}}`},
		{ID: "fc_b", Name: "list_dir", Arguments: `{"dir":"."}`},
	},
	Usage: &llmstream.Usage{PromptTokens: 20, CompletionTokens: 12, ReasoningTokens: 5},
}

func newGenAI(t *testing.T, srv *llmstreamtest.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: "AIza-compat-test-key", Backend: genai.BackendGeminiAPI, HTTPClient: srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGenAI: google.golang.org/genai streams a tool-using turn from the
// Gemini wire, and its next request, with the model's content and the
// function responses, decodes back with the signatures in place.
func TestGenAI(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(geminiTurn, llmstreamtest.Turn{Text: "Done."}))
	client := newGenAI(t, srv)
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
		{Name: "read_file", Description: "reads a file", ParametersJsonSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
		{Name: "list_dir"},
	}}}}
	history := []*genai.Content{genai.NewContentFromText("What is in go.mod?", genai.RoleUser)}

	var text, thought string
	var calls []*genai.FunctionCall
	var parts []*genai.Part
	var finish genai.FinishReason
	var usage *genai.GenerateContentResponseUsageMetadata
	for resp, err := range client.Models.GenerateContentStream(t.Context(), "gemini-2.5-flash", history, config) {
		if err != nil {
			t.Fatal(err)
		}
		cand := resp.Candidates[0]
		for _, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				calls = append(calls, p.FunctionCall)
			case p.Thought:
				thought += p.Text
			default:
				text += p.Text
			}
			parts = append(parts, p)
		}
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
	}
	if text != geminiTurn.Text || thought != geminiTurn.Reasoning || finish != genai.FinishReasonStop {
		t.Errorf("text %q, thought %q, finish %q", text, thought, finish)
	}
	gotCalls := []map[string]any{}
	for _, c := range calls {
		gotCalls = append(gotCalls, map[string]any{"id": c.ID, "name": c.Name, "args": c.Args})
	}
	wantCalls := []map[string]any{
		{"id": "", "name": "read_file", "args": map[string]any{"path": "go.mod", "note": "é😀", "opts": map[string]any{"max": 4096.0, "follow": true}}},
		{"id": "fc_b", "name": "list_dir", "args": map[string]any{"dir": "."}},
	}
	if diff := cmp.Diff(wantCalls, gotCalls); diff != "" {
		t.Errorf("genai's calls (-want +got):\n%s", diff)
	}
	if usage == nil || usage.PromptTokenCount != 20 || usage.CandidatesTokenCount != 7 || usage.ThoughtsTokenCount != 5 {
		t.Errorf("usage %+v", usage)
	}

	// The next turn: the model's parts as genai holds them, then the answers.
	history = append(history, genai.NewContentFromParts(parts, genai.RoleModel), genai.NewContentFromParts([]*genai.Part{
		genai.NewPartFromFunctionResponse("read_file", map[string]any{"result": "module x"}),
		{FunctionResponse: &genai.FunctionResponse{ID: "fc_b", Name: "list_dir", Response: map[string]any{"output": []any{"a", "b"}}}},
	}, genai.RoleUser))
	resp, err := collect(client.Models.GenerateContentStream(t.Context(), "gemini-2.5-flash", history, config))
	if err != nil || resp != "Done." {
		t.Fatalf("second turn %q, %v", resp, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Err != nil || reqs[1].Err != nil || reqs[1].Model != "gemini-2.5-flash" || reqs[1].Header.Get("X-Goog-Api-Key") != "AIza-compat-test-key" {
		t.Fatalf("requests %+v", reqs)
	}
	if len(reqs[0].Tools) != 2 || reqs[0].Tools[0].Function.Name != "read_file" {
		t.Errorf("tools %+v", reqs[0].Tools)
	}
	msgs := reqs[1].Messages
	if len(msgs) != 4 || msgs[1].Role != "assistant" || msgs[1].Continuity == nil || len(msgs[1].ToolCalls) != 2 {
		t.Fatalf("messages %+v", msgs)
	}
	// The signatures genai kept (as bytes) came back as Gemini's strings.
	var sigs []string
	for _, b := range msgs[1].Continuity.Blocks {
		if b.Signature != "" {
			sigs = append(sigs, b.Type)
		}
	}
	if diff := cmp.Diff([]string{"thought", llmstream.BlockToolCall}, sigs); diff != "" {
		t.Errorf("signed blocks (-want +got):\n%s", diff)
	}
	if msgs[2].ToolCallID != msgs[1].ToolCalls[0].ID || msgs[2].Content != "module x" || msgs[3].ToolCallID != "fc_b" || msgs[3].Content != `{"output":["a","b"]}` {
		t.Errorf("answers %+v %+v", msgs[2], msgs[3])
	}
}

// TestGenAIStreamError: an in-stream error reaches genai as its APIError.
func TestGenAIStreamError(t *testing.T) {
	srv := llmstreamtest.NewTestServer(t, llmstreamtest.WithTurns(llmstreamtest.Turn{Text: "one two three",
		Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultErrorEvent, After: 1, Message: "The model is overloaded."}}))
	_, err := collect(newGenAI(t, srv).Models.GenerateContentStream(t.Context(), "gemini-2.5-flash", genai.Text("hi"), nil))
	var api genai.APIError
	if !errors.As(err, &api) || api.Code != 503 || api.Status != "UNAVAILABLE" || api.Message != "The model is overloaded." {
		t.Errorf("err = %v", err)
	}
}

// collect joins a stream's text; the first error ends it.
func collect(seq func(func(*genai.GenerateContentResponse, error) bool)) (string, error) {
	var text string
	for resp, err := range seq {
		if err != nil {
			return text, err
		}
		text += resp.Text()
	}
	return text, nil
}
