package aisdk_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/llmstream/llmstreamtest"
	"github.com/airlock-go/airlock/sse"
	"github.com/google/go-cmp/cmp"
)

// TestErrorMidRun: a model stream that breaks off while a call's input is
// forming shows the call failed, then an error chunk and finish "error";
// the chat is saved and goes on with the next message.
func TestErrorMidRun(t *testing.T) {
	broken := func(req llmstreamtest.Request) llmstreamtest.Turn {
		if len(req.Messages) > 1 {
			return llmstreamtest.Turn{Text: "Back again."}
		}
		return llmstreamtest.Turn{Text: "Reading.", ToolCalls: []llmstreamtest.Call{{Name: "read", Arguments: `{"path":"a.txt","more":"` + strings.Repeat("x", 200) + `"}`}},
			Fault: llmstreamtest.Fault{Kind: llmstreamtest.FaultCut, After: 6}}
	}
	e := newEnv(t, []llmstreamtest.Option{llmstreamtest.WithResponder(broken)})
	code, chunks := e.post("c", []aisdk.UIMessage{userMessage("u1", "hi")})
	if code != http.StatusOK {
		t.Fatal(code)
	}
	types := compact(chunkTypes(t, chunks))
	want := []string{"start", "start-step", "text-start", "text-delta", "tool-input-start", "tool-input-delta", "text-end", "tool-input-error", "error", "finish-step", "finish", "[DONE]"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Fatalf("(-want +got):\n%s\n%s", diff, chunks)
	}
	var fin aisdk.Chunk
	_ = json.Unmarshal([]byte(chunks[len(chunks)-2]), &fin)
	if fin.FinishReason != "error" {
		t.Fatalf("finish %+v", fin)
	}
	ui := append(e.messages("c"), userMessage("u2", "again"))
	if code, chunks := e.post("c", ui); code != http.StatusOK {
		t.Fatalf("after the error: %d %v", code, chunks)
	}
	ui = e.messages("c")
	if last := ui[len(ui)-1].Parts; last[len(last)-1].Text != "Back again." {
		t.Fatalf("after the error: %+v", last)
	}
}

// TestKeepAlive: an idle stream gets keep-alive comments, which readers
// skip.
func TestKeepAlive(t *testing.T) {
	e := newEnv(t, nil, aisdk.WithKeepAlive(20*time.Millisecond))
	e.gate = make(chan struct{})
	b, _ := json.Marshal(map[string]any{"id": "k", "messages": []aisdk.UIMessage{userMessage("u1", "hi")}})
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(t, "the run to reach its tool", func() bool { return e.modelCalls() == 1 })
	time.Sleep(100 * time.Millisecond)
	close(e.gate)
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(raw.String(), "\n:\n"); n < 2 {
		t.Fatalf("%d keep-alive comments in an idle stream of 100 ms, every 20 ms", n)
	}
	r := sse.NewReader(&raw, sse.WithDoneSentinel(""))
	n := 0
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		n++
		if string(ev.Data) == "" {
			t.Fatal("a comment was read as an event")
		}
	}
	if n == 0 {
		t.Fatal("no events")
	}
}

// TestCloseEndsRuns: Close cancels a run going on; its stream ends with an
// error chunk and [DONE], the chat is saved, and later POSTs get 503.
func TestCloseEndsRuns(t *testing.T) {
	e := newEnv(t, nil)
	e.gate = make(chan struct{}) // never opened: only Close ends the run
	b, _ := json.Marshal(map[string]any{"id": "x", "messages": []aisdk.UIMessage{userMessage("u1", "hi")}})
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	waitFor(t, "the run to reach its tool", func() bool { return e.modelCalls() == 1 })
	e.h.Close()
	e.h.Close() // idempotent
	chunks := readChunks(t, resp)
	want := []string{"error", "finish-step", "finish", "[DONE]"}
	if got := chunkTypes(t, chunks); len(got) < 4 || !cmp.Equal(want, got[len(got)-4:]) {
		t.Fatalf("the stream of a closed run ends %q", chunks[max(0, len(chunks)-4):])
	}
	if code, _ := e.post("y", []aisdk.UIMessage{userMessage("u1", "hi")}); code != http.StatusServiceUnavailable {
		t.Fatalf("a POST after Close: %d", code)
	}
	if ui := e.messages("x"); len(ui) != 2 {
		t.Fatalf("the closed run's chat was not saved: %+v", ui)
	}
}

// TestClientGoneRunGoesOn: a client that goes away mid-run does not stop
// the run; the chat is saved whole.
func TestClientGoneRunGoesOn(t *testing.T) {
	e := newEnv(t, nil)
	e.gate = make(chan struct{})
	b, _ := json.Marshal(map[string]any{"id": "g", "messages": []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}})
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the run to reach its tool", func() bool { return e.modelCalls() == 1 })
	resp.Body.Close()
	close(e.gate)
	waitFor(t, "the chat saved", func() bool {
		ui := e.messages("g")
		return len(ui) == 2 && strings.Contains(ui[1].Parts[len(ui[1].Parts)-1].Type, "tool-write")
	})
}
