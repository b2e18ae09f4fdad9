package aisdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/airlock-go/airlock/contrib/aisdk"
	"github.com/airlock-go/airlock/sse"
	"github.com/google/go-cmp/cmp"
)

// heldStore is a MemoryStore whose End waits for release: a run's stream
// stays live, every chunk but [DONE] written, until the test lets it end.
type heldStore struct {
	*aisdk.MemoryStore
	release chan struct{}
}

func (s *heldStore) End(ctx context.Context, chatID string) error {
	<-s.release
	return s.MemoryStore.End(ctx, chatID)
}

// TestResumeAtEveryChunk cuts the first stream of a chat after each of its
// chunks, then resumes it as resumeStream does: the resumed stream is the
// whole run, beginning with what the cut client already had.
func TestResumeAtEveryChunk(t *testing.T) {
	e := newEnv(t, nil)
	_, whole := e.post("ref", []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")})
	wantTypes := chunkTypes(t, whole)

	for k := range len(whole) {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			store := &heldStore{aisdk.NewMemoryStore(0, 0), make(chan struct{})}
			e := newEnv(t, nil, aisdk.WithStore(store))
			b, _ := json.Marshal(map[string]any{"id": "c", "messages": []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")}})
			resp, err := http.Post(e.url, "application/json", bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			r := sse.NewReader(resp.Body, sse.WithDoneSentinel(""))
			before := []string{}
			for range k {
				ev, err := r.Next()
				if err != nil {
					t.Fatalf("chunk %d: %v", len(before), err)
				}
				before = append(before, string(ev.Data))
			}
			resp.Body.Close() // the cut

			again, err := http.Get(e.url + "/c/stream")
			if err != nil {
				t.Fatal(err)
			}
			defer again.Body.Close()
			if again.StatusCode != http.StatusOK {
				t.Fatalf("resume: %d", again.StatusCode)
			}
			close(store.release)
			after := readChunks(t, again)
			if diff := cmp.Diff(before, after[:k]); diff != "" {
				t.Fatalf("the resumed stream does not begin with what the client had (-had +resumed):\n%s", diff)
			}
			if diff := cmp.Diff(wantTypes, chunkTypes(t, after)); diff != "" {
				t.Fatalf("the resumed stream is not the whole run (-whole +resumed):\n%s", diff)
			}
			// Once the run ended, nothing is left to resume.
			if code, _ := e.resume("c"); code != http.StatusNoContent {
				t.Fatalf("resume after the end: %d", code)
			}
		})
	}
}

// TestStreamBound: a stream past the store's bound ends with an error
// chunk and [DONE], for the live client and a resuming one, and the chat
// is saved whole all the same.
func TestStreamBound(t *testing.T) {
	for _, max := range []int{1, 200, 400} {
		t.Run(strconv.Itoa(max), func(t *testing.T) {
			e := newEnv(t, nil, aisdk.WithStore(aisdk.NewMemoryStore(0, max)))
			code, chunks := e.post("c", []aisdk.UIMessage{userMessage("u1", "Summarise a.txt")})
			if code != http.StatusOK {
				t.Fatal(code)
			}
			n := len(chunks)
			size := 0
			for _, c := range chunks[:n-2] {
				size += len(c)
			}
			if size > max {
				t.Fatalf("%d bytes of chunks kept, bound %d", size, max)
			}
			var last aisdk.Chunk
			_ = json.Unmarshal([]byte(chunks[n-2]), &last)
			if last.Type != "error" || chunks[n-1] != "[DONE]" {
				t.Fatalf("the cut stream ends %q %q", chunks[n-2], chunks[n-1])
			}
			// The run goes on past the cut, and saves the chat whole.
			waitFor(t, "the chat saved", func() bool { return len(e.messages("c")) == 2 })
		})
	}
}

// TestMemoryStoreBounds: the edges of the stream bound, and the chat
// bound forgetting the chat saved longest ago.
func TestMemoryStoreBounds(t *testing.T) {
	ctx := context.Background()
	s := aisdk.NewMemoryStore(2, 10)
	_ = s.Begin(ctx, "a")
	if err := s.Append(ctx, "a", make([]byte, 9)); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "a", make([]byte, 1)); err != nil {
		t.Fatalf("at the bound: %v", err)
	}
	if err := s.Append(ctx, "a", make([]byte, 1)); err != aisdk.ErrStreamTooLarge {
		t.Fatalf("one above: %v", err)
	}
	r, err := s.Read(ctx, "a", 0)
	if err != nil || !r.Done || !r.Cut || len(r.Chunks) != 2 {
		t.Fatalf("read after the cut: %+v %v", r, err)
	}
	for _, id := range []string{"x", "y", "z"} {
		_ = s.Save(ctx, id, aisdk.Chat{})
	}
	if _, err := s.Load(ctx, "x"); err != aisdk.ErrChatNotFound {
		t.Fatalf("the oldest chat was kept past the bound: %v", err)
	}
	for _, id := range []string{"y", "z"} {
		if _, err := s.Load(ctx, id); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if _, err := s.Read(ctx, "none", 0); err != aisdk.ErrNoStream {
		t.Fatalf("read of no stream: %v", err)
	}
}
