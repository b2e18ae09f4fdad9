package aisdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
)

// ExampleHandler serves a loop to the AI SDK's chat UI and posts one chat
// as DefaultChatTransport would, printing the chunks' types.
func ExampleHandler() {
	model := llmstreamtest.NewServer(llmstreamtest.WithTurns(
		llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "clock", Arguments: `{}`}}},
		llmstreamtest.Turn{Text: "It is noon."},
	))
	defer model.Close()
	h := aisdk.NewHandler(agentloop.Loop{
		Model: llmstream.NewClient(model.ClientOptions()...),
		Tools: []agentloop.Tool{{Name: "clock", Description: "the time", Run: func(context.Context, json.RawMessage) (string, error) { return "12:00", nil }}},
	})
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/api/chat", h)
	mux.Handle("/api/chat/", h) // {chatID} and {chatID}/stream
	srv := httptest.NewServer(mux)
	defer srv.Close()

	body := `{"id":"chat1","trigger":"submit-message","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":"What time is it?"}]}]}`
	resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Header.Get("X-Vercel-Ai-Ui-Message-Stream"))
	r := sse.NewReader(resp.Body, sse.WithDoneSentinel(""))
	var types []string
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		t, _, _ := strings.Cut(strings.TrimPrefix(string(ev.Data), `{"type":"`), `"`)
		if n := len(types); n == 0 || types[n-1] != t {
			types = append(types, t)
		}
	}
	fmt.Println(strings.Join(types, " "))
	// Output:
	// v1
	// start start-step tool-input-start tool-input-delta tool-input-available tool-output-available finish-step start-step text-start text-delta text-end finish-step finish [DONE]
}
