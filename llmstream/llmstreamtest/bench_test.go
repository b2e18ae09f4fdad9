package llmstreamtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// benchTurn is a realistic agent turn: about 2 KiB of text and two calls
// with about 1 KiB of arguments each.
var benchTurn = Turn{
	Reasoning: strings.Repeat("Thinking about the files to read. ", 10),
	Text:      strings.Repeat("The module declares its path and Go version. ", 45),
	ToolCalls: []Call{
		{Name: "write_file", Arguments: `{"path":"main.go","content":"` + strings.Repeat(`package main\n\nfunc main() {}\n`, 35) + `"}`},
		{Name: "read_file", Arguments: `{"path":"` + strings.Repeat("dir/", 250) + `go.mod"}`},
	},
}

// BenchmarkRender measures turning a turn into chunk events, per flavour;
// bytes/s counts the SSE bytes produced.
func BenchmarkRender(b *testing.B) {
	for f := OpenAI; f < flavorEnd; f++ {
		b.Run(f.String(), func(b *testing.B) {
			cfg := newConfig([]Option{WithFlavor(f)})
			req := &Request{Seq: 1, Model: "m", StreamOptions: &StreamOptions{IncludeUsage: true}}
			evs, err := newRenderer(&cfg, chatWire{}, req, benchTurn).render()
			if err != nil {
				b.Fatal(err)
			}
			size := 0
			for _, e := range evs {
				size += len(e.data)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := newRenderer(&cfg, chatWire{}, req, benchTurn).render(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(evs)), "events/op")
		})
	}
}

// BenchmarkServe measures one whole streamed request over loopback HTTP,
// the server's cost plus the client's reading.
func BenchmarkServe(b *testing.B) {
	srv := NewServer(WithResponder(func(Request) Turn { return benchTurn }))
	defer srv.Close()
	post := func() int {
		resp, err := srv.Client().Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBodyUsage))
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d, %v", resp.StatusCode, err)
		}
		return int(n)
	}
	b.SetBytes(int64(post()))
	b.ReportAllocs()
	for b.Loop() {
		post()
	}
}
