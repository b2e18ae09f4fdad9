package aisdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/llmstream"
	"github.com/airlock-go/airlock/sse"
)

// TestLoad opens loadStreams UI streams at once from one server on
// loopback, each run holding at its model call after streaming some text
// until all are open; it measures the memory they hold then (heap and
// stacks, server and client ends both, over what was in use before), lets
// them finish, and checks each stream ended properly. For the floor, it
// does the same with a bare SSE handler that holds each stream open after
// one event: the difference is what the adapter and the run add. It
// reports; it does not time.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("opens many connections")
	}
	gate := make(chan struct{})
	var open atomic.Int32
	model := agentloop.ModelFunc(func(ctx context.Context, r llmstream.Request) (llmstream.Message, error) {
		text := "The answer streams in pieces, "
		for _, w := range strings.Fields(text) {
			r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: w + " "})
		}
		open.Add(1)
		select {
		case <-gate:
		case <-ctx.Done():
			return llmstream.Message{}, ctx.Err()
		}
		r.OnDelta(llmstream.Delta{Kind: llmstream.DeltaText, Text: "done."})
		return llmstream.Message{Role: "assistant", Content: text + "done."}, nil
	})
	h := aisdk.NewHandler(agentloop.Loop{Model: model}, aisdk.WithMaxRuns(loadStreams))
	defer h.Close()
	perRun := holdStreams(t, h, &open, gate)

	floorGate := make(chan struct{})
	var floorOpen atomic.Int32
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		sse.SetHeaders(w.Header())
		sw := sse.NewWriter(w)
		_ = sw.WriteEvent(sse.Event{Data: []byte(`{"type":"start"}`)})
		floorOpen.Add(1)
		<-floorGate
		_ = sw.WriteEvent(sse.Event{Data: []byte(`{"type":"finish","finishReason":"stop"}`)})
		_ = sw.WriteEvent(sse.Event{Data: []byte("[DONE]")})
	})
	floor := holdStreams(t, bare, &floorOpen, floorGate)
	t.Logf("%d streams open at once: %d bytes each (heap in use + stacks, server and client ends, after GC); a bare SSE stream held the same way: %d bytes; the adapter and the run add %d",
		loadStreams, perRun, floor, perRun-floor)
}

// holdStreams serves h, opens loadStreams streams at once, waits until
// open counts them all, measures, then closes gate and checks every
// stream ended with finish and [DONE]. It returns the memory per stream.
func holdStreams(t *testing.T, h http.Handler, open *atomic.Int32, gate chan struct{}) int64 {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}

	before := heapAndStacks()
	var wg sync.WaitGroup
	results := make([]error, loadStreams)
	for i := range loadStreams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = oneStream(client, srv.URL, fmt.Sprintf("load-%d", i))
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for open.Load() < loadStreams && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := open.Load(); n < loadStreams {
		close(gate)
		wg.Wait()
		t.Fatalf("only %d of %d streams opened within a minute", n, loadStreams)
	}
	during := heapAndStacks()
	close(gate)
	wg.Wait()
	for i, err := range results {
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
	}
	return (during - before) / loadStreams
}

// oneStream posts one chat and checks its stream ends with finish and
// [DONE].
func oneStream(client *http.Client, url, id string) error {
	b, _ := json.Marshal(map[string]any{"id": id, "messages": []aisdk.UIMessage{userMessage("u", "hi")}})
	resp, err := client.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	s := buf.String()
	if !strings.HasSuffix(s, "data: {\"type\":\"finish\",\"finishReason\":\"stop\"}\n\ndata: [DONE]\n\n") {
		return fmt.Errorf("the stream ends %q", s[max(0, len(s)-120):])
	}
	return nil
}

// heapAndStacks is the memory in use after a collection: heap objects and
// goroutine stacks.
func heapAndStacks() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
