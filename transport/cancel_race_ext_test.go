package transport_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
)

// TestConcurrentCancel: 2,000 requests, each cancelled by another goroutine
// while Do is starting its exchange, share no memory without a lock — run
// under -race, where a write made as the exchange starts and read by the
// cancellation once failed — and each ends with its body closed.
func TestConcurrentCancel(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	c := newClient(t)
	const n = 2000
	sem := make(chan struct{}, 64) // bounds the open connections, not the overlap of cancel and start
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithCancel(context.Background())
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			if err != nil {
				t.Error(err)
				cancel()
				return
			}
			go cancel() // unsynchronised with Do, as a caller's cancel is
			resp, err := c.Do(req)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
}
