package aisdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
)

// script is the test model: it reads a file, then asks to write two
// files, one call per turn, then sums up what it was told. Each turn is
// decided from the conversation, as a real model's would be.
func script(req llmstreamtest.Request) llmstreamtest.Turn {
	var answers []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			answers = append(answers, m.Content)
		}
	}
	switch len(answers) {
	case 0:
		return llmstreamtest.Turn{Reasoning: "The user wants a summary; read first.", Text: "Let me read a.txt.",
			ToolCalls: []llmstreamtest.Call{{Name: "read", Arguments: `{"path": "a.txt"}`}}}
	case 1:
		return llmstreamtest.Turn{Text: "Now I save notes.", ToolCalls: []llmstreamtest.Call{{Name: "write", Arguments: `{"path":"b.txt","content":"notes 1.0"}`}}}
	case 2:
		return llmstreamtest.Turn{ToolCalls: []llmstreamtest.Call{{Name: "write", Arguments: `{"path":"c.txt","content":"more"}`}}}
	}
	return llmstreamtest.Turn{Text: "Done: " + strings.Join(answers, " | ")}
}

// env is a chat server on loopback with the test model and tools.
type env struct {
	t      testing.TB
	model  *llmstreamtest.Server
	srv    *httptest.Server
	h      *aisdk.Handler
	url    string // the api URL
	writes atomic.Int32
	// gate, when not nil, holds the read tool until it is closed.
	gate chan struct{}
}

func newEnv(t testing.TB, modelOpts []llmstreamtest.Option, opts ...aisdk.Option) *env {
	t.Helper()
	e := &env{t: t}
	e.model = llmstreamtest.NewServer(append([]llmstreamtest.Option{llmstreamtest.WithResponder(script)}, modelOpts...)...)
	loop := agentloop.Loop{
		Model: llmstream.NewClient(e.model.ClientOptions()...),
		Tools: []agentloop.Tool{
			{Name: "read", Description: "read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
				Run: func(ctx context.Context, args json.RawMessage) (string, error) {
					if e.gate != nil {
						select {
						case <-e.gate:
						case <-ctx.Done():
							return "", ctx.Err()
						}
					}
					return "contents of a.txt", nil
				}},
			{Name: "write", Description: "write a file", NeedsApproval: true, Parameters: json.RawMessage(`{"type":"object"}`),
				Run: func(context.Context, json.RawMessage) (string, error) { e.writes.Add(1); return "written", nil }},
		},
	}
	e.h = aisdk.NewHandler(loop, opts...)
	mux := http.NewServeMux()
	mux.Handle("/api/chat", e.h)
	mux.Handle("/api/chat/", e.h)
	e.srv = httptest.NewServer(mux)
	e.url = e.srv.URL + "/api/chat"
	t.Cleanup(func() {
		e.srv.Close()
		e.h.Close()
		e.model.Close()
	})
	return e
}

// modelCalls is how many requests the model server got.
func (e *env) modelCalls() int { return len(e.model.Requests()) }

// userMessage is a new user message as the AI SDK posts it.
func userMessage(id, text string) aisdk.UIMessage {
	return aisdk.UIMessage{ID: id, Role: "user", Parts: []aisdk.UIPart{{Type: "text", Text: text}}}
}

// post posts a chat request and returns the status and, for a stream,
// its chunks (the raw data of each event, "[DONE]" included) .
func (e *env) post(chatID string, msgs []aisdk.UIMessage) (int, []string) {
	e.t.Helper()
	body, err := json.Marshal(map[string]any{"id": chatID, "messages": msgs, "trigger": "submit-message"})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.postRaw(body)
}

func (e *env) postRaw(body []byte) (int, []string) {
	e.t.Helper()
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readChunks(e.t, resp)
}

// readChunks reads a response's events; for a non-stream it returns the
// body as one string.
func readChunks(t testing.TB, resp *http.Response) []string {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return []string{string(b)}
	}
	if got := resp.Header.Get("X-Vercel-Ai-Ui-Message-Stream"); got != "v1" {
		t.Fatalf("x-vercel-ai-ui-message-stream = %q", got)
	}
	var out []string
	r := sse.NewReader(resp.Body, sse.WithDoneSentinel(""))
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		out = append(out, string(ev.Data))
	}
}

// resume GETs the chat's stream.
func (e *env) resume(chatID string) (int, []string) {
	e.t.Helper()
	resp, err := http.Get(e.url + "/" + chatID + "/stream")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, readChunks(e.t, resp)
}

// messages GETs the chat's UI messages as the server holds them.
func (e *env) messages(chatID string) []aisdk.UIMessage {
	e.t.Helper()
	resp, err := http.Get(e.url + "/" + chatID)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Messages []aisdk.UIMessage }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		e.t.Fatalf("messages of %s: %v", chatID, err)
	}
	return body.Messages
}

// chunkTypes lists the type of each chunk ("[DONE]" as is).
func chunkTypes(t testing.TB, chunks []string) []string {
	t.Helper()
	var out []string
	for _, c := range chunks {
		if c == "[DONE]" {
			out = append(out, c)
			continue
		}
		var ch aisdk.Chunk
		if err := json.Unmarshal([]byte(c), &ch); err != nil {
			t.Fatalf("chunk %q: %v", c, err)
		}
		out = append(out, ch.Type)
	}
	return out
}

// compact drops repeated delta types, so a sequence reads as its shape.
func compact(types []string) []string {
	var out []string
	for _, ty := range types {
		if len(out) > 0 && out[len(out)-1] == ty && strings.HasSuffix(ty, "-delta") {
			continue
		}
		out = append(out, ty)
	}
	return out
}

// approve answers every approval request of the last message: approved
// per call in order.
func approve(t testing.TB, msgs []aisdk.UIMessage, verdicts ...bool) []aisdk.UIMessage {
	t.Helper()
	last := &msgs[len(msgs)-1]
	n := 0
	for i := range last.Parts {
		p := &last.Parts[i]
		if p.State != "approval-requested" {
			continue
		}
		if n >= len(verdicts) {
			t.Fatalf("more approval requests than verdicts")
		}
		ok := verdicts[n]
		n++
		p.State = "approval-responded"
		p.Approval = &aisdk.Approval{ID: p.Approval.ID, Approved: &ok}
		if !ok {
			p.Approval.Reason = "not that file"
		}
	}
	if n != len(verdicts) {
		t.Fatalf("%d approval requests, %d verdicts", n, len(verdicts))
	}
	return msgs
}

// runToEnd runs the scripted chat to its end: approve the first write,
// deny the second. It returns the stream of each POST.
func (e *env) runToEnd(chatID string) [][]string {
	e.t.Helper()
	var streams [][]string
	msgs := []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}
	for i, verdict := range []bool{true, false} {
		code, chunks := e.post(chatID, msgs)
		if code != http.StatusOK {
			e.t.Fatalf("post %d: %d %v", i, code, chunks)
		}
		streams = append(streams, chunks)
		msgs = approve(e.t, e.messages(chatID), verdict)
	}
	code, chunks := e.post(chatID, msgs)
	if code != http.StatusOK {
		e.t.Fatalf("last post: %d %v", code, chunks)
	}
	return append(streams, chunks)
}

// waitFor polls cond for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
