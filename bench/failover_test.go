package bench

import (
	"context"
	"net/http"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// failoverCase is a corpus served by an in-memory client, bare or inside
// a one-model Failover, with or without a delta callback.
type failoverCase struct {
	model   llmstream.Streamer
	onDelta func(llmstream.Delta) error
}

func newMemClient(c *Corpus) *llmstream.Client {
	d, err := llmstream.ParseDialect(c.Dialect)
	if err != nil {
		panic(err)
	}
	return llmstream.NewClient(llmstream.WithDialect(d), llmstream.WithBaseURL("http://bench.invalid"), llmstream.WithAPIKey("bench-key"),
		llmstream.WithModel("bench-model"), llmstream.WithHTTPClient(&http.Client{Transport: MemTransport{Data: c.Data}}))
}

// failoverCases are the four ways to call one corpus.
func failoverCases(c *Corpus) map[string]failoverCase {
	bare := newMemClient(c)
	f := &llmstream.Failover{Models: []llmstream.Streamer{bare}}
	count := func(llmstream.Delta) error { return nil }
	return map[string]failoverCase{
		"client":           {bare, nil},
		"failover":         {f, nil},
		"client+ondelta":   {bare, count},
		"failover+ondelta": {f, count},
	}
}

func (fc failoverCase) once(c *Corpus) error {
	m, err := fc.model.Stream(context.Background(), llmstream.Request{
		Messages: []llmstream.Message{{Role: "user", Content: "bench"}}, OnDelta: fc.onDelta})
	if err != nil {
		return err
	}
	got, err := fromAirlock(m)
	if err != nil {
		return err
	}
	return CheckMessage(c, got)
}

// BenchmarkFailover: a healthy stream through a one-model Failover beside
// the bare client, with and without a delta callback, every dialect's
// corpora. The Failover's happy path adds no allocation per event, and
// at most one per stream (TestFailoverHappyPathAllocs holds it to that).
func BenchmarkFailover(b *testing.B) {
	for _, d := range Dialects {
		for _, c := range d.Corpora() {
			for _, name := range []string{"client", "failover", "client+ondelta", "failover+ondelta"} {
				fc := failoverCases(c)[name]
				b.Run("dialect="+d.Name+"/corpus="+c.Name+"/via="+name, func(b *testing.B) {
					measure(b, c, func() error { return fc.once(c) })
				})
			}
		}
	}
}

// TestFailoverHappyPathAllocs holds the Failover's happy path to its
// promise: at most one allocation per stream over the bare client, so
// none per event, on every corpus, with and without a callback.
func TestFailoverHappyPathAllocs(t *testing.T) {
	for _, d := range Dialects {
		for _, c := range d.Corpora() {
			cases := failoverCases(c)
			allocs := map[string]float64{}
			for name, fc := range cases {
				if err := fc.once(c); err != nil {
					t.Fatalf("%s via %s: %v", c.Name, name, err)
				}
				allocs[name] = testing.AllocsPerRun(20, func() { _ = fc.once(c) })
			}
			for _, cb := range []string{"", "+ondelta"} {
				if extra := allocs["failover"+cb] - allocs["client"+cb]; extra > 1 {
					t.Errorf("%s%s: the Failover costs %.1f allocations more than the bare client (%.1f), want at most 1",
						c.Name, cb, extra, allocs["client"+cb])
				}
			}
		}
	}
}
