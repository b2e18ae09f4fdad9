package llmstream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/airlock-go/airlock/llmstream"
)

// repeatServer starts a stream with head, then sends the events of each
// round every every, until the client goes away.
func repeatServer(t *testing.T, head string, round func(n int) string, every time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, head)
		w.(http.Flusher).Flush()
		for n := 0; ; n++ {
			if every > 0 {
				select {
				case <-r.Context().Done():
					return
				case <-time.After(every):
				}
			} else if r.Context().Err() != nil {
				return
			}
			if _, err := fmt.Fprint(w, round(n)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestIdleTimeoutIgnoresEmptyEvents: an empty Anthropic text block or an
// empty Responses message item every 50 ms carries nothing, so a 300 ms
// idle timeout still ends the stream.
func TestIdleTimeoutIgnoresEmptyEvents(t *testing.T) {
	for _, tc := range []struct {
		d     llmstream.Dialect
		head  string
		round func(n int) string
	}{
		{llmstream.DialectAnthropic,
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1}}}\n\n",
			func(n int) string {
				return fmt.Sprintf("data: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":%[1]d}\n\n", n)
			}},
		{llmstream.DialectResponses, "",
			func(n int) string {
				return fmt.Sprintf("data: {\"type\":\"response.output_item.added\",\"output_index\":%d,\"item\":{\"type\":\"message\",\"id\":\"msg_%[1]d\",\"role\":\"assistant\",\"content\":[]}}\n\ndata: {\"type\":\"response.output_item.done\",\"output_index\":%[1]d,\"item\":{\"type\":\"message\",\"id\":\"msg_%[1]d\",\"role\":\"assistant\",\"content\":[]}}\n\n", n)
			}},
	} {
		t.Run(tc.d.String(), func(t *testing.T) {
			srv := repeatServer(t, tc.head, tc.round, 50*time.Millisecond)
			c := llmstream.NewClient(llmstream.WithDialect(tc.d), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()), llmstream.WithIdleTimeout(300*time.Millisecond))
			_, err := c.Stream(context.Background(), llmstream.Request{Model: "m"})
			if !errors.Is(err, llmstream.ErrIdleTimeout) {
				t.Fatalf("err = %v, want ErrIdleTimeout", err)
			}
		})
	}
}

// TestDeadlineOnHostileStream: a stream of events that each cost much to
// decode (many members, many blocks), sent as fast as the client reads,
// ends at the caller's deadline with context.DeadlineExceeded in the chain.
func TestDeadlineOnHostileStream(t *testing.T) {
	members := strings.Repeat(`"k":1,`, 20000)
	srv := repeatServer(t,
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1}}}\n\n",
		func(n int) string {
			return fmt.Sprintf("data: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"other\"}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":%[1]d,\"delta\":{%s\"type\":\"x\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":%[1]d}\n\n", n, members)
		}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	c := llmstream.NewClient(llmstream.WithDialect(llmstream.DialectAnthropic), llmstream.WithBaseURL(srv.URL), llmstream.WithHTTPClient(fastTransport()))
	_, err := c.Stream(ctx, llmstream.Request{Model: "m"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded in the chain", err)
	}
}
