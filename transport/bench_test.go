package transport_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/airlock-go/airlock/transport"
)

// benchStreamBytes is what each benchmarked exchange streams: a few MB, in
// flushed 32 KiB writes, as a fast provider would.
const benchStreamBytes = 4 << 20

func benchServer(b *testing.B) string {
	const event = "data: {\"choices\":[{\"delta\":{\"content\":\"token\"}}]}\n\n"
	chunk := []byte(strings.Repeat(event, 32<<10/len(event)+1)[:32<<10])
	srv := newServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for sent := 0; sent < benchStreamBytes; sent += len(chunk) {
			w.Write(chunk)
			w.(http.Flusher).Flush()
		}
	})
	return srv.URL
}

// doer is what both clients have in common, and what llmstream takes.
type doer interface {
	Do(*http.Request) (*http.Response, error)
}

func benchmarkDo(b *testing.B, c doer, url string) {
	buf := make([]byte, 32<<10)
	b.SetBytes(benchStreamBytes)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var n int
		for {
			k, err := resp.Body.Read(buf)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		resp.Body.Close()
		if n != benchStreamBytes {
			b.Fatalf("read %d bytes, want %d", n, benchStreamBytes)
		}
	}
}

// BenchmarkDo compares a Client, all limits on, with a plain http.Client on
// the same loopback stream, to show what the limit-enforcing body costs.
func BenchmarkDo(b *testing.B) {
	url := benchServer(b)
	b.Run("transport", func(b *testing.B) {
		var c *transport.Client = newClient(b)
		benchmarkDo(b, c, url)
	})
	b.Run("net-http", func(b *testing.B) {
		tr := &http.Transport{ForceAttemptHTTP2: true}
		b.Cleanup(tr.CloseIdleConnections)
		benchmarkDo(b, &http.Client{Transport: tr}, url)
	})
}
